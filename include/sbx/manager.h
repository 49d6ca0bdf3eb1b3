/*
 * sbx sandbox manager: one sandbox per (user, thread), reused across turns,
 * kept warm after a turn, reaped when idle, adopted after a crash, and never
 * destroyed by one host process while another is serving it.
 *
 * A manager is opened on an open sbx_backend (any backend: local, docker,
 * remote, a third party's module) and a configuration.  It runs two
 * background threads: the reaper (every check_interval: reconcile orphans,
 * destroy idle sandboxes) and the lease renewal (every renewal_interval).
 * Ownership leases live in a store chosen by the configuration: `memory`
 * (this process only), `sqlite` (the processes of one machine, sharing a
 * database file) or `redis` (many machines).
 *
 * Life of a sandbox:
 *
 *     acquire ──> ACTIVE ──release──> WARM ──idle_timeout──> destroyed
 *        ^          │  ^                │
 *        │          │  └────acquire─────┘
 *        │          └──destroy / idle_timeout / shutdown──> destroyed
 *     (discover, create, or a warm entry; reconciliation adopts orphans
 *      found running into WARM)
 *
 * Ownership: a sbx_managed is a reference-counted, immutable snapshot of a
 * sandbox record; the caller owns each reference it receives and drops it
 * with sbx_managed_unref.  A reference stays readable after the sandbox is
 * released or destroyed (it then describes a sandbox that is gone).
 *
 * Thread safety: every function may be called from any number of threads at
 * once, while the background threads run, except sbx_manager_free (once,
 * after every other call has returned).  The library installs no signal
 * handlers; a host calls sbx_manager_shutdown from its own SIGTERM path.
 * After fork() only the parent may use a manager (the child has no
 * background threads); a child that needs one opens its own.
 *
 * Errors are values: every call returns an sbx_status and fills the
 * caller's sbx_error record.  Log lines go to the configured callback with
 * the backend name "manager".
 */
#ifndef SBX_MANAGER_H
#define SBX_MANAGER_H

#include <stddef.h>
#include <stdint.h>
#include <sbx/host.h>
#include <sbx/session.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbx_manager sbx_manager;
typedef struct sbx_managed sbx_managed;

/* Bytes of a sandbox id derived by sbx_sandbox_id_derive, with its NUL. */
#define SBX_DERIVED_ID_SIZE 17

/* Where ownership leases are kept (docs/manager.md rule 14). */
typedef enum sbx_manager_store {
    SBX_MANAGER_STORE_MEMORY = 0,  /* this process only; peers invisible */
    SBX_MANAGER_STORE_SQLITE = 1,  /* a database file shared on one machine */
    SBX_MANAGER_STORE_REDIS = 2    /* a Redis server shared by many machines */
} sbx_manager_store;

/* What shutdown does with the sandboxes it still tracks (rule 15). */
typedef enum sbx_manager_shutdown_mode {
    SBX_MANAGER_SHUTDOWN_DESTROY = 0, /* destroy active and warm sandboxes */
    SBX_MANAGER_SHUTDOWN_KEEP = 1,    /* leave them running, leases released */
    SBX_MANAGER_SHUTDOWN_KEEP_LEASES = 2 /* leave them running, leases left to
                                          * expire: no peer adopts them for one
                                          * lease TTL (sbxctl acquire --keep-lease) */
} sbx_manager_shutdown_mode;

/* What the background work did to a sandbox (sbx_manager_config.event). */
typedef enum sbx_manager_event {
    SBX_MANAGER_EVENT_ADOPTED = 0,    /* an orphan adopted into the warm pool */
    SBX_MANAGER_EVENT_REAPED = 1,     /* destroyed by the idle reaper */
    SBX_MANAGER_EVENT_EVICTED = 2,    /* a warm one destroyed for the replica cap */
    SBX_MANAGER_EVENT_LEASE_LOST = 3, /* forgotten (not destroyed): a peer holds it */
    SBX_MANAGER_EVENT_EXPIRED = 4     /* destroyed past its expiry, whatever its lease */
} sbx_manager_event;

/* Called once per event, from the thread that caused it (the reaper, the
 * renewal, or an acquire), with no manager lock held; it must not call
 * sbx_manager_shutdown or sbx_manager_free. */
