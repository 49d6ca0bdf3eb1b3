/*
 * acquire (rules 2-5, 7): the active entry, a warm entry, a sandbox the
 * backend already runs, or a new one; every path publishes the lease before
 * it hands anything out.  And what hands out and takes back an active
 * sandbox beside it: get and release.
 */
#include <config.h>

#include "host-api/src/manager/manager_internal.h"
#include "host-api/src/manager/acquire_gate.h"
#include "host-api/src/manager/entries.h"
#include "host-api/src/manager/manager_events.h"
#include "host-api/src/manager/manager_expiry.h"
#include "host-api/src/manager/manager_teardown.h"
#include "host-api/src/manager/process_lock.h"
#include "host-api/src/manager/readiness.h"
#include "host-api/src/manager/sandbox_id.h"

#include <stdlib.h>
#include <string.h>

#include "common/sandbox_ids.h"

/* What one step of the acquire decided. */
typedef enum step {
    STEP_DONE = 0,      /* *out is set */
    STEP_NEXT = 1,      /* try the next source */
    STEP_FAILED = 2     /* err is filled */
} step;

/* One acquire: who asks, for which id. */
typedef struct acquire_ctx {
    sbx_manager *m;
    mgr_entry *e;                  /* pinned for the whole acquire */
    const sbx_create_request *request;
    const char *user;              /* never NULL */
    const char *thread;            /* NULL: anonymous */
    sbx_managed **out;
    sbx_error *err;
} acquire_ctx;

