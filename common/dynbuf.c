/* The growable buffer (see dynbuf.h). */
#include <config.h>

#include "common/dynbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_CAPACITY 64

void common_dynbuf_init(common_dynbuf *b, size_t limit)
{
    memset(b, 0, sizeof *b);
    b->limit = limit;
}

/* The most bytes `b` may hold. */
static size_t max_len(const common_dynbuf *b)
{
    return b->limit != 0 && b->limit < SIZE_MAX ? b->limit : SIZE_MAX - 1;
}

/* Room for `more` bytes and the NUL after them: doubling, so that n adds
 * cost O(n) copies, and never past the limit. */
static int reserve(common_dynbuf *b, size_t more)
{
    if (more > max_len(b) - b->len)
        return COMMON_DYNBUF_TOO_BIG;
    size_t need = b->len + more + 1;
    if (need <= b->cap)
        return COMMON_DYNBUF_OK;
    size_t cap = b->cap != 0 ? b->cap : FIRST_CAPACITY;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
    if (cap > max_len(b) + 1)
        cap = max_len(b) + 1;
    char *grown = realloc(b->data, cap);
    if (grown == NULL)
        return COMMON_DYNBUF_NO_MEMORY;
    b->data = grown;
    b->cap = cap;
    return COMMON_DYNBUF_OK;
}

int common_dynbuf_reserve(common_dynbuf *b, size_t n)
{
    return b->failed != COMMON_DYNBUF_OK ? b->failed : reserve(b, n);
}

int common_dynbuf_add_growing(common_dynbuf *b, const void *bytes, size_t n)
{
    if (b->failed != COMMON_DYNBUF_OK)
        return b->failed;
    int st = reserve(b, n);
    if (st != COMMON_DYNBUF_OK)
        return b->failed = st;
    if (n > 0)
        memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
    return COMMON_DYNBUF_OK;
}

int common_dynbuf_addf(common_dynbuf *b, const char *format, ...)
{
    if (b->failed != COMMON_DYNBUF_OK)
        return b->failed;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(NULL, 0, format, args);
    va_end(args);
    int st = n < 0 ? COMMON_DYNBUF_TOO_BIG : reserve(b, (size_t)n);
    if (st != COMMON_DYNBUF_OK)
        return b->failed = st;
    va_start(args, format);
    vsnprintf(b->data + b->len, (size_t)n + 1, format, args);
    va_end(args);
    b->len += (size_t)n;
    return COMMON_DYNBUF_OK;
}

void common_dynbuf_reset(common_dynbuf *b)
{
    b->len = 0;
    b->failed = COMMON_DYNBUF_OK;
    if (b->data != NULL)
        b->data[0] = '\0';
}

char *common_dynbuf_take(common_dynbuf *b, size_t *len)
{
    char *data = b->data;
    if (len != NULL)
        *len = b->len;
    common_dynbuf_init(b, b->limit);
    return data;
}

void common_dynbuf_free(common_dynbuf *b)
{
    free(b->data);
    common_dynbuf_init(b, b->limit);
}