typedef void (*sbx_manager_event_fn)(void *event_ctx, sbx_manager_event event,
                                     const char *sandbox_id);

/* A clock in milliseconds that never goes backwards (for tests). */
typedef int64_t (*sbx_manager_clock_fn)(void *clock_ctx);

/*
 * Configuration.  Initialise with SBX_MANAGER_CONFIG_INIT (the defaults of
 * docs/manager.md's table) and change what differs; members are only ever
 * appended, and the manager reads no member beyond struct_size.  Every
 * interval is in milliseconds.  Strings are copied by sbx_manager_open.
 */
typedef struct sbx_manager_config {
    size_t struct_size;            /* sizeof(sbx_manager_config) */
    int64_t idle_timeout_ms;       /* 600000; >= 0, 0: never idle-reap */
    unsigned replicas;             /* 3; >= 1: soft cap of active + warm */
    int64_t check_interval_ms;     /* 60000; > 0: reaper period */
    const char *ready_path;        /* "/v1/sandbox" (NULL: the default) */
    int64_t ready_timeout_ms;      /* 60000; 0: do not wait.  After a create,
                                    * an http(s) sandbox URL is polled with
                                    * GET <url><ready_path> until a 200 */
    sbx_manager_store store;       /* SBX_MANAGER_STORE_MEMORY */
    const char *store_path;        /* sqlite file; NULL: $XDG_STATE_HOME/sbx/leases.db */
    const char *redis_url;         /* NULL: "redis://127.0.0.1:6379/0" */
    const char *key_prefix;        /* NULL: "sbx:sandbox:owner" */
    int64_t renewal_interval_ms;   /* 30000; > 0 */
    unsigned ttl_multiplier;       /* 4; >= 2: lease TTL = renewal_interval x this */
    sbx_manager_shutdown_mode shutdown; /* SBX_MANAGER_SHUTDOWN_DESTROY */
    const char *lock_dir;          /* cross-process acquire locks; NULL:
                                    * $XDG_STATE_HOME/sbx/locks (else
                                    * $HOME/.local/state/sbx/locks) */
    sbx_log_fn log;                /* NULL: nothing is logged */
    void *log_ctx;                 /* passed back to log */
    const char *owner_id;          /* NULL: "<hostname>:<32 hex random>" */
    sbx_manager_clock_fn clock;    /* NULL: CLOCK_MONOTONIC; drives idle,
                                    * warm and grace timing and the memory
                                    * store's lease expiry */
    void *clock_ctx;               /* passed back to clock */
    int64_t ready_interval_ms;     /* 1000; > 0: one readiness try per interval */
    sbx_manager_event_fn event;    /* NULL: none; each counted event as it happens */
    void *event_ctx;               /* passed back to event */
    int reap_running_processes;    /* 0: a sandbox with a running process (ABI 1.4)
                                    * is in use, never idle; non-zero: the idle
                                    * reaper ignores processes */
    int64_t default_lifetime_ms;   /* 0: none; > 0: a sandbox an acquire creates
                                    * without expires_at expires this long after,
                                    * when the backend honours SBX_CREATE_EXPIRY */
    int64_t max_lifetime_ms;       /* 0: no cap; > 0: an expires_at further than
                                    * this from now (acquire, extend) is
                                    * SBX_ERR_USAGE naming expires_at */
} sbx_manager_config;

#define SBX_MANAGER_CONFIG_INIT                                              \
    { sizeof(sbx_manager_config), 600000, 3, 60000, NULL, 60000,             \
      SBX_MANAGER_STORE_MEMORY, NULL, NULL, NULL, 30000, 4,                   \
      SBX_MANAGER_SHUTDOWN_DESTROY, NULL, NULL, NULL, NULL, NULL, NULL, 1000, \
      NULL, NULL, 0, 0, 0 }

/*
 * Counters for a host to export.  The caller sets struct_size; members are
 * only ever appended and only those within struct_size are written.
 */
