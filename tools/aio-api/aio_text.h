/* Text cuts of the AIO sandbox routes (aio_server.h): output text as the
 * JSON strings the AIO API answers, cut in the middle (bytes become UTF-8
 * through common/utf8.h's repair; base64 contents decode through
 * common/base64.h).  Pure, thread-safe; the result is a new buffer the
 * caller frees, NULL when memory ran out. */
#ifndef AIO_TEXT_H
#define AIO_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* `text` (`len` bytes of valid UTF-8, `chars` characters) cut to its
 * first ceil(max/2) and last floor(max/2) characters with
 * "\n... [N characters truncated] ...\n" between them when it has more
 * than `max` (> 0) characters; else a copy.  Sets *out_len. */
char *aio_text_middle_cut(const char *text, size_t len, size_t chars, size_t max,
                          size_t *out_len);

/* Output bytes (`len`, any bytes: those that are not UTF-8 become
 * U+FFFD) as text cut in the middle to `max` characters (0: not cut), as
 * aio_text_middle_cut.  Sets *out_len. */
char *aio_text_of_output(const char *bytes, size_t len, size_t max, size_t *out_len);

/* `ms` since the epoch as an ISO 8601 UTC date-time with milliseconds
 * ("1970-01-01T00:00:00.000Z"), in out[32]. */
void aio_text_iso_time(int64_t ms, char out[32]);

#endif
