/*
 * The records (local_metadata.h) an instance has read, kept so that
 * reading a record that has not changed costs one stat() instead of an
 * open, reads and a JSON parse (a discover through sbx-provisiond spent
 * most of its time there).  Every read still checks the file: an entry
 * keeps its record file open, so that no other file can take its inode
 * number while it is cached; a record at the path with the cached device,
 * inode, size, modification and change times is the cached one.  The
 * backend replaces a record by rename, never in place; a record rewritten
 * in place by someone else is noticed by its times, which is only sure
 * once they are older than the file system's timestamp granularity: a
 * record changed less than LOCAL_CACHE_SETTLE_MS before it was read is
 * read from its file every time.
 * Thread-safe: one mutex guards the entries.
 */
#ifndef SBX_LOCAL_CACHE_H
#define SBX_LOCAL_CACHE_H

#include <sbx/backend.h>

#include "plugin/local/local_metadata.h"

/* At most this many records are kept (and as many files held open); the
 * one read least recently makes room. */
#define LOCAL_CACHE_ENTRIES 128

/* A record whose file changed less than this before it was read is not
 * trusted to the cache (a coarse file system's timestamp granularity). */
#define LOCAL_CACHE_SETTLE_MS 1000

typedef struct local_cache local_cache;

/* A new, empty cache; NULL when out of memory.  Release with
 * local_cache_free, which closes the files it holds. */
local_cache *local_cache_new(void);

/* Release a cache (NULL: nothing). */
void local_cache_free(local_cache *cache);

/* The record file `path` read into *meta as local_metadata_open and
 * local_metadata_read_fd read it (the same answers and errors), from the
 * cache when the file there is still the one cached.  *meta is the
 * caller's copy (local_metadata_clear). */
sbx_status local_cache_read(local_cache *cache, const char *path, local_metadata *meta,
                            sbx_error *err);

/* Drop the entry of `path` (destroy removed its record), closing its file. */
void local_cache_forget(local_cache *cache, const char *path);

#endif
