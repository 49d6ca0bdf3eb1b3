/* Reading a multipart/form-data body (RFC 7578), as the AIO upload route
 * receives it: the parts' names, file names and bytes. */
#ifndef AIO_MULTIPART_H
#define AIO_MULTIPART_H

#include <stddef.h>

/* Bytes kept of a part's name and of its file name (NUL included). */
#define AIO_PART_NAME_MAX 128
#define AIO_PART_FILENAME_MAX 1024

/* One part.  `data` points into the body. */
typedef struct aio_part {
    char name[AIO_PART_NAME_MAX];         /* "" when the part has none */
    char filename[AIO_PART_FILENAME_MAX]; /* "" when it names none */
    int has_filename;                     /* a filename parameter was given */
    const char *data;
    size_t len;
} aio_part;

/* Split `body` (`len` bytes) of Content-Type `content_type` into at most
 * `max` parts (*count of them).  Returns 1, or 0 when the type is not
 * multipart/form-data with a boundary or the body is not made of such
 * parts. */
int aio_multipart_parse(const char *content_type, const char *body, size_t len,
                        aio_part *parts, size_t max, size_t *count);

#endif