typedef struct sbx_manager_counters {
    size_t struct_size;      /* sizeof(sbx_manager_counters) */
    uint64_t active;         /* gauge: handed out, not released */
    uint64_t warm;           /* gauge: released, still running */
    uint64_t adopted;        /* orphans adopted by reconciliation */
    uint64_t reaped;         /* destroyed by the idle reaper */
    uint64_t evicted;        /* warm entries destroyed for the replica cap */
    uint64_t lease_losses;   /* sandboxes forgotten because a peer took them */
    uint64_t expired;        /* destroyed past their expiry by the reaper */
} sbx_manager_counters;

/* The sandbox id of (user, thread) by docs/manager.md rule 1: the first 16 hex
 * characters of SHA-256 of "<user>:<thread>", user "default" when NULL.
 * Writes a NUL-terminated id to `out`.  SBX_ERR_USAGE when thread is NULL,
 * SBX_ERR_INTERNAL when the digest fails. */
sbx_status sbx_sandbox_id_derive(const char *user_id, const char *thread_id,
                                 char out[SBX_DERIVED_ID_SIZE], sbx_error *err);

/* The `manager` section of a configuration file read with
 * sbx_config_load_file (docs/configuration.md), as a configuration for
 * sbx_manager_open: SBX_MANAGER_CONFIG_INIT's defaults where the file says
 * nothing (or has no such section).  The section was checked when the
 * file was read.  Strings are borrowed from `config` (keep it until
 * sbx_manager_open returns); log, clock and owner_id are left to the
 * caller.  No I/O. */
void sbx_config_manager(const sbx_config *config, sbx_manager_config *out);

/* One lease of an ownership store, as sbx_manager_list_leases reads it. */
typedef struct sbx_lease_record {
    char *sandbox_id;
    char *owner;             /* the owner id written in the lease */
    int destroying;          /* 1: `del:` (being torn down), 0: `own:` */
    int64_t ttl_ms;          /* left when read */
} sbx_lease_record;

/* Every live lease of the store `config` names (sqlite or redis), any
 * owner's, sorted by sandbox id.  Opens the store, reads, closes it; no
 * manager, no backend.  SBX_ERR_UNSUPPORTED for the memory store (its
 * leases live in one process), SBX_ERR_TRANSPORT when the store cannot
 * answer (bounded, 5 s a round trip), SBX_ERR_CONFIG for a bad
 * configuration.  Release *out with sbx_lease_records_free. */
sbx_status sbx_manager_list_leases(const sbx_manager_config *config, sbx_lease_record **out,
                                   size_t *count, sbx_error *err);

/* Free what sbx_manager_list_leases returned (NULL accepted). */
void sbx_lease_records_free(sbx_lease_record *records, size_t count);

/* Open a manager on `backend` (borrowed: it must stay open until
 * sbx_manager_free returns).  Checks the configuration (SBX_ERR_CONFIG
 * naming the member at fault), opens the ownership store, reconciles once
 * and starts the reaper and renewal threads.  On success *out is released
 * with sbx_manager_free. */
sbx_status sbx_manager_open(sbx_backend *backend, const sbx_manager_config *config,
                            sbx_manager **out, sbx_error *err);

/* Refuse new acquires (SBX_ERR_USAGE), wait for those in progress, stop the
 * threads (bounded joins), then destroy or keep the sandboxes as
 * configured.  Idempotent: later calls return SBX_OK at once.  Returns the
 * first teardown error, having tried every sandbox.  Not to be called from
 * the log callback (an acquire in progress may be the caller). */
sbx_status sbx_manager_shutdown(sbx_manager *manager, sbx_error *err);

/* Shut down (if not done yet; errors are logged), close the store and free
 * the manager.  NULL is accepted.  References obtained from it stay valid. */
void sbx_manager_free(sbx_manager *manager);

/*
 * Acquire the sandbox of (request->user_id, request->thread_id): the active
 * one, a warm one, one found running by the backend, or a new one made with
 * `request`'s create options.  request->sandbox_id must be NULL (the
 * manager derives it); thread_id NULL asks for an anonymous sandbox with a
 * random id.  On success *out is a new reference to the ACTIVE sandbox.
 * A thread active here costs one is_alive and one store take, and its
 * acquires run side by side; the others of one id run one at a time.
 * Errors: SBX_ERR_USAGE for a malformed request or once shutdown began,
 * SBX_ERR_REFUSED for an invalid user or thread id, when the id serves
 * another identity or a peer is
 * tearing the sandbox down, SBX_ERR_TRANSPORT when the ownership store
 * cannot answer (nothing is handed out unpublished) or when a new sandbox
 * did not answer 200 within ready_timeout (it is destroyed), or the
 * backend's error.
 */
