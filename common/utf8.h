/*
 * Text checks for strings that cross a trust boundary: a peer's answer, a
 * configuration value, a command-line argument.  A string that holds a NUL
 * would be cut short by every C consumer (and could pass an identity check
 * as a prefix); one that is not UTF-8 cannot be written into valid JSON.
 */
#ifndef SBX_COMMON_UTF8_H
#define SBX_COMMON_UTF8_H

#include <stddef.h>

/* 1 when the `len` bytes at `text` are well-formed UTF-8 (no overlong forms,
 * no surrogates, nothing above U+10FFFF) and hold no NUL byte; else 0. */
int common_text_is_clean(const char *text, size_t len);

/* common_text_is_clean over a text that arrives in pieces (a streamed
 * string): zero-initialise one, give it every piece in order with
 * common_utf8_scan_bytes, then ask common_utf8_scan_clean. */
typedef struct common_utf8_scan {
    unsigned char need;   /* continuation bytes still due */
    unsigned char lo, hi; /* the bounds of the next one */
    unsigned char bad;    /* a NUL or an ill-formed sequence was seen */
} common_utf8_scan;

/* Check the next `len` bytes of the text. */
void common_utf8_scan_bytes(common_utf8_scan *u, const char *bytes, size_t len);

/* 1 when every byte given so far is clean text ending on a character
 * boundary (common_text_is_clean of them all), else 0. */
int common_utf8_scan_clean(const common_utf8_scan *u);

#endif /* SBX_COMMON_UTF8_H */
