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

#endif /* SBX_COMMON_UTF8_H */
