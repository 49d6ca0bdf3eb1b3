/*
 * The characters of a JSON string (between its quotes) decoded into its
 * bytes in place: a body's large string member becomes its bytes where it
 * lies, without a copy (tools/aio-api/aio_write_body.h).
 */
#ifndef SBX_COMMON_JSON_UNESCAPE_H
#define SBX_COMMON_JSON_UNESCAPE_H

#include <stddef.h>

/* Decode the `len` characters at `text` (a string of RFC 8259 JSON, its
 * quotes left out) into `out`, which may be `text` itself or any address
 * before it (the bytes are never more than the characters).  Escapes of a
 * surrogate pair give its character's UTF-8.  Returns the count of bytes,
 * or (size_t)-1 for a bad escape or a half of a surrogate pair (a text the
 * strict body check passed has none). */
size_t common_json_unescape(const char *text, size_t len, char *out);

/* 1 when the `len` characters at `text` are a JSON string's (RFC 8259, its
 * quotes left out) whose bytes are clean text (common_text_is_clean: no
 * NUL, raw or \u0000) and that escape no surrogate (\uD800 to \uDFFF, a
 * pair too); else 0.  The quick check, a block at a time, of a large
 * member the strict lexer is then spared (tools/aio-api/aio_write_body.h). */
int common_json_chars_are_clean(const char *text, size_t len);

#endif
