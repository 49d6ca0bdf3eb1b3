/*
 * Where sandboxes were found, kept for the file calls: an id's sandbox_url
 * and incarnation as discover last answered them, for REMOTE_ADDRESS_KEEP_MS
 * at most, only when the answer named an incarnation and the URL is served
 * by the provisioner itself (sbx-provisiond's sandbox API: a URL holding a
 * token made for that incarnation alone, so a URL kept past the sandbox's
 * destroy answers 404 and never reaches another sandbox).  A call that
 * fails through a kept address asks again (remote_files.c).  Thread-safe:
 * one lock guards the table.
 */
#ifndef SBX_REMOTE_ADDRESS_CACHE_H
#define SBX_REMOTE_ADDRESS_CACHE_H

#include <pthread.h>
#include <stdint.h>

/* How long an address is used without asking the provisioner again. */
#define REMOTE_ADDRESS_KEEP_MS 10000
/* Sandboxes whose addresses are kept at once (the oldest make room). */
#define REMOTE_ADDRESS_ENTRIES 32

typedef struct remote_address_entry {
    char *sandbox_id;          /* NULL: a free entry */
    char *url;
    char *incarnation;
    int64_t kept_at_ms;        /* monotonic */
} remote_address_entry;

typedef struct remote_address_cache {
    pthread_mutex_t lock;
    remote_address_entry entries[REMOTE_ADDRESS_ENTRIES];
} remote_address_cache;

/* An empty cache.  0, or -1 when the lock could not be made. */
int remote_address_cache_init(remote_address_cache *c);

/* Free what the cache holds (no call may use it any more). */
void remote_address_cache_destroy(remote_address_cache *c);

/* The address kept for `sandbox_id`, younger than REMOTE_ADDRESS_KEEP_MS:
 * 1 with malloc'd copies in *url and *incarnation, else 0 (both NULL). */
int remote_address_cache_find(remote_address_cache *c, const char *sandbox_id, char **url,
                              char **incarnation);

/* Keep `url` and `incarnation` (copied) for `sandbox_id` from now on; out
 * of memory: nothing kept. */
void remote_address_cache_keep(remote_address_cache *c, const char *sandbox_id,
                               const char *url, const char *incarnation);

/* Forget the address kept for `sandbox_id`, if any (its destroy, or a call
 * that failed through it). */
void remote_address_cache_forget(remote_address_cache *c, const char *sandbox_id);

#endif /* SBX_REMOTE_ADDRESS_CACHE_H */