sbx_status sbx_manager_acquire(sbx_manager *manager, const sbx_create_request *request,
                               sbx_managed **out, sbx_error *err);

/* The active sandbox `sandbox_id` as a new reference, or NULL when it is not
 * active here.  No I/O, no store call, no system call; marks the sandbox as
 * used now.  Threads calling get at once write no shared memory (16
 * per-thread lock and reference slots; more threads share slots), so get
 * scales with threads. */
sbx_managed *sbx_manager_get(sbx_manager *manager, const char *sandbox_id);

/* Move active sandbox `sandbox_id` to the warm pool, keeping its lease.
 * SBX_ERR_NOT_FOUND when it is not active here. */
sbx_status sbx_manager_release(sbx_manager *manager, const char *sandbox_id,
                               sbx_error *err);

/* Destroy tracked sandbox `sandbox_id` (active or warm) under a teardown
 * lease.  SBX_ERR_NOT_FOUND when it is not tracked here, SBX_ERR_REFUSED when
 * a peer holds its lease or this process is already tearing it down,
 * SBX_ERR_TRANSPORT when the store cannot answer (nothing is destroyed), or
 * the backend's destroy error (the sandbox stays tracked). */
sbx_status sbx_manager_destroy(sbx_manager *manager, const char *sandbox_id,
                               sbx_error *err);

/*
 * The sandbox operations (ABI 1.3, <sbx/host.h>'s sbx_backend_exec and
 * file calls) on active sandbox `sandbox_id`: the tool-call path.  Like
 * get, they find the sandbox without store I/O; the call counts as use, and
 * while it runs the idle reaper does not take the sandbox.  SBX_ERR_NOT_FOUND
 * when the sandbox is not active here (acquire it first), else what the
 * backend's operation answers.  Results are released with the
 * sbx_backend_free_* calls on the backend the manager was opened on.
 */
sbx_status sbx_manager_exec(sbx_manager *manager, const char *sandbox_id,
                            const sbx_exec_request *request, sbx_exec_result **out,
                            sbx_error *err);
sbx_status sbx_manager_read_file(sbx_manager *manager, const char *sandbox_id,
                                 const char *path, uint64_t offset, uint64_t max_bytes,
                                 sbx_file_content **out, sbx_error *err);
sbx_status sbx_manager_write_file(sbx_manager *manager, const char *sandbox_id,
                                  const char *path, const void *data, size_t length,
                                  unsigned flags, uint32_t mode, sbx_error *err);
sbx_status sbx_manager_list_dir(sbx_manager *manager, const char *sandbox_id,
                                const char *path, unsigned max_depth, size_t max_entries,
                                sbx_dir_listing **out, sbx_error *err);
sbx_status sbx_manager_remove_path(sbx_manager *manager, const char *sandbox_id,
                                   const char *path, unsigned flags, sbx_error *err);

/* open_file (ABI 1.6) on active sandbox `sandbox_id`, as the calls above:
 * on success *fd (>= 0) is the caller's to close and *size the file's size
 * when opened; the fd outlives the call, so reading it is not use.  Errors
 * as sbx_manager_read_file's, SBX_ERR_UNSUPPORTED for a backend without
 * open_file; on every failure *fd is -1 and *size 0. */
sbx_status sbx_manager_open_file(sbx_manager *manager, const char *sandbox_id,
                                 const char *path, int *fd, uint64_t *size, sbx_error *err);

/*
 * The live-process calls (ABI 1.4, <sbx/host.h>'s sbx_backend_process_*)
 * on active sandbox `sandbox_id`, as the sandbox operations above: found
 * without store I/O, counted as use, SBX_ERR_NOT_FOUND when the sandbox is
 * not active here, else what the backend's call answers.  A process keeps
 * running after the call that started it, and while it runs the idle
 * reaper does not take its sandbox (unless reap_running_processes).
 * Results are released with sbx_backend_free_processes /
 * sbx_backend_free_process_output on the manager's backend.
 */
