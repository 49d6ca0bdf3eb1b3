/*
 * The entry table and the record snapshots (see entries.h), and the
 * identity index (identity_index.h): the ACTIVE entries of named threads by
 * (user, thread), so that an acquire of an active thread finds its entry
 * without deriving the sandbox id (rule 1's SHA-256 cost an acquire more
 * than the rest of its bookkeeping together) and without validating the
 * request's strings: a match is equal to strings that were validated when
 * the entry was made.
 *
 * The index's chains run through the entries themselves, so indexing one
 * never allocates; only growing the buckets does, and an index that cannot
 * grow keeps longer chains.  An entry that cannot be indexed at all (no
 * buckets) is merely not found there: acquire's full path serves it.
 */
#include <config.h>

#include "host-api/src/manager/entries.h"

#include "host-api/src/manager/manager_events.h"
#include "host-api/src/manager/manager_internal.h"

#include "common/fnv1a.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- snapshots */

sbx_managed *mgr_managed_copy(const sbx_sandbox *sb)
{
    sbx_managed *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    mgr_split_count_init(&r->refs);
    r->sandbox.mount_contract_version = sb->mount_contract_version;
    const char *src[] = {sb->sandbox_id, sb->sandbox_url, sb->user_id, sb->thread_id, sb->status};
    char **dst[] = {&r->sandbox.sandbox_id, &r->sandbox.sandbox_url, &r->sandbox.user_id,
                    &r->sandbox.thread_id, &r->sandbox.status};
    for (size_t i = 0; i < sizeof src / sizeof src[0]; i++) {
        const char *s = src[i] != NULL ? src[i] : (i < 2 ? "" : NULL);
        if (s != NULL && (*dst[i] = strdup(s)) == NULL) {
            mgr_managed_drop(r);
            return NULL;
        }
    }
    return r;
}

const sbx_sandbox *sbx_managed_sandbox(const sbx_managed *managed)
{
    return &managed->sandbox;
}

sbx_managed *sbx_managed_ref(sbx_managed *managed)
{
    mgr_split_count_add(&managed->refs);
    return managed;
}

static void managed_free(sbx_managed *managed)
{
    free(managed->sandbox.sandbox_id);
    free(managed->sandbox.sandbox_url);
    free(managed->sandbox.user_id);
    free(managed->sandbox.thread_id);
    free(managed->sandbox.status);
    free(managed);
}

void sbx_managed_unref(sbx_managed *managed)
{
    if (managed != NULL && mgr_split_count_sub(&managed->refs))
        managed_free(managed);
}

void mgr_managed_drop(sbx_managed *managed)
{
    if (managed != NULL && mgr_split_count_retire(&managed->refs))
        managed_free(managed);
}

/* ---------------------------------------------------------------- identity index */

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

/* Index `e` when it is ACTIVE with a known identity and a named thread, else
 * take it out.  Never fails: an entry the index has no room for is served by
 * acquire's full path.  Under the write lock. */
static void identity_sync(mgr_identity_index *index, mgr_entry *e)
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

/* ---------------------------------------------------------------- entries */

mgr_entry *mgr_find(sbx_manager *m, const char *id)
{
    return mgr_strmap_get(&m->entries, id);
}

void mgr_entry_free(void *value)
{
    mgr_entry *e = value;
    mgr_managed_drop(e->record);
    pthread_mutex_destroy(&e->acquire_lock);
    free(e->id);
    free(e->user);
    free(e->thread);
    free(e);
}

mgr_entry *mgr_find_or_add(sbx_manager *m, const char *id)
{
    mgr_entry *e = mgr_find(m, id);
    if (e != NULL)
        return e;
    e = calloc(1, sizeof *e);
    if (e == NULL || (e->id = strdup(id)) == NULL) {
        free(e);
        return NULL;
    }
    e->unowned_since = -1;
    atomic_init(&e->last_used, 0);
    pthread_mutex_init(&e->acquire_lock, NULL);
    if (mgr_strmap_put(&m->entries, id, e) != 0) {
        mgr_entry_free(e);
        return NULL;
    }
    return e;
}

void mgr_entry_collect(sbx_manager *m, mgr_entry *e)
{
    if (e->state == MGR_NONE && !e->teardown && e->inflight == 0 && e->pins == 0 &&
        e->unowned_since < 0)
        mgr_entry_free(mgr_strmap_remove(&m->entries, e->id));
}

int mgr_entry_unpin_tracked(mgr_entry *e)
{
    if (e->state == MGR_NONE)
        return 0;
    atomic_fetch_sub(&e->pins, 1);
    return 1;
}

void mgr_entry_unpin(sbx_manager *m, mgr_entry *e)
{
    mgr_read_lock(&m->lock);
    int done = mgr_entry_unpin_tracked(e);
    mgr_read_unlock(&m->lock);
    if (done)
        return;
    mgr_write_lock(&m->lock);
    atomic_fetch_sub(&e->pins, 1);
    mgr_entry_collect(m, e);
    mgr_write_unlock(&m->lock);
}

void mgr_entry_set_state(sbx_manager *m, mgr_entry *e, mgr_state state, sbx_managed *record)
{
    if (e->state == MGR_ACTIVE)
        m->n_active--;
    else if (e->state == MGR_WARM)
        m->n_warm--;
    if (state == MGR_ACTIVE)
        m->n_active++;
    else if (state == MGR_WARM)
        m->n_warm++;
    e->state = state;
    if (record != e->record) {
        mgr_managed_drop(e->record);
        e->record = record;
    }
    if (state == MGR_NONE) {
        mgr_managed_drop(e->record);
        e->record = NULL;
        e->identity_known = 0;
        e->epoch = 0;
    }
    identity_sync(&m->identities, e);
}

int mgr_entry_set_identity(mgr_entry *e, const char *user, const char *thread)
{
    char *u = strdup(user);
    char *t = thread != NULL ? strdup(thread) : NULL;
    if (u == NULL || (thread != NULL && t == NULL)) {
        free(u);
        free(t);
        return -1;
    }
    free(e->user);
    free(e->thread);
    e->user = u;
    e->thread = t;
    e->identity_known = 1;
    return 0;
}

int mgr_forget(sbx_manager *m, const char *id, int64_t expected_epoch)
{
    int dropped = 0;
    mgr_write_lock(&m->lock);
    mgr_entry *e = mgr_find(m, id);
    /* The in-flight mark before the epoch: acquire's publish sets the epoch
     * before it lowers the mark, so one of the two tells of its take. */
    if (e != NULL && e->state != MGR_NONE && !e->teardown && e->inflight == 0 &&
        (expected_epoch < 0 || e->epoch == (uint64_t)expected_epoch)) {
        mgr_entry_set_state(m, e, MGR_NONE, NULL);
        mgr_entry_collect(m, e);
        dropped = 1;
    }
    mgr_write_unlock(&m->lock);
    if (dropped) {
        mgr_log(m, SBX_LOG_WARN, "lease of sandbox %s is held by another instance: forgotten, "
                "not destroyed", id);
        mgr_event(m, SBX_MANAGER_EVENT_LEASE_LOST, id);
    }
    return dropped;
}

sbx_status mgr_require_tracked(sbx_manager *m, const char *id, sbx_error *err)
{
    mgr_read_lock(&m->lock);
    const mgr_entry *e = mgr_find(m, id);
    int tracked = e != NULL && e->state != MGR_NONE;
    mgr_read_unlock(&m->lock);
    if (tracked)
        return SBX_OK;
    return sbx_error_set(err, SBX_ERR_NOT_FOUND, "manager: sandbox %s is not tracked here", id);
}
