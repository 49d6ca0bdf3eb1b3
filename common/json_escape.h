/*
 * Clean text (well-formed UTF-8 without NUL) written as the characters of
 * a JSON string: a large file content sent as text, not base64 (the
 * remote backend's writes to sbx-provisiond), checked and escaped in one
 * pass that copies plain stretches sixteen bytes at a time (SSE2) or eight
 * (any other machine) into a buffer of a size the caller bounds.
 */
#ifndef SBX_COMMON_JSON_ESCAPE_H
#define SBX_COMMON_JSON_ESCAPE_H

#include <stddef.h>

/* Write the characters the `len` bytes at `text` take inside a JSON string
 * (its quotes left out) into `out`, which holds `cap` characters; returns
 * their count, or (size_t)-1 when the bytes are not clean text
 * (common_text_is_clean) or their characters would not fit in `cap` (what
 * `out` then holds is undefined).  `"`, `\` and control characters are
 * escaped (the short forms where JSON has one, else \u00XX), every other
 * byte goes as it is (U+2028 too: it is plain JSON). */
size_t common_json_escape(const char *text, size_t len, char *out, size_t cap);

/* common_json_escape stepping over plain bytes eight at a time in a
 * 64-bit word, as it does where the compiler offers no SSE2: callable on
 * every machine so that the tests check both scans. */
size_t common_json_escape_words(const char *text, size_t len, char *out, size_t cap);

#endif
