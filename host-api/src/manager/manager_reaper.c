/*
 * The background work of the manager: reconciliation (rule 11), the idle
 * reaper (rule 10, which spares a sandbox running a process) and lease
 * renewal (rule 12), the two threads that run
 * them, and the host's calls that run a pass now.  Each thread waits on a
 * condition variable until its next pass is due by the manager's clock, or
 * until it is woken or stopped.
 */
#include <config.h>

#include "host-api/src/manager/manager_reaper.h"

#include "host-api/src/manager/manager_internal.h"
#include "host-api/src/manager/entries.h"
#include "host-api/src/manager/manager_events.h"
#include "host-api/src/manager/manager_expiry.h"
#include "host-api/src/manager/manager_teardown.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- snapshots */

typedef struct snap_item {
    char *id;
    uint64_t epoch;
} snap_item;

typedef struct snapshot {
    snap_item *items;
    size_t count, cap;
    int64_t now, idle_ms;
    mgr_state state;               /* entries in this state... */
    int idle_only;                 /* ...idle for longer than idle_ms */
} snapshot;

static int idle_past(const sbx_manager *m, const mgr_entry *e, int64_t now)
{
    if (atomic_load(&e->operating) > 0)
        return 0; /* a command or file call running in it is use */
    int64_t since = e->state == MGR_ACTIVE ? atomic_load(&e->last_used) : e->released_at;
    return m->config.idle_timeout_ms > 0 && now - since > m->config.idle_timeout_ms;
}

static void snap_one(const char *key, void *value, void *ctx)
{
    const mgr_entry *e = value;
    snapshot *s = ctx;
    if (e->teardown || (s->state != MGR_NONE ? e->state != s->state : e->state == MGR_NONE))
        return;
    if (s->idle_only) {
        if (atomic_load(&e->operating) > 0)
            return;
        int64_t since = e->state == MGR_ACTIVE ? atomic_load(&e->last_used) : e->released_at;
        if (s->now - since <= s->idle_ms)
            return;
    }
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        snap_item *items = realloc(s->items, cap * sizeof *items);
        if (items == NULL)
            return; /* the next pass sees the rest */
        s->items = items;
        s->cap = cap;
    }
    if ((s->items[s->count].id = strdup(key)) != NULL)
        s->items[s->count++].epoch = e->epoch;
}

/* Entries in `state` (MGR_NONE: ACTIVE and WARM), idle ones only when
 * `idle_only`, none being torn down. */
static snapshot take_snapshot(sbx_manager *m, mgr_state state, int idle_only)
{
    snapshot s = {.state = state, .idle_only = idle_only, .now = mgr_now(m),
                  .idle_ms = m->config.idle_timeout_ms};
    mgr_read_lock(&m->lock);
    mgr_strmap_each(&m->entries, snap_one, &s);
    mgr_read_unlock(&m->lock);
    return s;
}

static void snapshot_free(snapshot *s)
{
    for (size_t i = 0; i < s->count; i++)
        free(s->items[i].id);
    free(s->items);
}

/* ---------------------------------------------------------------- reconcile */

/* Forget grace timers of sandboxes that no longer run. */
typedef struct grace_sweep {
    const sbx_sandbox *running;
    size_t count;
    char **stale;
    size_t stale_count;
} grace_sweep;

static void find_stale_grace(const char *key, void *value, void *ctx)
{
    const mgr_entry *e = value;
    grace_sweep *g = ctx;
    if (e->unowned_since < 0 || g->stale == NULL)
        return;
    for (size_t i = 0; i < g->count; i++)
        if (strcmp(g->running[i].sandbox_id, key) == 0)
            return;
    g->stale[g->stale_count++] = (char *)key;
}

static void sweep_grace(sbx_manager *m, const sbx_sandbox *running, size_t count)
{
    mgr_write_lock(&m->lock);
    grace_sweep g = {running, count, calloc(m->entries.count + 1, sizeof(char *)), 0};
    mgr_strmap_each(&m->entries, find_stale_grace, &g);
    for (size_t i = 0; i < g.stale_count; i++) {
        mgr_entry *e = mgr_find(m, g.stale[i]);
        e->unowned_since = -1;
        mgr_entry_collect(m, e);
    }
    free(g.stale);
    mgr_write_unlock(&m->lock);
}

/* Rule 11's grace: with peers visible, a sandbox must have looked unowned
 * for one full lease TTL, so that a store that lost its keys is not read as
 * a fleet of dead owners.  The grace is timed from after the read that saw
 * it unowned, never from before it (a pass delayed between its clock
 * reading and the store's answer would otherwise shorten the grace).
 * Returns 1 when it may be claimed now. */
