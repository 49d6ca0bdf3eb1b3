/* The entry table and the record snapshots (see entries.h). */
#include <config.h>

#include "host-api/src/manager/entries.h"

#include "host-api/src/manager/manager_events.h"

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
    mgr_identity_sync(&m->identities, e);
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
