/*
 * Internal declarations of the sandbox manager, shared by its files.
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

#include "host-api/src/manager/lease_store.h"
#include "host-api/src/manager/reader_lock.h"
#include "host-api/src/manager/split_count.h"
#include "host-api/src/manager/strmap.h"

/* A snapshot handed out by get and acquire.  The entry that tracks it holds
 * the anchor of `refs` (split_count.h), so that get's references touch only
 * the calling thread's slot; callers' references are the other counts. */
struct sbx_managed {
    mgr_split_count refs;
    sbx_sandbox sandbox;           /* strings owned by this snapshot */
};

typedef enum mgr_state {
    MGR_NONE = 0,                  /* not tracked: kept only for the marks below */
    MGR_ACTIVE = 1,
    MGR_WARM = 2
} mgr_state;

/* What the manager knows of one sandbox id. */
typedef struct mgr_entry {
    char *id;
    mgr_state state;
    sbx_managed *record;           /* ACTIVE and WARM: the sandbox; else NULL */
    int identity_known;            /* 0: adopted, identity unknown until acquired */
    char *user;                    /* identity_known: the user (never NULL) */
    char *thread;                  /*   and the thread (NULL: anonymous) */
    _Atomic int64_t last_used;     /* ACTIVE: last acquire or get (manager clock) */
    int64_t released_at;           /* WARM: release or adoption time */
    int teardown;                  /* reserved for teardown by this process */
    atomic_int inflight;           /* acquires publishing a take right now */
    _Atomic uint64_t epoch;        /* bumped by every successful take */
    int64_t unowned_since;         /* reconciliation's grace timer; -1: none */
    atomic_int pins;               /* acquirers using it: not freed, not adopted */
    atomic_int operating;          /* sandbox operations running in it: not idle */
    pthread_mutex_t acquire_lock;
    /* The identity index (under the write lock; read under a read hold). */
    struct mgr_entry *identity_next;
    size_t identity_hash;
    int indexed;
} mgr_entry;

/* ACTIVE entries of named threads by (user, thread): identity_index.c. */
typedef struct mgr_identity_index {
    mgr_entry **buckets;
    size_t bucket_count;           /* 0 or a power of two */
    size_t count;
} mgr_identity_index;

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

    atomic_uint_fast64_t adopted, reaped, evicted, lease_losses;

    pthread_mutex_t wake_lock;
    pthread_cond_t wake_cond;      /* CLOCK_MONOTONIC */
    int stopping;
    mgr_thread reaper, renewal;

    pthread_mutex_t teardown_lock;
    pthread_cond_t teardown_done;  /* broadcast when a teardown reservation ends */

    pthread_mutex_t shutdown_lock;
    atomic_int shut_down;

    /* Acquires in progress: shutdown waits for them, so that none registers
     * a sandbox after shutdown listed what to tear down (the gate: see
     * mgr_acquire_enter). */
    pthread_mutex_t ops_lock;
    pthread_cond_t ops_idle;
    atomic_uint acquire_gate;      /* MGR_GATE_ACQUIRE per acquire | MGR_GATE_CLOSED */
};

#define MGR_GATE_CLOSED 1u
#define MGR_GATE_ACQUIRE 2u

/* ---- manager.c ---- */

/* Enter an acquire: 0, or -1 once shutdown has begun. */
int mgr_acquire_enter(sbx_manager *m);

/* Leave an acquire entered with mgr_acquire_enter. */
void mgr_acquire_leave(sbx_manager *m);

/* ---- identity_index.c ---- */

/* The entry indexed under (user, thread), or NULL; compares the strings, so
 * a match serves exactly that identity.  Under `lock` (read or write). */
mgr_entry *mgr_identity_find(const mgr_identity_index *index, const char *user,
                             const char *thread);

/* Index `e` when it is ACTIVE with a known identity and a named thread, else
 * take it out.  Never fails: an entry the index has no room for is served by
 * acquire's full path.  Under the write lock. */
void mgr_identity_sync(mgr_identity_index *index, mgr_entry *e);

/* Release the index's buckets (the entries are not touched). */
void mgr_identity_index_free(mgr_identity_index *index);

/* ---- manager_teardown.c ---- */

