/*
 * Base64 (RFC 4648, standard alphabet, with padding): how bytes travel in
 * JSON (sbxctl's --json output of a command's binary output, the AIO wire's
 * base64 file content).
 */
#ifndef SBX_COMMON_BASE64_H
#define SBX_COMMON_BASE64_H

#include <stddef.h>

/* Bytes of the encoding of `len` bytes, its NUL not counted. */
#define COMMON_BASE64_ENCODED_LEN(len) ((((len) + 2) / 3) * 4)

/* Encode `len` bytes into `out`, which holds COMMON_BASE64_ENCODED_LEN(len)
 * + 1 bytes; NUL-terminated.  Returns the encoded length. */
size_t common_base64_encode(const void *bytes, size_t len, char *out);

/* `len` bytes encoded into a malloc'd NUL-terminated string; NULL when
 * out of memory or too large to count. */
char *common_base64_encode_alloc(const void *bytes, size_t len);

/* Decode `len` characters of base64 (padding required when the length is
 * not a multiple of 4 is accepted either way; no whitespace) into `out`,
 * which holds len / 4 * 3 + 3 bytes.  Returns 0 and sets *out_len, or -1 for
 * a character outside the alphabet or a misplaced '='. */
int common_base64_decode(const char *text, size_t len, unsigned char *out, size_t *out_len);

#endif
