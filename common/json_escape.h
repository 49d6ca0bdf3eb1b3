/*
 * Clean text (well-formed UTF-8 without NUL) written as the characters of
 * a JSON string: a large file content sent as text, not base64 (the
 * remote backend's writes to sbx-provisiond), checked and escaped in two
 * passes that step over plain stretches eight bytes at a time.
 */
#ifndef SBX_COMMON_JSON_ESCAPE_H
#define SBX_COMMON_JSON_ESCAPE_H

#include <stddef.h>

/* The count of characters the `len` bytes at `text` take inside a JSON
 * string (its quotes left out), or (size_t)-1 when they are not clean
 * text (common_text_is_clean: ill-formed UTF-8 or a NUL byte). */
size_t common_json_escaped_len(const char *text, size_t len);

/* Write the characters of the clean text at `text` (`len` bytes) into
 * `out`, which holds common_json_escaped_len of them; returns their count.
 * `"`, `\` and control characters are escaped (the short forms where JSON
 * has one, else \u00XX), every other byte goes as it is (U+2028 too: it is
 * plain JSON). */
size_t common_json_escape(const char *text, size_t len, char *out);

#endif
