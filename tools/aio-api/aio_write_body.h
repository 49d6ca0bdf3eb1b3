/* The body of POST /v1/file/write read without a copy of its content: the
 * content string is found in the request's own body and later decoded
 * there, in place; json-c parses only the other members (a 16 MiB write
 * holds its body and nothing of its size besides, docs/provisiond.md). */
#ifndef AIO_WRITE_BODY_H
#define AIO_WRITE_BODY_H

#include "tools/aio-api/aio_body.h"

#include <json-c/json.h>
#include <stddef.h>

/* A write body's members and where its content lies. */
typedef struct aio_write_body {
    json_object *members;   /* the body with "content" read as "" (put it) */
    char *content;          /* the content's characters, just past its opening quote */
    size_t content_len;     /* up to the closing quote, escapes still in */
} aio_write_body;

/* What aio_write_body_read found. */
typedef enum aio_write_body_result {
    AIO_WRITE_BODY_READ,          /* *out holds a body whose fields passed their checks */
    AIO_WRITE_BODY_ELSEWISE,      /* not such a body (bad JSON, no string content, a
                                   * field at fault): read it the usual way for the
                                   * exact answer; `body` is as it was */
    AIO_WRITE_BODY_OUT_OF_MEMORY
} aio_write_body_result;

/* Read `body` (`len` bytes, NUL-terminated, the request's own copy, which
 * aio_write_body_decode later writes into) as a write of `count` `fields`
 * whose "content" member is a string. */
aio_write_body_result aio_write_body_read(char *body, size_t len, const aio_field *fields,
                                          size_t count, aio_write_body *out);

/* Decode the content in place (JSON escapes, then base64 when `base64`;
 * a newline before and after it as asked, in the bytes of its quotes) and
 * point *bytes at it, *len bytes.  0, or -1 when the content is not
 * base64 (or, never for a body the strict check passed, bad JSON). */
int aio_write_body_decode(aio_write_body *wb, int base64, int leading, int trailing,
                          const char **bytes, size_t *len);

#endif
