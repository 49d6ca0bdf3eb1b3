/* Text conversions of the AIO sandbox routes (aio_server.h): output bytes
 * as the JSON strings the AIO API answers (UTF-8, counted in characters,
 * cut in the middle; base64 contents decode through common/base64.h).  Pure
 * functions, thread-safe; every result is a new buffer the caller frees,
 * NULL when memory ran out. */
#ifndef AIO_TEXT_H
#define AIO_TEXT_H

#include <stddef.h>

/* 1 when the `len` bytes are well-formed UTF-8 (NUL bytes allowed, as in a
 * Python str), else 0. */
int aio_utf8_valid(const char *bytes, size_t len);

/* The `len` bytes as UTF-8 text: each ill-formed sequence becomes U+FFFD
 * (as Python's errors="replace"), NUL bytes are kept.  Sets *out_len to
 * its bytes and *chars to its characters. */
char *aio_text_from_bytes(const char *bytes, size_t len, size_t *out_len, size_t *chars);

/* `text` (`len` bytes of valid UTF-8, `chars` characters) cut to its
 * first ceil(max/2) and last floor(max/2) characters with
 * "\n... [N characters truncated] ...\n" between them when it has more
 * than `max` (> 0) characters; else a copy.  Sets *out_len. */
char *aio_text_middle_cut(const char *text, size_t len, size_t chars, size_t max,
                          size_t *out_len);

#endif