static int past_grace(sbx_manager *m, const char *id)
{
    if (!m->store->cross_process)
        return 1;
    char *owner = NULL;
    sbx_error err;
    if (m->store->ops->owner(m->store, id, &owner, NULL, &err) != SBX_OK) {
        mgr_log(m, SBX_LOG_WARN, "reconciliation: lease of %s cannot be read (deferred): %s", id,
                err.message);
        return 0;
    }
    int64_t now = mgr_now(m);
    int ready = 0;
    mgr_write_lock(&m->lock);
    mgr_entry *e = mgr_find(m, id);
    if (owner != NULL) {
        if (e != NULL) {
            e->unowned_since = -1;
            mgr_entry_collect(m, e);
        }
    } else if (e != NULL || (e = mgr_find_or_add(m, id)) != NULL) {
        if (e->unowned_since < 0)
            e->unowned_since = now;
        ready = now - e->unowned_since >= m->ttl_ms;
    }
    mgr_write_unlock(&m->lock);
    free(owner);
    return ready;
}

/* Whether `e` (NULL: no entry) is an orphan for this process: untracked,
 * not torn down here, and not being acquired here (pinned): an acquire that
 * has discovered or created the sandbox registers it itself, and adopting
 * it under the acquire's feet would hand it to the idle reaper, which could
 * reserve it before the acquire registers it.  Under `lock`. */
static int orphan_here(const mgr_entry *e)
{
    return e == NULL || (e->state == MGR_NONE && !e->teardown && e->pins == 0);
}

static int untracked_here(sbx_manager *m, const char *id)
{
    mgr_read_lock(&m->lock);
    int untracked = orphan_here(mgr_find(m, id));
    mgr_read_unlock(&m->lock);
    return untracked;
}

static void adopt_one(sbx_manager *m, const sbx_sandbox *sb, int64_t now)
{
    const char *id = sb->sandbox_id;
    if (!untracked_here(m, id) || !past_grace(m, id))
        return;
    int claimed = 0;
    sbx_error err;
    if (m->store->ops->claim(m->store, id, 0, &claimed, &err) != SBX_OK) {
        mgr_log(m, SBX_LOG_WARN, "reconciliation: %s not adopted, store cannot answer: %s", id,
                err.message);
        return;
    }
    if (!claimed)
        return; /* a live peer is responsible for it */
    /* The list may be older than a teardown that finished since, here or in
     * a peer: adopt only what still exists (now that the claim keeps peers'
     * teardowns off it), never a phantom warm entry.  A claim of a sandbox
     * that is gone is left to expire: releasing it could drop the lease an
     * acquire of a new sandbox of that id has just taken. */
    sbx_sandbox *found = NULL;
    sbx_status st = sbx_backend_discover(m->backend, id, &found, &err);
    if (st != SBX_OK && st != SBX_ERR_UNSUPPORTED) {
        if (st != SBX_ERR_NOT_FOUND)
            mgr_log(m, SBX_LOG_WARN, "reconciliation: %s not adopted, discover failed: %s", id,
                    err.message);
        return;
    }
    sbx_managed *record = mgr_managed_copy(found != NULL ? found : sb);
    if (found != NULL)
        sbx_backend_free_sandboxes(m->backend, found, 1);
    int adopted = 0;
    mgr_write_lock(&m->lock);
    mgr_entry *e = record != NULL ? mgr_find_or_add(m, id) : NULL;
    if (e != NULL && orphan_here(e)) {
        mgr_entry_set_state(m, e, MGR_WARM, record);
        record = NULL;
        e->identity_known = 0;
        e->released_at = now;
        e->unowned_since = -1;
        adopted = 1;
    }
    mgr_write_unlock(&m->lock);
    mgr_managed_drop(record);
    if (adopted) {
        mgr_log(m, SBX_LOG_INFO, "adopted sandbox %s into the warm pool", id);
        mgr_event(m, SBX_MANAGER_EVENT_ADOPTED, id);
    }
}

