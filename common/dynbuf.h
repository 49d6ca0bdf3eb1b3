/*
 * A growable byte buffer with a size limit: the one buffer of the tree for
 * bytes whose size is not known in advance (an HTTP body, a JSON string, an
 * expanded text).  Zero-initialised it is empty and limited only by memory.
 * One overflow policy: an add that does not fit (past the limit, or out of
 * memory) changes nothing, returns why, and the buffer stays failed, so a
 * caller may check every add or only once at the end.
 */
#ifndef SBX_COMMON_DYNBUF_H
#define SBX_COMMON_DYNBUF_H

#include <stddef.h>
#include <string.h>

enum {
    COMMON_DYNBUF_OK = 0,
    COMMON_DYNBUF_NO_MEMORY = -1, /* an allocation failed */
    COMMON_DYNBUF_TOO_BIG = -2    /* the bytes would pass the limit */
};

typedef struct common_dynbuf {
    char *data;    /* NUL-terminated after `len` bytes once anything was added */
    size_t len;    /* bytes held, the NUL not counted */
    size_t cap;    /* bytes allocated: never more than limit + 1 */
    size_t limit;  /* most bytes it may hold; 0 (or SIZE_MAX): no limit but memory */
    int failed;    /* 0, or the code of the first add that failed */
} common_dynbuf;

/* An empty buffer that holds at most `limit` bytes (0: no limit). */
void common_dynbuf_init(common_dynbuf *b, size_t limit);

/* The part of common_dynbuf_add that grows the buffer (or fails); call
 * common_dynbuf_add instead. */
int common_dynbuf_add_growing(common_dynbuf *b, const void *bytes, size_t n);

/* Append `n` bytes (n may be 0: the buffer then holds at least "") and keep
 * a NUL after them.  COMMON_DYNBUF_OK; else NO_MEMORY or TOO_BIG, the bytes
 * unchanged, and every later add answers that same code until a reset.
 * Inline, as the streaming decoders add a few bytes at a time. */
static inline int common_dynbuf_add(common_dynbuf *b, const void *bytes, size_t n)
{
    /* cap never passes limit + 1: room in it is room under the limit */
    if (b->failed != COMMON_DYNBUF_OK || b->cap - b->len <= n)
        return common_dynbuf_add_growing(b, bytes, n);
    if (n > 0)
        memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
    return COMMON_DYNBUF_OK;
}

/* Append the text printf would write of `format` and its arguments,
 * formatted in place (no temporary), under common_dynbuf_add's policy: its
 * codes; a text printf cannot make (past INT_MAX bytes) is TOO_BIG. */
int common_dynbuf_addf(common_dynbuf *b, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Make room for `n` more bytes (and the NUL) in one allocation, when a
 * caller knows about how much it will add.  COMMON_DYNBUF_OK, or the code
 * of why not; the buffer is unchanged then, and not failed (adds still
 * grow it as they need). */
int common_dynbuf_reserve(common_dynbuf *b, size_t n);

/* Forget the bytes and the failure, keeping the memory and the limit. */
void common_dynbuf_reset(common_dynbuf *b);

/* Hand the bytes to the caller (free() them; NULL when nothing was ever
 * added), with their length in *len when len is not NULL; the buffer is
 * then empty and keeps its limit. */
char *common_dynbuf_take(common_dynbuf *b, size_t *len);

/* Free the bytes; the buffer is empty and keeps its limit. */
void common_dynbuf_free(common_dynbuf *b);

#endif
