/*
 * The sandbox manager's state (struct sbx_manager), shared by its files;
 * each file's functions are declared in its own header.
 *
 * Locking: `lock` (a writer-preferring readers-writer lock whose readers
 * write only their own thread's slot, reader_lock.h) guards the entry table,
 * the identity index, every entry's state and the gauges; readers are get(),
 * snapshots and acquire's lookups.  No store or backend call is ever made
 * with it held.  An entry's `acquire_lock` serialises the acquires of one
 * sandbox id (so of one (user, thread)) that may create, discover or reclaim
 * it, and is held across I/O; it is taken before `lock`, never while holding
 * it.  `wake_lock` guards the background threads' stop flag and wake-ups.
 *
 * The acquire of a thread that is ACTIVE here (found in the identity index)
 * takes neither a write hold nor `acquire_lock`: it re-validates what it saw
 * under the read hold that hands the sandbox out, and any other case goes
 * the serialised way.  So an entry's `inflight`, `pins` and `epoch` are
 * atomics, changed without a write hold (publish, unpin: see why there).
 */
#ifndef SBX_MANAGER_INTERNAL_H
#define SBX_MANAGER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <sbx/manager.h>

#include "host-api/src/manager/identity_index.h"
#include "host-api/src/manager/lease_store.h"
#include "host-api/src/manager/reader_lock.h"
#include "host-api/src/manager/strmap.h"

/* A background thread and when it runs next. */
typedef struct mgr_thread {
    pthread_t thread;
    int started;
    int64_t interval_ms;
    int64_t first_pass_at;         /* manager clock */
    void (*pass)(sbx_manager *m);
    sbx_manager *manager;
} mgr_thread;

struct sbx_manager {
    sbx_backend *backend;          /* borrowed */
    sbx_manager_config config;     /* strings below are the manager's copies */
    char *ready_path, *store_path, *redis_url, *key_prefix, *lock_dir, *owner_id;
    sbx_host_services log_services; /* the configured callback, for sbx_backend_vlog */
    int64_t ttl_ms;
    mgr_lease_store *store;

    mgr_reader_lock lock;
    mgr_strmap entries;            /* sandbox id -> mgr_entry */
    mgr_identity_index identities; /* (user, thread) -> ACTIVE mgr_entry */
    uint64_t n_active, n_warm;
    _Atomic uint64_t epoch_counter;

    atomic_uint_fast64_t adopted, reaped, evicted, lease_losses, expired;

    pthread_mutex_t wake_lock;
    pthread_cond_t wake_cond;      /* CLOCK_MONOTONIC */
    int stopping;
    mgr_thread reaper, renewal;

    pthread_mutex_t teardown_lock;
    pthread_cond_t teardown_done;  /* broadcast when a teardown reservation ends */

    pthread_mutex_t shutdown_lock;
    atomic_int shut_down;

    /* Acquires in progress: shutdown waits for them, so that none registers
     * a sandbox after shutdown listed what to tear down (the gate:
     * acquire_gate.h). */
    pthread_mutex_t ops_lock;
    pthread_cond_t ops_idle;
    atomic_uint acquire_gate;      /* MGR_GATE_ACQUIRE per acquire | MGR_GATE_CLOSED */
};

#endif
