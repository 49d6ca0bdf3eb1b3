/* The working directories of sandboxes that run in a container, kept per
 * sandbox incarnation so that GET /v1/sandbox asks `pwd` once per
 * incarnation, not once per request (a container's working directory is
 * fixed when it is made).  Process-wide; safe on many threads at once. */
#ifndef AIO_HOME_CACHE_H
#define AIO_HOME_CACHE_H

#include <stddef.h>

/* Whether a directory is kept for sandbox `id`'s incarnation `incarnation`
 * of `backend` (any pointer naming the backend; only compared): 1 with it
 * copied into `dir` (`size` bytes), else 0. */
int aio_home_cache_find(const void *backend, const char *id, const char *incarnation,
                        char *dir, size_t size);

/* Keep `dir` for that incarnation (all copied), in place of the entry used
 * least recently once the cache is full.  Too long a key or directory, or
 * no memory: nothing kept (the next request asks again). */
void aio_home_cache_keep(const void *backend, const char *id, const char *incarnation,
                         const char *dir);

#endif /* AIO_HOME_CACHE_H */
