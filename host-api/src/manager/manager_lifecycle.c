/*
 * The sandbox manager's life: open, shutdown and free, and what it tells of
 * itself (owner id, counters); see <sbx/manager.h> and manager_internal.h.
 * Acquire, get and release live in manager_acquire.c, explicit destroy in
 * manager_teardown.c, the background passes in manager_reaper.c.
 */
#include <config.h>

#include "host-api/src/manager/manager_internal.h"
#include "host-api/src/manager/acquire_gate.h"
#include "host-api/src/manager/entries.h"
#include "host-api/src/manager/manager_config.h"
#include "host-api/src/manager/manager_events.h"
#include "host-api/src/manager/manager_reaper.h"
#include "host-api/src/manager/manager_teardown.h"
#include "host-api/src/manager/process_lock.h"
#include "host-api/src/manager/sandbox_id.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- open */

static sbx_status copy_string(const char *value, const char *fallback, char **out, sbx_error *err)
{
    *out = NULL;
    if (value == NULL && fallback == NULL)
        return SBX_OK;
    *out = strdup(value != NULL ? value : fallback);
    if (*out == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory opening the manager");
    return SBX_OK;
}

/* Defaulted paths, copies of the strings, the owner id. */
static sbx_status resolve_strings(sbx_manager *m, sbx_error *err)
{
    const sbx_manager_config *c = &m->config;
    sbx_status st;
    if ((st = copy_string(c->ready_path, "/v1/sandbox", &m->ready_path, err)) != SBX_OK ||
        (st = copy_string(c->redis_url, "redis://127.0.0.1:6379/0", &m->redis_url, err)) != SBX_OK ||
        (st = copy_string(c->key_prefix, "sbx:sandbox:owner", &m->key_prefix, err)) != SBX_OK ||
        (st = copy_string(c->lock_dir, NULL, &m->lock_dir, err)) != SBX_OK ||
        (st = copy_string(c->store_path, NULL, &m->store_path, err)) != SBX_OK ||
        (st = copy_string(c->owner_id, NULL, &m->owner_id, err)) != SBX_OK)
        return st;
    if (m->lock_dir == NULL && (m->lock_dir = mgr_state_path("locks", err)) == NULL)
        return err->kind;
    if (c->store == SBX_MANAGER_STORE_SQLITE && m->store_path == NULL) {
        char *dir = mgr_state_path("", err);
        if (dir == NULL)
            return err->kind;
        st = mgr_make_dirs(dir, "ownership.path", err);
        free(dir);
        if (st != SBX_OK || (m->store_path = mgr_state_path("leases.db", err)) == NULL)
            return st != SBX_OK ? st : err->kind;
    }
    if (m->owner_id == NULL && (m->owner_id = mgr_owner_id_new(err)) == NULL)
        return err->kind;
    m->config.ready_path = m->ready_path;
    m->config.redis_url = m->redis_url;
    m->config.key_prefix = m->key_prefix;
    m->config.lock_dir = m->lock_dir;
    m->config.store_path = m->store_path;
    m->config.owner_id = m->owner_id;
    return mgr_make_dirs(m->lock_dir, "lock_dir", err);
}

static sbx_status open_store(sbx_manager *m, sbx_error *err)
{
    switch (m->config.store) {
    case SBX_MANAGER_STORE_SQLITE:
        return mgr_lease_store_sqlite_open(m->store_path, m->owner_id, m->ttl_ms, &m->store, err);
    case SBX_MANAGER_STORE_REDIS:
        return mgr_lease_store_redis_open(m->redis_url, m->key_prefix, m->owner_id, m->ttl_ms,
                                          &m->store, err);
    default: {
        mgr_lease_clock clock = { m->config.clock, m->config.clock_ctx };
        return mgr_lease_store_memory_open(m->owner_id, m->ttl_ms, clock, NULL, &m->store, err);
    }
    }
}

static void manager_release_memory(sbx_manager *m)
{
    mgr_lease_store_close(m->store);
    mgr_identity_index_free(&m->identities);
    mgr_strmap_clear(&m->entries, mgr_entry_free);
    mgr_reader_lock_destroy(&m->lock);
    pthread_mutex_destroy(&m->wake_lock);
    pthread_cond_destroy(&m->wake_cond);
    pthread_mutex_destroy(&m->shutdown_lock);
    pthread_mutex_destroy(&m->teardown_lock);
    pthread_cond_destroy(&m->teardown_done);
    pthread_mutex_destroy(&m->ops_lock);
    pthread_cond_destroy(&m->ops_idle);
    free(m->ready_path);
    free(m->store_path);
    free(m->redis_url);
    free(m->key_prefix);
    free(m->lock_dir);
    free(m->owner_id);
    free(m);
}

sbx_status sbx_manager_open(sbx_backend *backend, const sbx_manager_config *config,
                            sbx_manager **out, sbx_error *err)
{
    sbx_error_clear(err);
    if (backend == NULL || out == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "manager: a backend and an output are needed");
    sbx_manager_config c;
    sbx_status st = mgr_read_config(config, &c, err);
    if (st != SBX_OK || (st = mgr_check_config(&c, err)) != SBX_OK)
        return st;
    sbx_manager *m = calloc(1, sizeof *m);
    if (m == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory opening the manager");
    m->backend = backend;
    m->config = c;
    if (m->config.clock == NULL) {
        m->config.clock = mgr_monotonic_ms;
        m->config.clock_ctx = NULL;
    }
    m->log_services.struct_size = sizeof m->log_services;
    m->log_services.log = c.log;
    m->log_services.log_ctx = c.log_ctx;
    m->ttl_ms = c.renewal_interval_ms * (int64_t)c.ttl_multiplier;
    mgr_reader_lock_init(&m->lock);
    pthread_condattr_t cattr;
    pthread_condattr_init(&cattr);
    pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
    pthread_cond_init(&m->wake_cond, &cattr);
    pthread_condattr_destroy(&cattr);
    pthread_mutex_init(&m->wake_lock, NULL);
    pthread_mutex_init(&m->shutdown_lock, NULL);
    pthread_mutex_init(&m->teardown_lock, NULL);
    pthread_cond_init(&m->teardown_done, NULL);
    pthread_mutex_init(&m->ops_lock, NULL);
    pthread_cond_init(&m->ops_idle, NULL);
    if ((st = resolve_strings(m, err)) != SBX_OK || (st = open_store(m, err)) != SBX_OK) {
        manager_release_memory(m);
        return st;
    }
    if (!m->store->cross_process)
        mgr_log(m, SBX_LOG_WARN, "ownership store '%s' cannot coordinate processes: run one "
                "manager per backend fleet, or use sqlite or redis", m->store->kind);
    mgr_reconcile(m);
    if ((st = mgr_threads_start(m, err)) != SBX_OK) {
        manager_release_memory(m);
        return st;
    }
    mgr_log(m, SBX_LOG_INFO, "manager %s started (store %s, lease ttl %lld ms)", m->owner_id,
            m->store->kind, (long long)m->ttl_ms);
    *out = m;
    return SBX_OK;
}

/* ---------------------------------------------------------------- shutdown */

typedef struct id_list {
    char **ids;
    size_t count, cap;
    int failed;
} id_list;

static void collect_tracked(const char *key, void *value, void *ctx)
{
    const mgr_entry *e = value;
    id_list *list = ctx;
    if (e->state == MGR_NONE || list->failed)
        return;
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 16;
        char **ids = realloc(list->ids, cap * sizeof *ids);
        if (ids == NULL) {
            list->failed = 1;
            return;
        }
        list->ids = ids;
        list->cap = cap;
    }
    if ((list->ids[list->count] = strdup(key)) == NULL)
        list->failed = 1;
    else
        list->count++;
}

/* Keep mode: release the lease and untrack, leaving the sandbox running. */
static sbx_status keep_for_successor(sbx_manager *m, const char *id, sbx_error *err)
{
    sbx_status st = m->config.shutdown == SBX_MANAGER_SHUTDOWN_KEEP_LEASES
                        ? SBX_OK : m->store->ops->release(m->store, id, err);
    mgr_write_lock(&m->lock);
    mgr_entry *e = mgr_find(m, id);
    if (e != NULL && !e->teardown) {
        mgr_entry_set_state(m, e, MGR_NONE, NULL);
        mgr_entry_collect(m, e);
    }
    mgr_write_unlock(&m->lock);
    return st;
}

/* What the store operations of a shutdown that get no answer may take
 * together: a store that stopped answering costs this once, not once per
 * sandbox. */
#define MGR_SHUTDOWN_STORE_BUDGET_MS 5000

sbx_status sbx_manager_shutdown(sbx_manager *m, sbx_error *err)
{
    sbx_error_clear(err);
    pthread_mutex_lock(&m->shutdown_lock);
    if (atomic_load(&m->shut_down)) {
        pthread_mutex_unlock(&m->shutdown_lock);
        return SBX_OK;
    }
    pthread_mutex_lock(&m->ops_lock);
    atomic_store(&m->shut_down, 1);
    mgr_lease_store_limit_waits(m->store, MGR_SHUTDOWN_STORE_BUDGET_MS);
    atomic_fetch_or(&m->acquire_gate, MGR_GATE_CLOSED);
    while (atomic_load(&m->acquire_gate) != MGR_GATE_CLOSED)
        pthread_cond_wait(&m->ops_idle, &m->ops_lock);
    pthread_mutex_unlock(&m->ops_lock);
    mgr_threads_stop(m);
    id_list list = {0};
    mgr_read_lock(&m->lock);
    mgr_strmap_each(&m->entries, collect_tracked, &list);
    mgr_read_unlock(&m->lock);
    sbx_status first = SBX_OK;
    if (list.failed)
        first = sbx_error_set(err, SBX_ERR_INTERNAL, "manager: out of memory listing sandboxes "
                              "at shutdown");
    for (size_t i = 0; i < list.count; i++) {
        sbx_error one;
        sbx_status st = m->config.shutdown != SBX_MANAGER_SHUTDOWN_DESTROY
                            ? keep_for_successor(m, list.ids[i], &one)
                            : mgr_teardown(m, list.ids[i], mgr_reapable_tracked, NULL, 0, &one);
        if (st == SBX_ERR_REFUSED) {
            /* A peer took its lease over (or it is torn down here already):
             * the sandbox is in other hands, which is no failure. */
            mgr_log(m, SBX_LOG_INFO, "shutdown: sandbox %s left alone: %s", list.ids[i],
                    one.message);
        } else if (st != SBX_OK) {
            mgr_log(m, SBX_LOG_ERROR, "shutdown: sandbox %s: %s", list.ids[i], one.message);
            if (first == SBX_OK) {
                first = st;
                if (err != NULL)
                    *err = one;
            }
        }
        free(list.ids[i]);
    }
    free(list.ids);
    mgr_log(m, SBX_LOG_INFO, "manager %s shut down (%s)", m->owner_id,
            m->config.shutdown == SBX_MANAGER_SHUTDOWN_DESTROY ? "sandboxes destroyed"
            : m->config.shutdown == SBX_MANAGER_SHUTDOWN_KEEP ? "sandboxes kept"
                                                               : "sandboxes and leases kept");
    pthread_mutex_unlock(&m->shutdown_lock);
    return first;
}

void sbx_manager_free(sbx_manager *m)
{
    if (m == NULL)
        return;
    sbx_error err;
    sbx_manager_shutdown(m, &err);
    mgr_threads_join(m);
    manager_release_memory(m);
}

/* ---------------------------------------------------------------- counters */

void sbx_manager_get_counters(sbx_manager *m, sbx_manager_counters *out)
{
    if (m == NULL || out == NULL || out->struct_size < sizeof(size_t))
        return;
    sbx_manager_counters c;
    c.struct_size = out->struct_size;
    mgr_read_lock(&m->lock);
    c.active = m->n_active;
    c.warm = m->n_warm;
    mgr_read_unlock(&m->lock);
    c.adopted = atomic_load(&m->adopted);
    c.reaped = atomic_load(&m->reaped);
    c.evicted = atomic_load(&m->evicted);
    c.lease_losses = atomic_load(&m->lease_losses);
    c.expired = atomic_load(&m->expired);
    memcpy(out, &c, out->struct_size < sizeof c ? out->struct_size : sizeof c);
}

const char *sbx_manager_owner_id(const sbx_manager *m)
{
    return m->owner_id;
}
