/* How the differential fuzz targets split an input before feeding it to a
 * streaming decoder: chunks of a fixed size, or (chunk 0) sizes drawn from a
 * generator seeded by the input itself, so that a saved input replays the
 * same split.  Header-only: each target is built from its own list of
 * sources by fuzz/run. */
#ifndef SBX_FUZZ_CHUNKS_H
#define SBX_FUZZ_CHUNKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/fnv1a.h"

typedef struct fuzz_chunks {
    uint64_t state;
    size_t chunk;
} fuzz_chunks;

/* Start splitting `body` (`size` bytes) into chunks of `chunk` bytes, or of
 * drawn sizes when `chunk` is 0. */
static inline void fuzz_chunks_start(fuzz_chunks *c, const char *body, size_t size,
                                     size_t chunk)
{
    c->chunk = chunk;
    c->state = common_fnv1a_bytes(COMMON_FNV1A_BASIS, body, size);
}

/* The size of the next chunk, at most `left` bytes (mostly 0-8, now and
 * then up to 4 KiB). */
static inline size_t fuzz_chunks_next(fuzz_chunks *c, size_t left)
{
    size_t n = c->chunk;
    if (n == 0) {
        c->state ^= c->state << 13;
        c->state ^= c->state >> 7;
        c->state ^= c->state << 17;
        n = c->state % 8 == 0 ? (size_t)(c->state >> 8) % 4096 : (size_t)(c->state >> 8) % 9;
    }
    return n < left ? n : left;
}

/* Feed `body` (`size` bytes) to a streaming decoder's `feed` (0: taken)
 * through `ctx`, in the chunks described above; abort() when a feed fails,
 * since the targets expect no allocation failure. */
static inline void fuzz_chunks_feed(const char *body, size_t size, size_t chunk,
                                    int (*feed)(void *ctx, const char *bytes, size_t n),
                                    void *ctx)
{
    fuzz_chunks chunks;
    fuzz_chunks_start(&chunks, body, size, chunk);
    for (size_t at = 0; at < size;) {
        size_t n = fuzz_chunks_next(&chunks, size - at);
        if (feed(ctx, body + at, n) != 0)
            abort();
        at += n;
    }
}

#endif