/* Whether `e` (NULL when untracked) may still be torn down, decided under
 * the write lock in the same critical section as the reservation. */
typedef int (*mgr_reapable_fn)(sbx_manager *m, const mgr_entry *e, void *ctx);

/* Reserve `id` for teardown if `still_reapable` holds, claim its lease for
 * destroy, destroy it on the backend while a heartbeat renews the teardown
 * lease, release the lease, and untrack it on success.  `forget_if_denied`:
 * untrack it without destroying when the claim is refused or unanswered.
 * SBX_OK destroyed; SBX_ERR_REFUSED (not reapable, reserved, or a peer's
 * lease), SBX_ERR_TRANSPORT (store cannot answer), or the backend's error
 * (the entry stays tracked). */
sbx_status mgr_teardown(sbx_manager *m, const char *id, mgr_reapable_fn still_reapable,
                        void *ctx, int forget_if_denied, sbx_error *err);

/* Wait until this process no longer tears `e` down (bounded by that
 * teardown's backend destroy).  Call without `lock`. */
void mgr_wait_teardown(sbx_manager *m, const mgr_entry *e);

/* Reapable predicates. */
int mgr_reapable_tracked(sbx_manager *m, const mgr_entry *e, void *ctx);
int mgr_reapable_warm(sbx_manager *m, const mgr_entry *e, void *ctx);
int mgr_reapable_untracked(sbx_manager *m, const mgr_entry *e, void *ctx);
/* ctx: the sbx_managed the caller saw; holds while `e` still has it. */
int mgr_reapable_same_record(sbx_manager *m, const mgr_entry *e, void *ctx);

/* Destroy the oldest warm entry that can be claimed for destroy (rule 7).
 * Returns 1 when one was evicted. */
int mgr_evict_oldest_warm(sbx_manager *m);

/* ---- manager_reaper.c ---- */

/* Rule 11: adopt orphans found running. */
void mgr_reconcile(sbx_manager *m);

/* Rule 10: reconcile, then destroy idle active and warm sandboxes. */
void mgr_reaper_pass(sbx_manager *m);

/* Rule 12: renew every lease held. */
void mgr_renewal_pass(sbx_manager *m);

/* Start both background threads; SBX_ERR_INTERNAL when one cannot start
 * (none is left running). */
sbx_status mgr_threads_start(sbx_manager *m, sbx_error *err);

/* Stop and join both threads (each join bounded; a thread that overruns is
 * joined again by mgr_threads_join). */
void mgr_threads_stop(sbx_manager *m);

/* Join threads mgr_threads_stop could not wait for. */
void mgr_threads_join(sbx_manager *m);

/* ---- readiness.c ---- */

/* Rule 6: for an http(s) sandbox_url, GET <url><ready_path> (each try at
 * most 5 s, one try per ready_interval) until a 200 or ready_timeout; the
 * environment's proxy is bypassed for loopback, private and cluster-local
 * hosts.  SBX_OK ready (or nothing to wait for); SBX_ERR_TRANSPORT naming
 * the sandbox, the URL and the last answer. */
sbx_status mgr_wait_ready(sbx_manager *m, const sbx_sandbox *sandbox, sbx_error *err);

/* ---- process_lock.c ---- */

/* Lock `<dir>/<id>.lock` exclusively across processes (flock), waiting for
 * a holder.  Returns the descriptor (>= 0) to hand to mgr_process_unlock, or
 * -1 with `err` filled. */
int mgr_process_lock(const char *dir, const char *id, sbx_error *err);

/* Release a lock from mgr_process_lock (-1 accepted). */
void mgr_process_unlock(int fd);

/* Make `path` and its missing parents (mode 0700).  SBX_ERR_CONFIG naming
 * `what` and the path. */
sbx_status mgr_make_dirs(const char *path, const char *what, sbx_error *err);

/* $XDG_STATE_HOME/sbx/<leaf> (absolute XDG_STATE_HOME only), else
 * $HOME/.local/state/sbx/<leaf>, malloc'ed; NULL with SBX_ERR_CONFIG when
 * neither is set. */
char *mgr_state_path(const char *leaf, sbx_error *err);

#endif