sbx_status sbx_manager_process_start(sbx_manager *manager, const char *sandbox_id,
                                     const sbx_process_request *request,
                                     sbx_process_info **out, sbx_error *err);
sbx_status sbx_manager_process_read(sbx_manager *manager, const char *sandbox_id,
                                    const char *process_id,
                                    const sbx_process_read_request *request,
                                    sbx_process_output **out, sbx_error *err);
sbx_status sbx_manager_process_write(sbx_manager *manager, const char *sandbox_id,
                                     const char *process_id,
                                     const sbx_process_write_request *request, sbx_error *err);
sbx_status sbx_manager_process_signal(sbx_manager *manager, const char *sandbox_id,
                                      const char *process_id, int signal, sbx_error *err);
sbx_status sbx_manager_process_resize(sbx_manager *manager, const char *sandbox_id,
                                      const char *process_id, unsigned rows, unsigned cols,
                                      sbx_error *err);
sbx_status sbx_manager_process_wait(sbx_manager *manager, const char *sandbox_id,
                                    const char *process_id, int64_t wait_ms,
                                    sbx_process_info **out, sbx_error *err);
sbx_status sbx_manager_process_list(sbx_manager *manager, const char *sandbox_id,
                                    sbx_process_info **out, size_t *count, sbx_error *err);
sbx_status sbx_manager_process_forget(sbx_manager *manager, const char *sandbox_id,
                                      const char *process_id, sbx_error *err);

/* sbx_session_open (<sbx/session.h>) on active sandbox `sandbox_id`:
 * every later call on the session (run, close) is an operation on the
 * sandbox as above, SBX_ERR_NOT_FOUND once it is no longer active here.
 * The session is the caller's and must be closed or detached before
 * sbx_manager_free. */
sbx_status sbx_manager_session_open(sbx_manager *manager, const char *sandbox_id,
                                    const sbx_session_options *options, sbx_session **out,
                                    sbx_error *err);

/* sbx_session_attach on active sandbox `sandbox_id`, as the open above. */
sbx_status sbx_manager_session_attach(sbx_manager *manager, const char *sandbox_id,
                                      const char *process_id,
                                      const sbx_session_options *options, sbx_session **out,
                                      sbx_error *err);

/* Move the expiry of tracked sandbox `sandbox_id` (active or warm) to
 * `expires_at` (ms since the Unix epoch): sbx_backend_extend's answers,
 * SBX_ERR_USAGE naming expires_at beyond max_lifetime from now, and
 * SBX_ERR_NOT_FOUND when it is not tracked here. */
sbx_status sbx_manager_extend(sbx_manager *manager, const char *sandbox_id, int64_t expires_at,
                              sbx_error *err);

/* One reaper pass now (destroy sandboxes past their expiry, whatever their
 * lease; reconcile orphans; destroy idle active and warm sandboxes), in
 * the caller's thread.  SBX_OK also when a step was skipped
 * (logged); SBX_ERR_USAGE after shutdown. */
sbx_status sbx_manager_reap_now(sbx_manager *manager, sbx_error *err);

/* One renewal pass now over every lease held, in the caller's thread. */
sbx_status sbx_manager_renew_now(sbx_manager *manager, sbx_error *err);

/* Wake the background threads to re-read the clock (after a test's clock
 * moved): each runs its pass when its interval has elapsed. */
void sbx_manager_wake(sbx_manager *manager);

/* Fill `out` (its struct_size set by the caller).  No I/O. */
void sbx_manager_get_counters(sbx_manager *manager, sbx_manager_counters *out);

/* This manager's owner id, as written into leases.  Owned by the manager. */
const char *sbx_manager_owner_id(const sbx_manager *manager);

/* The sandbox record of a reference: id, URL, user and thread as the backend
 * reported them.  Owned by the reference; never NULL. */
const sbx_sandbox *sbx_managed_sandbox(const sbx_managed *managed);

/* Add a reference (returns `managed`). */
sbx_managed *sbx_managed_ref(sbx_managed *managed);

/* Drop a reference, from any thread; the last one frees the snapshot.  NULL
 * is accepted. */
void sbx_managed_unref(sbx_managed *managed);

#ifdef __cplusplus
}
#endif

#endif /* SBX_MANAGER_H */