void mgr_reconcile(sbx_manager *m)
{
    sbx_sandbox *running = NULL;
    size_t count = 0;
    sbx_error err;
    sbx_status st = sbx_backend_list_running(m->backend, &running, &count, &err);
    if (st == SBX_ERR_UNSUPPORTED)
        return;
    if (st != SBX_OK) {
        /* Never "nothing runs": the round is skipped. */
        mgr_log(m, SBX_LOG_WARN, "reconciliation skipped: list_running failed: %s", err.message);
        return;
    }
    sweep_grace(m, running, count);
    int64_t now = mgr_now(m);
    for (size_t i = 0; i < count; i++)
        if (running[i].sandbox_id != NULL)
            adopt_one(m, &running[i], now);
    sbx_backend_free_sandboxes(m->backend, running, count);
}

/* ---------------------------------------------------------------- reaper */

static int reapable_idle(sbx_manager *m, const mgr_entry *e, void *ctx)
{
    const mgr_state *state = ctx;
    return e != NULL && e->state == *state && idle_past(m, e, mgr_now(m));
}

/* Whether sandbox `id` has a running process (ABI 1.4).  A backend without
 * processes has none; one that cannot tell is answered "yes": a dev server
 * is worth more than one idle period. */
static int runs_a_process(sbx_manager *m, const char *id)
{
    sbx_process_info *list = NULL;
    size_t count = 0;
    sbx_error err;
    sbx_status st = sbx_backend_process_list(m->backend, id, &list, &count, &err);
    if (st == SBX_ERR_UNSUPPORTED || st == SBX_ERR_NOT_FOUND)
        return 0;
    if (st != SBX_OK) {
        mgr_log(m, SBX_LOG_WARN, "idle sandbox %s kept: its processes cannot be listed: %s", id,
                err.message);
        return 1;
    }
    int running = 0;
    for (const sbx_process_info *p = list; p != NULL; p = p->next)
        running |= p->state == SBX_PROCESS_RUNNING;
    sbx_backend_free_processes(m->backend, list);
    return running;
}

/* A process seen running is use now: the idle period starts again. */
static void mark_used(sbx_manager *m, const char *id, mgr_state state)
{
    int64_t now = mgr_now(m);
    mgr_write_lock(&m->lock);
    mgr_entry *e = mgr_find(m, id);
    if (e != NULL && e->state == state) {
        if (state == MGR_ACTIVE)
            atomic_store(&e->last_used, now);
        else
            e->released_at = now;
    }
    mgr_write_unlock(&m->lock);
}

static void reap_idle(sbx_manager *m, mgr_state state)
{
    snapshot s = take_snapshot(m, state, 1);
    for (size_t i = 0; i < s.count; i++) {
        sbx_error err;
        if (!m->config.reap_running_processes && runs_a_process(m, s.items[i].id)) {
            mark_used(m, s.items[i].id, state);
            continue;
        }
        /* Re-checked under the reservation: a get or an acquire since the
         * snapshot keeps it. */
        if (mgr_teardown(m, s.items[i].id, reapable_idle, &state, 0, &err) == SBX_OK) {
            mgr_log(m, SBX_LOG_INFO, "reaped idle %s sandbox %s",
                    state == MGR_ACTIVE ? "active" : "warm", s.items[i].id);
            mgr_event(m, SBX_MANAGER_EVENT_REAPED, s.items[i].id);
        }
    }
    snapshot_free(&s);
}

void mgr_reaper_pass(sbx_manager *m)
{
    mgr_reap_expired(m);
    mgr_reconcile(m);
    if (m->config.idle_timeout_ms <= 0)
        return;
    reap_idle(m, MGR_ACTIVE);
    reap_idle(m, MGR_WARM);
}

/* ---------------------------------------------------------------- renewal */

static void renew_one(sbx_manager *m, const char *id, uint64_t epoch)
{
    sbx_error err;
    mgr_lease_renewal outcome;
    if (m->store->ops->renew(m->store, id, &outcome, &err) != SBX_OK) {
        mgr_log(m, SBX_LOG_WARN, "lease of %s not renewed, will retry: %s", id, err.message);
        return;
    }
    if (outcome == SBX_LEASE_RENEWED)
        return;
    if (outcome == SBX_LEASE_LAPSED) {
        int claimed = 0;
        if (m->store->ops->claim(m->store, id, 0, &claimed, &err) != SBX_OK) {
            mgr_log(m, SBX_LOG_WARN, "lapsed lease of %s not re-established, will retry: %s", id,
                    err.message);
            return;
        }
        if (claimed) {
            mgr_log(m, SBX_LOG_INFO, "re-established the lapsed lease of %s", id);
            return;
        }
    }
    mgr_forget(m, id, (int64_t)epoch);
}

