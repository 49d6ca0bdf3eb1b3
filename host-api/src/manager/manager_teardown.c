/*
 * Every destroy path of the manager (rule 9): explicit destroy, idle reaping,
 * replica eviction, unhealthy sandboxes and shutdown share one sequence:
 * reserve in-process, claim the lease for destroy, destroy on the backend
 * while a heartbeat keeps the teardown lease alive, release the lease.
 */
#include <config.h>

#include "host-api/src/manager/manager_teardown.h"

#include "host-api/src/manager/manager_internal.h"
#include "host-api/src/manager/entries.h"
#include "host-api/src/manager/manager_events.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- predicates */

int mgr_reapable_tracked(sbx_manager *m, const mgr_entry *e, void *ctx)
{
    (void)m, (void)ctx;
    return e != NULL && e->state != MGR_NONE;
}

int mgr_reapable_warm(sbx_manager *m, const mgr_entry *e, void *ctx)
{
    (void)m, (void)ctx;
    return e != NULL && e->state == MGR_WARM;
}

int mgr_reapable_untracked(sbx_manager *m, const mgr_entry *e, void *ctx)
{
    (void)m, (void)ctx;
    return e == NULL || e->state == MGR_NONE;
}

int mgr_reapable_same_record(sbx_manager *m, const mgr_entry *e, void *ctx)
{
    (void)m;
    return e != NULL && e->state != MGR_NONE && e->record == ctx;
}

/* ---------------------------------------------------------------- heartbeat */

typedef struct heartbeat {
    sbx_manager *m;
    const char *id;
    pthread_mutex_t lock;
    pthread_cond_t cond;           /* CLOCK_MONOTONIC */
    int stop;
} heartbeat;

/* Renew the `del:` lease every renewal interval until told to stop, then
 * release it: the release is the heartbeat's own last act, so no refresh in
 * flight can land after it and leave a stale marker. */
static void *heartbeat_main(void *arg)
{
    heartbeat *hb = arg;
    sbx_manager *m = hb->m;
    pthread_mutex_lock(&hb->lock);
    while (!hb->stop) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        int64_t ms = m->config.renewal_interval_ms;
        until.tv_sec += ms / 1000;
        until.tv_nsec += (ms % 1000) * 1000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        while (!hb->stop && pthread_cond_timedwait(&hb->cond, &hb->lock, &until) == 0)
            ;
        if (hb->stop)
            break;
        pthread_mutex_unlock(&hb->lock);
        int claimed = 0;
        sbx_error err;
        if (m->store->ops->claim(m->store, hb->id, 1, &claimed, &err) != SBX_OK)
            mgr_log(m, SBX_LOG_WARN, "teardown lease of %s not refreshed, will retry: %s", hb->id,
                    err.message);
        else if (!claimed)
            mgr_log(m, SBX_LOG_ERROR, "teardown lease of %s was taken by a peer while its destroy "
                    "runs", hb->id);
        pthread_mutex_lock(&hb->lock);
    }
    pthread_mutex_unlock(&hb->lock);
    sbx_error err;
    if (m->store->ops->release(m->store, hb->id, &err) != SBX_OK)
        mgr_log(m, SBX_LOG_WARN, "teardown lease of %s not released (it expires): %s", hb->id,
                err.message);
    return NULL;
}

/* The backend's destroy with the heartbeat around it; the lease is released
 * afterwards in every case. */
static sbx_status destroy_with_heartbeat(sbx_manager *m, const char *id, sbx_error *err)
{
    heartbeat hb = {.m = m, .id = id};
    pthread_mutex_init(&hb.lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&hb.cond, &attr);
    pthread_condattr_destroy(&attr);
    pthread_t thread;
    int beating = pthread_create(&thread, NULL, heartbeat_main, &hb) == 0;
    if (!beating)
        mgr_log(m, SBX_LOG_WARN, "no heartbeat thread for the teardown of %s", id);
    sbx_status st = sbx_backend_destroy(m->backend, id, err);
    if (beating) {
        pthread_mutex_lock(&hb.lock);
        hb.stop = 1;
        pthread_cond_signal(&hb.cond);
        pthread_mutex_unlock(&hb.lock);
        pthread_join(thread, NULL); /* bounded: every store call is */
    } else {
        sbx_error release_err;
        m->store->ops->release(m->store, id, &release_err);
    }
    pthread_cond_destroy(&hb.cond);
    pthread_mutex_destroy(&hb.lock);
    return st;
}

/* ---------------------------------------------------------------- teardown */

static void finish(sbx_manager *m, const char *id, int untrack)
{
    mgr_write_lock(&m->lock);
    mgr_entry *e = mgr_find(m, id);
    if (e != NULL) {
        e->teardown = 0;
        if (untrack)
            mgr_entry_set_state(m, e, MGR_NONE, NULL);
        mgr_entry_collect(m, e);
    }
    mgr_write_unlock(&m->lock);
    pthread_mutex_lock(&m->teardown_lock);
    pthread_cond_broadcast(&m->teardown_done);
    pthread_mutex_unlock(&m->teardown_lock);
}