static int same_text(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Rule 2: SBX_ERR_REFUSED naming both identities when `e` serves another.
 * Under the lock. */
static sbx_status check_identity(const acquire_ctx *a, sbx_error *err)
{
    const mgr_entry *e = a->e;
    if (e->state == MGR_NONE || !e->identity_known ||
        (strcmp(e->user, a->user) == 0 && same_text(e->thread, a->thread)))
        return SBX_OK;
    return sbx_error_set(err, SBX_ERR_REFUSED,
                         "sandbox %s serves user '%s' thread '%s'; refused to user '%s' thread '%s'",
                         e->id, e->user, e->thread != NULL ? e->thread : "(anonymous)", a->user,
                         a->thread != NULL ? a->thread : "(anonymous)");
}

/* Take the lease of `e`'s id (rule 5) with the in-flight mark set around the
 * round trip.  SBX_OK taken; SBX_ERR_REFUSED being torn down; else the
 * store's error. */
static sbx_status publish(sbx_manager *m, mgr_entry *e, sbx_error *err)
{
    /* The in-flight mark is up before the take can land, and the new epoch
     * before the mark comes down, so a renewal holding an older LOST cannot
     * drop what this acquire is handing out: mgr_forget reads the mark, then
     * the epoch.  Sequentially consistent atomics order this without a lock;
     * the caller's pin keeps `e`. */
    atomic_fetch_add(&e->inflight, 1);
    int taken = 0;
    sbx_status st = m->store->ops->take(m->store, e->id, &taken, err);
    if (st == SBX_OK && taken)
        atomic_store(&e->epoch, atomic_fetch_add(&m->epoch_counter, 1) + 1);
    atomic_fetch_sub(&e->inflight, 1);
    if (st != SBX_OK) {
        /* sbx_error_set clears the record before it formats: copy the cause. */
        char cause[sizeof err->message];
        memcpy(cause, err->message, sizeof cause);
        return sbx_error_set(err, st, "sandbox %s not handed out: its lease cannot be published "
                             "(%s store: %s)", e->id, m->store->kind, cause);
    }
    if (!taken)
        return sbx_error_set(err, SBX_ERR_REFUSED, "sandbox %s is being destroyed by another "
                             "instance", e->id);
    return SBX_OK;
}

/* is_alive: 1, 0, or -1 when the backend cannot tell (kept, rule 4). */
static int check_alive(sbx_manager *m, const char *id)
{
    int alive = 0;
    sbx_error err;
    if (sbx_backend_is_alive(m->backend, id, &alive, &err) != SBX_OK) {
        mgr_log(m, SBX_LOG_WARN, "cannot tell whether sandbox %s is alive (kept): %s", id,
                err.message);
        return -1;
    }
    return alive != 0;
}

/* A definite "not alive": destroy it under a teardown lease, or forget it
 * when a peer holds it. */
static void drop_unhealthy(sbx_manager *m, const char *id, sbx_managed *seen)
{
    sbx_error err;
    mgr_log(m, SBX_LOG_WARN, "sandbox %s is not alive: dropped", id);
    mgr_teardown(m, id, mgr_reapable_same_record, seen, 1, &err);
}

/* The round trips of reusing a tracked sandbox `seen` (pinned `e`, whose
 * epoch was `epoch` then): is_alive (a definite no drops it), then the take
 * (refused: forgotten, unless another acquire has taken it since: a fresh
 * registration must not be dropped for this acquire's stale view).
 * STEP_DONE when the lease is published; the caller re-validates the entry. */
static step check_and_publish(sbx_manager *m, mgr_entry *e, sbx_managed *seen, uint64_t epoch,
                              sbx_error *err)
{
    if (check_alive(m, e->id) == 0) {
        drop_unhealthy(m, e->id, seen);
        return STEP_NEXT;
    }
    sbx_status st = publish(m, e, err);
    if (st == SBX_ERR_REFUSED) {
        mgr_log(m, SBX_LOG_INFO, "%s", err->message);
        mgr_forget(m, e->id, (int64_t)epoch);
        return STEP_NEXT;
    }
    return st == SBX_OK ? STEP_DONE : STEP_FAILED;
}

/* The active or warm entry of this acquire, re-validated after the backend
 * and store round trips; `from` is the state it was found in. */
static step reuse_tracked(acquire_ctx *a, mgr_state from)
{
    sbx_manager *m = a->m;
    mgr_entry *e = a->e;
    mgr_read_lock(&m->lock);
    if (e->state != from || e->teardown) {
        mgr_read_unlock(&m->lock);
        return STEP_NEXT;
    }
    sbx_status st = check_identity(a, a->err);
    sbx_managed *seen = st == SBX_OK ? sbx_managed_ref(e->record) : NULL;
    uint64_t epoch = e->epoch;
    mgr_read_unlock(&m->lock);
    if (st != SBX_OK)
        return STEP_FAILED;

    step result = check_and_publish(m, e, seen, epoch, a->err);
    if (result != STEP_DONE)
        goto out;
    result = STEP_NEXT;
    mgr_write_lock(&m->lock);
    /* A local reaper may have reserved it during the round trips. */
    if (e->state == from && !e->teardown && e->record == seen &&
        (st = check_identity(a, a->err)) == SBX_OK) {
        if (from == MGR_WARM && mgr_entry_set_identity(e, a->user, a->thread) != 0)
            st = sbx_error_set(a->err, SBX_ERR_INTERNAL, "out of memory acquiring %s", e->id);
        if (st == SBX_OK) {
            mgr_entry_set_state(m, e, MGR_ACTIVE, e->record);
            atomic_store(&e->last_used, mgr_now(m));
            *a->out = sbx_managed_ref(e->record);
            result = STEP_DONE;
        }
    }
    mgr_write_unlock(&m->lock);
    if (st != SBX_OK)
        result = STEP_FAILED;
out:
    sbx_managed_unref(seen);
    return result;
}

/* Track `sandbox` (a discovered or created one) as ACTIVE for this acquire,
 * publishing its lease first. */
static sbx_status register_sandbox(acquire_ctx *a, const sbx_sandbox *sandbox)
{
    sbx_manager *m = a->m;
    mgr_entry *e = a->e;
    sbx_managed *record = mgr_managed_copy(sandbox);
    if (record == NULL)
        return sbx_error_set(a->err, SBX_ERR_INTERNAL, "out of memory tracking %s", e->id);
    mgr_read_lock(&m->lock);
    sbx_status st = e->teardown
                        ? sbx_error_set(a->err, SBX_ERR_REFUSED, "sandbox %s is being torn down "
                                        "by this manager", e->id)
                        : check_identity(a, a->err);
    mgr_read_unlock(&m->lock);
    if (st == SBX_OK)
        st = publish(m, e, a->err);
    if (st == SBX_OK) {
        mgr_write_lock(&m->lock);
        if (e->teardown)
            st = sbx_error_set(a->err, SBX_ERR_REFUSED, "sandbox %s is being torn down by this "
                               "manager", e->id);
        else if ((st = check_identity(a, a->err)) == SBX_OK &&
                 mgr_entry_set_identity(e, a->user, a->thread) != 0)
            st = sbx_error_set(a->err, SBX_ERR_INTERNAL, "out of memory acquiring %s", e->id);
        if (st == SBX_OK) {
            /* Active and warm are exclusive: a stale warm twin would give the
             * sandbox a second reaper. */
            *a->out = sbx_managed_ref(record);
            mgr_entry_set_state(m, e, MGR_ACTIVE, record);
            record = NULL;
            atomic_store(&e->last_used, mgr_now(m));
        }
        mgr_write_unlock(&m->lock);
    }
    mgr_managed_drop(record);
    return st;
}

/* Rule 7, then the backend's create, then registration; a sandbox this
 * acquire created but could not register is destroyed, never leaked. */
static sbx_status create_new(acquire_ctx *a)
{
    sbx_manager *m = a->m;
    mgr_read_lock(&m->lock);
    uint64_t total = m->n_active + m->n_warm;
    mgr_read_unlock(&m->lock);
    if (total >= m->config.replicas && !mgr_evict_oldest_warm(m))
        mgr_log(m, SBX_LOG_WARN, "all %u replica slots are in use: creating sandbox %s beyond "
                "the soft cap", m->config.replicas, a->e->id);

    sbx_create_request request = SBX_CREATE_REQUEST_INIT;
    size_t n = a->request->struct_size < sizeof request ? a->request->struct_size : sizeof request;
    memcpy(&request, a->request, n);
    request.struct_size = sizeof request;
    request.sandbox_id = a->e->id;
    sbx_sandbox *created = NULL;
    sbx_status st = mgr_expiry_of_new(m, &request, a->err);
    if (st == SBX_OK)
        st = sbx_backend_create(m->backend, &request, &created, a->err);
    if (st != SBX_OK)
        return st;
    mgr_expiry_note(m, a->e->id, request.expires_at);
    mgr_log(m, SBX_LOG_INFO, "created sandbox %s for user '%s' thread '%s'", a->e->id, a->user,
            a->thread != NULL ? a->thread : "(anonymous)");
    /* Rule 6: not handed out (nor published) before it serves; one that
     * never does is destroyed under a teardown lease. */
    if ((st = mgr_wait_ready(m, created, a->err)) != SBX_OK) {
        sbx_backend_free_sandboxes(m->backend, created, 1);
        sbx_error destroy_err;
        mgr_log(m, SBX_LOG_ERROR, "%s: destroying it", a->err->message);
        if (mgr_teardown(m, a->e->id, mgr_reapable_untracked, NULL, 0, &destroy_err) != SBX_OK)
            mgr_log(m, SBX_LOG_ERROR, "destroy of unready sandbox %s failed: %s", a->e->id,
                    destroy_err.message);
        return st;
    }
    st = register_sandbox(a, created);
    sbx_backend_free_sandboxes(m->backend, created, 1);
    if (st != SBX_OK) {
        sbx_error destroy_err;
        mgr_log(m, SBX_LOG_ERROR, "new sandbox %s could not be registered (%s): destroying it",
                a->e->id, a->err->message);
        if (sbx_backend_destroy(m->backend, a->e->id, &destroy_err) != SBX_OK)
            mgr_log(m, SBX_LOG_ERROR, "destroy of unregistered sandbox %s failed: %s", a->e->id,
                    destroy_err.message);
    }
    return st;
}

/* Discover-or-create under the cross-process lock of the id (rule 3). */
static sbx_status discover_or_create(acquire_ctx *a)
{
    sbx_manager *m = a->m;
    /* A teardown of this id by this process (idle reaper, eviction) is let
     * finish, so that discovery does not find a sandbox about to go. */
    mgr_wait_teardown(m, a->e);
    int fd = mgr_process_lock(m->lock_dir, a->e->id, a->err);
    if (fd < 0)
        return a->err->kind;
    sbx_status st;
    /* Reconciliation may have adopted it while this acquire waited. */
    step s = reuse_tracked(a, MGR_WARM);
    if (s != STEP_NEXT) {
        mgr_process_unlock(fd);
        return s == STEP_DONE ? SBX_OK : a->err->kind;
    }
    sbx_sandbox *found = NULL;
    st = sbx_backend_discover(m->backend, a->e->id, &found, a->err);
    if (st == SBX_OK) {
        int alive = check_alive(m, a->e->id);
        if (alive == 0) {
            sbx_backend_free_sandboxes(m->backend, found, 1);
            found = NULL;
            sbx_error drop_err;
            mgr_log(m, SBX_LOG_WARN, "found sandbox %s stopped: destroying it", a->e->id);
            st = mgr_teardown(m, a->e->id, mgr_reapable_untracked, NULL, 0, &drop_err);
            if (st != SBX_OK)
                *a->err = drop_err;
        } else {
            st = register_sandbox(a, found);
            if (st == SBX_OK)
                mgr_log(m, SBX_LOG_INFO, "discovered running sandbox %s", a->e->id);
            sbx_backend_free_sandboxes(m->backend, found, 1);
            mgr_process_unlock(fd);
            return st;
        }
    } else if (st == SBX_ERR_NOT_FOUND || st == SBX_ERR_UNSUPPORTED) {
        st = SBX_OK;
    }
    if (st == SBX_OK)
        st = create_new(a);
    mgr_process_unlock(fd);
    return st;
}

static sbx_status acquire_pinned(acquire_ctx *a)
{
    if (a->thread == NULL)
        return create_new(a);
    /* Rule 4: active, warm, discover, create. */
    for (mgr_state from = MGR_ACTIVE; from <= MGR_WARM; from++) {
        step s = reuse_tracked(a, from);
        if (s == STEP_DONE)
            return SBX_OK;
        if (s == STEP_FAILED)
            return a->err->kind;
    }
    return discover_or_create(a);
}

/* The entry of `id`, pinned so it outlives the acquire; NULL when out of
 * memory. */
static mgr_entry *pin(sbx_manager *m, const char *id)
{
    mgr_write_lock(&m->lock);
    mgr_entry *e = mgr_find_or_add(m, id);
    if (e != NULL)
        atomic_fetch_add(&e->pins, 1);
    mgr_write_unlock(&m->lock);
    return e;
}

/* Rule 4's first source for a thread this manager serves right now: its
 * ACTIVE entry, found by identity (no id derivation, no validation: the
 * index matches only strings validated when the entry was made) and reused
 * without the id's acquire_lock.  Concurrent acquires of one active thread
 * may both reuse it: each checks is_alive and takes the lease, which is what
 * serialised ones would do.  STEP_NEXT: not active here, or it changed
 * during the round trips; the full path decides. */
static step reuse_active(sbx_manager *m, const char *user, const char *thread,
                         sbx_managed **out, sbx_error *err)
{
    mgr_read_lock(&m->lock);
    mgr_entry *e = mgr_identity_find(&m->identities, user, thread);
    sbx_managed *seen = NULL;
    uint64_t epoch = 0;
    if (e != NULL && e->state == MGR_ACTIVE && !e->teardown) {
        atomic_fetch_add(&e->pins, 1);
        seen = sbx_managed_ref(e->record);
        epoch = e->epoch;
    }
    mgr_read_unlock(&m->lock);
    if (seen == NULL)
        return STEP_NEXT;
    step result = check_and_publish(m, e, seen, epoch, err);
    int unpinned = 0;
    if (result == STEP_DONE) {
        /* Still this identity's, untouched by a reaper, release or
         * teardown during the round trips: hand it out under this hold. */
        mgr_read_lock(&m->lock);
        if (e->state == MGR_ACTIVE && !e->teardown && e->record == seen && e->indexed &&
            strcmp(e->user, user) == 0 && strcmp(e->thread, thread) == 0) {
            atomic_store(&e->last_used, mgr_now(m));
            *out = seen;
            seen = NULL;
        } else {
            result = STEP_NEXT;
        }
        unpinned = mgr_entry_unpin_tracked(e);
        mgr_read_unlock(&m->lock);
    }
    if (!unpinned)
        mgr_entry_unpin(m, e);
    sbx_managed_unref(seen);
    return result;
}

/* Derive the id, pin its entry and run rule 4 under its acquire_lock. */
static sbx_status acquire_serialised(sbx_manager *m, const sbx_create_request *request,
                                     const char *user, sbx_managed **out, sbx_error *err)
{
    sbx_status st;
    if ((st = common_check_principal_id("thread_id", request->thread_id, err)) != SBX_OK ||
        (st = common_check_principal_id("user_id", request->user_id, err)) != SBX_OK)
        return st;
    char id[SBX_DERIVED_ID_SIZE];
    st = request->thread_id != NULL
             ? sbx_sandbox_id_derive(request->user_id, request->thread_id, id, err)
             : mgr_random_hex(id, (SBX_DERIVED_ID_SIZE - 1) / 2, err);
    if (st != SBX_OK)
        return st;
    mgr_entry *e = pin(m, id);
    if (e == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory acquiring %s", id);
    acquire_ctx a = {
        .m = m, .e = e, .request = request, .user = user,
        .thread = request->thread_id, .out = out, .err = err,
    };
    pthread_mutex_lock(&e->acquire_lock);
    st = acquire_pinned(&a);
    pthread_mutex_unlock(&e->acquire_lock);
    mgr_entry_unpin(m, e);
    return st;
}

sbx_status sbx_manager_acquire(sbx_manager *m, const sbx_create_request *request,
                               sbx_managed **out, sbx_error *err)
{
    sbx_error_clear(err);
    if (m == NULL || request == NULL || out == NULL ||
        request->struct_size < offsetof(sbx_create_request, extra_mounts))
        return sbx_error_set(err, SBX_ERR_USAGE, "manager: acquire needs a create request");
    *out = NULL;
    if (request->sandbox_id != NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "manager: acquire derives the sandbox id; "
                             "leave request->sandbox_id NULL");
    if (mgr_acquire_enter(m) != 0)
        return sbx_error_set(err, SBX_ERR_USAGE, "manager: shut down");
    const char *user = request->user_id != NULL ? request->user_id : COMMON_DEFAULT_USER_ID;
    step fast = request->thread_id != NULL
                    ? reuse_active(m, user, request->thread_id, out, err) : STEP_NEXT;
    sbx_status st = fast == STEP_DONE     ? SBX_OK
                    : fast == STEP_FAILED ? err->kind
                                          : acquire_serialised(m, request, user, out, err);
    mgr_acquire_leave(m);
    if (st == SBX_OK)
        sbx_error_clear(err);
    return st;
}

/* ---------------------------------------------------------------- get, release */

sbx_managed *sbx_manager_get(sbx_manager *m, const char *sandbox_id)
{
    if (m == NULL || sandbox_id == NULL)
        return NULL;
    sbx_managed *r = NULL;
    mgr_read_lock(&m->lock);
    mgr_entry *e = mgr_find(m, sandbox_id);
    if (e != NULL && e->state == MGR_ACTIVE && !e->teardown) {
        r = sbx_managed_ref(e->record);
        /* Written only when the millisecond changed: threads calling get on
         * one sandbox then share its cache line for reading. */
        int64_t now = mgr_now(m);
        if (atomic_load_explicit(&e->last_used, memory_order_relaxed) != now)
            atomic_store_explicit(&e->last_used, now, memory_order_relaxed);
    }
    mgr_read_unlock(&m->lock);
    return r;
}

sbx_status sbx_manager_release(sbx_manager *m, const char *sandbox_id, sbx_error *err)
{
    sbx_error_clear(err);
    if (m == NULL || sandbox_id == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "manager: release needs a sandbox id");
    int64_t epoch = -1;
    mgr_write_lock(&m->lock);
    mgr_entry *e = mgr_find(m, sandbox_id);
    if (e != NULL && e->state == MGR_ACTIVE && !e->teardown) {
        mgr_entry_set_state(m, e, MGR_WARM, e->record);
        e->released_at = mgr_now(m);
        epoch = (int64_t)e->epoch;
    }
    mgr_write_unlock(&m->lock);
    if (epoch < 0)
        return sbx_error_set(err, SBX_ERR_NOT_FOUND, "manager: sandbox %s is not active here",
                             sandbox_id);
    /* Keep the lease while warm; re-establish it when it lapsed during a long
     * turn.  Never fails the release: the renewal thread is the guarantee. */
    sbx_error store_err;
    mgr_lease_renewal outcome;
    if (m->store->ops->renew(m->store, sandbox_id, &outcome, &store_err) != SBX_OK) {
        mgr_log(m, SBX_LOG_WARN, "release of %s: lease not refreshed: %s", sandbox_id,
                store_err.message);
        return SBX_OK;
    }
    int claimed = 1;
    if (outcome == SBX_LEASE_LAPSED &&
        m->store->ops->claim(m->store, sandbox_id, 0, &claimed, &store_err) != SBX_OK)
        return SBX_OK;
    if (outcome == SBX_LEASE_LOST || !claimed)
        mgr_forget(m, sandbox_id, epoch);
    return SBX_OK;
}