void mgr_renewal_pass(sbx_manager *m)
{
    snapshot s = take_snapshot(m, MGR_NONE, 0);
    for (size_t i = 0; i < s.count; i++)
        renew_one(m, s.items[i].id, s.items[i].epoch);
    snapshot_free(&s);
}

/* ---------------------------------------------------------------- threads */

/* The monotonic time `ms` from now, for pthread_cond_timedwait. */
static struct timespec deadline_in(int64_t ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000;
    if (t.tv_nsec >= 1000000000) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000;
    }
    return t;
}

static void *thread_main(void *arg)
{
    mgr_thread *t = arg;
    sbx_manager *m = t->manager;
    pthread_mutex_lock(&m->wake_lock);
    int64_t next = t->first_pass_at;
    while (!m->stopping) {
        int64_t now = mgr_now(m);
        if (now >= next) {
            pthread_mutex_unlock(&m->wake_lock);
            t->pass(m);
            pthread_mutex_lock(&m->wake_lock);
            next = mgr_now(m) + t->interval_ms;
            continue;
        }
        struct timespec until = deadline_in(next - now);
        pthread_cond_timedwait(&m->wake_cond, &m->wake_lock, &until);
    }
    pthread_mutex_unlock(&m->wake_lock);
    return NULL;
}

static int start_one(sbx_manager *m, mgr_thread *t, int64_t interval, void (*pass)(sbx_manager *))
{
    t->manager = m;
    t->interval_ms = interval;
    t->pass = pass;
    /* Due one interval after open, not after the thread happened to start. */
    t->first_pass_at = mgr_now(m) + interval;
    t->started = pthread_create(&t->thread, NULL, thread_main, t) == 0;
    return t->started;
}

sbx_status mgr_threads_start(sbx_manager *m, sbx_error *err)
{
    if (start_one(m, &m->reaper, m->config.check_interval_ms, mgr_reaper_pass) &&
        start_one(m, &m->renewal, m->config.renewal_interval_ms, mgr_renewal_pass))
        return SBX_OK;
    mgr_threads_stop(m);
    mgr_threads_join(m);
    return sbx_error_set(err, SBX_ERR_INTERNAL, "manager: cannot start its threads");
}

void sbx_manager_wake(sbx_manager *m)
{
    pthread_mutex_lock(&m->wake_lock);
    pthread_cond_broadcast(&m->wake_cond);
    pthread_mutex_unlock(&m->wake_lock);
}

/* How long shutdown waits for a thread in the middle of a pass: a backend
 * call can take longer, and then the thread is joined by free. */
#define MGR_JOIN_TIMEOUT_MS 15000

void mgr_threads_stop(sbx_manager *m)
{
    pthread_mutex_lock(&m->wake_lock);
    m->stopping = 1;
    pthread_cond_broadcast(&m->wake_cond);
    pthread_mutex_unlock(&m->wake_lock);
    mgr_thread *threads[] = {&m->reaper, &m->renewal};
    for (size_t i = 0; i < 2; i++) {
        if (!threads[i]->started)
            continue;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += MGR_JOIN_TIMEOUT_MS / 1000;
        int rc = pthread_timedjoin_np(threads[i]->thread, NULL, &until);
        if (rc == 0)
            threads[i]->started = 0;
        else
            mgr_log(m, SBX_LOG_WARN, "the %s thread is still in a pass after %d ms; shutdown goes "
                    "on (%s)", i == 0 ? "reaper" : "renewal", MGR_JOIN_TIMEOUT_MS, strerror(rc));
    }
}

void mgr_threads_join(sbx_manager *m)
{
    mgr_thread *threads[] = {&m->reaper, &m->renewal};
    for (size_t i = 0; i < 2; i++)
        if (threads[i]->started) {
            pthread_join(threads[i]->thread, NULL);
            threads[i]->started = 0;
        }
}

/* ---------------------------------------------------------------- on demand */

/* Run `pass` now, in the caller's thread; SBX_ERR_USAGE once shut down. */
static sbx_status pass_now(sbx_manager *m, void (*pass)(sbx_manager *m), sbx_error *err)
{
    sbx_error_clear(err);
    if (atomic_load(&m->shut_down))
        return sbx_error_set(err, SBX_ERR_USAGE, "manager: shut down");
    pass(m);
    return SBX_OK;
}

sbx_status sbx_manager_reap_now(sbx_manager *m, sbx_error *err)
{
    return pass_now(m, mgr_reaper_pass, err);
}

sbx_status sbx_manager_renew_now(sbx_manager *m, sbx_error *err)
{
    return pass_now(m, mgr_renewal_pass, err);
}