void mgr_wait_teardown(sbx_manager *m, const mgr_entry *e)
{
    pthread_mutex_lock(&m->teardown_lock);
    for (;;) {
        mgr_read_lock(&m->lock);
        int reserved = e->teardown;
        mgr_read_unlock(&m->lock);
        if (!reserved)
            break;
        pthread_cond_wait(&m->teardown_done, &m->teardown_lock);
    }
    pthread_mutex_unlock(&m->teardown_lock);
}

sbx_status mgr_teardown(sbx_manager *m, const char *id, mgr_reapable_fn still_reapable,
                        void *ctx, int forget_if_denied, sbx_error *err)
{
    mgr_write_lock(&m->lock);
    mgr_entry *e = mgr_find(m, id);
    int reserved = (e == NULL || !e->teardown) && still_reapable(m, e, ctx);
    if (reserved && e == NULL && (e = mgr_find_or_add(m, id)) == NULL) {
        mgr_write_unlock(&m->lock);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory tearing down %s", id);
    }
    if (reserved)
        e->teardown = 1;
    mgr_write_unlock(&m->lock);
    if (!reserved)
        return sbx_error_set(err, SBX_ERR_REFUSED, "sandbox %s was re-acquired or is already "
                             "being torn down by this manager", id);

    int claimed = 0;
    sbx_status st = m->store->ops->claim(m->store, id, 1, &claimed, err);
    if (st != SBX_OK || !claimed) {
        if (st == SBX_OK)
            st = sbx_error_set(err, SBX_ERR_REFUSED, "sandbox %s not destroyed: another "
                               "instance holds its lease", id);
        else
            mgr_log(m, SBX_LOG_WARN, "sandbox %s not destroyed: the ownership store cannot "
                    "answer: %s", id, err->message);
        finish(m, id, forget_if_denied);
        return st;
    }
    st = destroy_with_heartbeat(m, id, err);
    if (st != SBX_OK)
        mgr_log(m, SBX_LOG_ERROR, "destroy of sandbox %s failed: %s", id, err->message);
    else
        mgr_log(m, SBX_LOG_INFO, "destroyed sandbox %s", id);
    finish(m, id, st == SBX_OK || forget_if_denied);
    return st;
}

/* ---------------------------------------------------------------- eviction */

typedef struct warm_item {
    char *id;
    int64_t released_at;
} warm_item;

typedef struct warm_list {
    warm_item *items;
    size_t count, cap;
} warm_list;

static void collect_warm(const char *key, void *value, void *ctx)
{
    const mgr_entry *e = value;
    warm_list *list = ctx;
    if (e->state != MGR_WARM || e->teardown)
        return;
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 8;
        warm_item *items = realloc(list->items, cap * sizeof *items);
        if (items == NULL)
            return;
        list->items = items;
        list->cap = cap;
    }
    if ((list->items[list->count].id = strdup(key)) != NULL)
        list->items[list->count++].released_at = e->released_at;
}

static int older_first(const void *a, const void *b)
{
    const warm_item *x = a, *y = b;
    return (x->released_at > y->released_at) - (x->released_at < y->released_at);
}

int mgr_evict_oldest_warm(sbx_manager *m)
{
    warm_list list = {0};
    mgr_read_lock(&m->lock);
    mgr_strmap_each(&m->entries, collect_warm, &list);
    mgr_read_unlock(&m->lock);
    if (list.count > 1)
        qsort(list.items, list.count, sizeof *list.items, older_first);
    int evicted = 0;
    for (size_t i = 0; i < list.count; i++) {
        sbx_error err;
        if (!evicted && mgr_teardown(m, list.items[i].id, mgr_reapable_warm, NULL, 0, &err) == SBX_OK) {
            evicted = 1;
            mgr_log(m, SBX_LOG_INFO, "evicted warm sandbox %s to stay within replicas=%u",
                    list.items[i].id, m->config.replicas);
            mgr_event(m, SBX_MANAGER_EVENT_EVICTED, list.items[i].id);
        }
        free(list.items[i].id);
    }
    free(list.items);
    return evicted;
}

/* ---------------------------------------------------------------- explicit destroy */

sbx_status sbx_manager_destroy(sbx_manager *m, const char *sandbox_id, sbx_error *err)
{
    sbx_error_clear(err);
    if (m == NULL || sandbox_id == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "manager: destroy needs a sandbox id");
    sbx_status st = mgr_require_tracked(m, sandbox_id, err);
    return st == SBX_OK ? mgr_teardown(m, sandbox_id, mgr_reapable_tracked, NULL, 0, err) : st;
}
