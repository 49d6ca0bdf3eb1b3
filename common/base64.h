/*
 * Base64 (RFC 4648, standard alphabet, with padding): how bytes travel in
 * JSON (sbxctl's --json output of a command's binary output, the AIO wire's
 * base64 file content).  One encoder and one decoder for the whole tree.
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

/* How a decoder reads its text: strict (the alphabet and padding only), or
 * with the whitespace a wire may fold into its text (space, tab, CR, LF)
 * skipped wherever it stands, as the AIO server's decoder does. */
#define COMMON_BASE64_STRICT 0u
#define COMMON_BASE64_SKIP_SPACE 1u

/* Bytes decoding `len` characters may give at most. */
#define COMMON_BASE64_DECODED_MAX(len) ((len) / 4 * 3 + 3)

/* Decode `len` characters of base64 into `out`, which holds
 * COMMON_BASE64_DECODED_MAX(len) bytes (or is `text` itself: the bytes
 * never pass the characters they come from).  Padding may be left out; when
 * present it ends the text and completes the last group of 4.  Returns 0
 * and sets *out_len, or -1 for a character outside the alphabet (or
 * whitespace, when `flags` does not skip it), data after '=', or a last
 * group of one character. */
int common_base64_decode(const char *text, size_t len, unsigned flags, unsigned char *out,
                         size_t *out_len);

/* common_base64_decode into a malloc'd buffer, NUL-terminated after
 * *out_len bytes.  NULL with *invalid 1 when the text is not base64, with
 * *invalid 0 when memory ran out. */
char *common_base64_decode_alloc(const char *text, size_t len, unsigned flags, size_t *out_len,
                                 int *invalid);

#endif
