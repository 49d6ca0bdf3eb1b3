/*
 * The tree's one UTF-8 module: the checks of strings that cross a trust
 * boundary (a peer's answer, a configuration value, a command-line
 * argument) and the one repair of bytes that are not UTF-8.  A string that
 * holds a NUL would be cut short by every C consumer (and could pass an
 * identity check as a prefix); one that is not UTF-8 cannot be written
 * into valid JSON.  Well-formed is RFC 3629's table: no overlong forms, no
 * surrogates, nothing above U+10FFFF.
 */
#ifndef SBX_COMMON_UTF8_H
#define SBX_COMMON_UTF8_H

#include <stddef.h>

/* The bytes of the well-formed character that the `len` (> 0) bytes at
 * `text` begin with (a NUL is one); or 0 when they begin none, with *bad
 * set to the bytes of their maximal subpart (1 to 3): the longest start of
 * a well-formed sequence there, which one U+FFFD replaces. */
size_t common_utf8_char(const char *text, size_t len, size_t *bad);

/* 1 when the `len` bytes at `text` are well-formed UTF-8, NUL bytes
 * allowed (as in a Python str); else 0. */
int common_utf8_is_valid(const char *text, size_t len);

/* 1 when the `len` bytes at `text` are well-formed UTF-8 and hold no NUL
 * byte; else 0. */
int common_text_is_clean(const char *text, size_t len);

/* The UTF-8 bytes of code point `cp` (at most 0x10FFFF) into out; their
 * count (1 to 4).  A surrogate is encoded as it is: callers decide. */
size_t common_utf8_encode(unsigned long cp, char out[4]);

/* Length of the longest prefix of the `len` bytes at `text`, at most `max`
 * bytes, that does not end inside a UTF-8 sequence (to cut valid text
 * without making it invalid). */
size_t common_utf8_cut(const char *text, size_t len, size_t max);

/* The `len` bytes at `bytes` as UTF-8 text, malloc'd and NUL-terminated:
 * each maximal subpart of an ill-formed sequence becomes one U+FFFD
 * (Unicode's "substitution of maximal subparts", as the W3C/WHATWG
 * decoders and Python's errors="replace" do); NUL bytes are kept.  Sets
 * *out_len to its bytes and *chars to its characters when they are not
 * NULL.  NULL when memory ran out. */
char *common_utf8_repair(const char *bytes, size_t len, size_t *out_len, size_t *chars);

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
