/*
 * The identity index (manager_internal.h): the ACTIVE entries of named
 * threads by (user, thread), so that an acquire of an active thread finds
 * its entry without deriving the sandbox id (rule 1's SHA-256 cost an
 * acquire more than the rest of its bookkeeping together) and without
 * validating the request's strings: a match is equal to strings that were
 * validated when the entry was made.
 *
 * Chains run through the entries themselves, so indexing one never
 * allocates; only growing the buckets does, and an index that cannot grow
 * keeps longer chains.  An entry that cannot be indexed at all (no buckets)
 * is merely not found here: acquire's full path serves it.
 */
#include <config.h>

#include "host-api/src/manager/manager_internal.h"

#include "common/fnv1a.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_BUCKETS 16

/* FNV-1a over the user, a NUL, and the thread: neither string holds a NUL,
 * so no two pairs hash the same bytes. */
static size_t identity_hash(const char *user, const char *thread)
{
    uint64_t h = common_fnv1a_bytes(COMMON_FNV1A_BASIS, user, strlen(user) + 1);
    return (size_t)common_fnv1a_string(h, thread);
}

mgr_entry *mgr_identity_find(const mgr_identity_index *index, const char *user,
                             const char *thread)
{
    if (index->bucket_count == 0)
        return NULL;
    size_t h = identity_hash(user, thread);
    for (mgr_entry *e = index->buckets[h & (index->bucket_count - 1)]; e != NULL;
         e = e->identity_next)
        if (e->identity_hash == h && strcmp(e->user, user) == 0 && strcmp(e->thread, thread) == 0)
            return e;
    return NULL;
}

static void unlink_entry(mgr_identity_index *index, mgr_entry *e)
{
    mgr_entry **link = &index->buckets[e->identity_hash & (index->bucket_count - 1)];
    while (*link != e)
        link = &(*link)->identity_next;
    *link = e->identity_next;
    e->identity_next = NULL;
    e->indexed = 0;
    index->count--;
}

/* Double the buckets (the first call makes INITIAL_BUCKETS); on failure the
 * index keeps the buckets it has. */
static void grow(mgr_identity_index *index)
{
    size_t n = index->bucket_count == 0 ? INITIAL_BUCKETS : index->bucket_count * 2;
    mgr_entry **buckets = calloc(n, sizeof *buckets);
    if (buckets == NULL)
        return;
    for (size_t i = 0; i < index->bucket_count; i++) {
        mgr_entry *e = index->buckets[i];
        while (e != NULL) {
            mgr_entry *next = e->identity_next;
            e->identity_next = buckets[e->identity_hash & (n - 1)];
            buckets[e->identity_hash & (n - 1)] = e;
            e = next;
        }
    }
    free(index->buckets);
    index->buckets = buckets;
    index->bucket_count = n;
}

void mgr_identity_sync(mgr_identity_index *index, mgr_entry *e)
{
    if (e->indexed)
        unlink_entry(index, e);
    if (e->state != MGR_ACTIVE || !e->identity_known || e->thread == NULL)
        return;
    if (index->count >= index->bucket_count)
        grow(index);
    if (index->bucket_count == 0)
        return;
    e->identity_hash = identity_hash(e->user, e->thread);
    mgr_entry **bucket = &index->buckets[e->identity_hash & (index->bucket_count - 1)];
    e->identity_next = *bucket;
    *bucket = e;
    e->indexed = 1;
    index->count++;
}

void mgr_identity_index_free(mgr_identity_index *index)
{
    free(index->buckets);
    index->buckets = NULL;
    index->bucket_count = index->count = 0;
}
