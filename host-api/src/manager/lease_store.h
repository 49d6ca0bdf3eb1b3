/*
 * The ownership-lease store contract (docs/manager.md rule 13), shared by the
 * memory, sqlite and redis stores.
 *
 * A lease says which manager instance is responsible for reaping a sandbox:
 * `own:<owner>` (responsible) or `del:<owner>` (tearing it down), with a TTL
 * its owner renews.  Every operation answers "cannot tell" (a status other
 * than SBX_OK, normally SBX_ERR_TRANSPORT) distinctly from "no" (SBX_OK with
 * a negative answer): callers fail closed on the former.  What a store
 * reads back is untrusted: a row or key that is not a lease is
 * SBX_ERR_PROTOCOL naming the store and the key, and grants nothing.
 *
 * Thread safety: every operation may be called from many threads at once;
 * close once, after the last call returned.
 */
#ifndef SBX_MANAGER_LEASE_STORE_H
#define SBX_MANAGER_LEASE_STORE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sbx/manager.h>

/* The longest owner id or sandbox id a store writes or accepts back. */
#define MGR_LEASE_TEXT_MAX 256

/* What a renewal found. */
typedef enum mgr_lease_renewal {
    SBX_LEASE_RENEWED = 0,  /* still ours: TTL refreshed */
    SBX_LEASE_LAPSED = 1,   /* no lease (expired or lost by the store): free to re-claim */
    SBX_LEASE_LOST = 2      /* a peer holds it, or it is being torn down: do not re-take */
} mgr_lease_renewal;

typedef struct mgr_lease_store mgr_lease_store;

typedef struct mgr_lease_store_ops {
    const char *kind;          /* "memory", "sqlite", "redis" */
    int cross_process;         /* peers can see these leases */
    /* Acquire path: write `own:` over anything but a `del:` lease.  *taken 1
     * when the lease is ours afterwards, 0 when it is being torn down. */
    sbx_status (*take)(mgr_lease_store *store, const char *sandbox_id, int *taken,
                       sbx_error *err);
    /* Adopt/reap gate: only when unowned or ours; `for_destroy` writes
     * `del:`.  A non-destroy claim never downgrades our own `del:`.
     * *claimed 1 when the lease is ours afterwards. */
    sbx_status (*claim)(mgr_lease_store *store, const char *sandbox_id, int for_destroy,
                        int *claimed, sbx_error *err);
    /* Refresh our `own:` lease; never re-acquires by itself. */
    sbx_status (*renew)(mgr_lease_store *store, const char *sandbox_id,
                        mgr_lease_renewal *out, sbx_error *err);
    /* Drop our own lease in either state; a peer's is left alone. */
    sbx_status (*release)(mgr_lease_store *store, const char *sandbox_id, sbx_error *err);
    /* Read only: *owner is a malloc'ed owner id (caller frees), or NULL
     * when unowned; *destroying 1 for a `del:` lease (may be NULL). */
    sbx_status (*owner)(mgr_lease_store *store, const char *sandbox_id, char **owner,
                        int *destroying, sbx_error *err);
    /* Release everything the store holds, and the store. */
    void (*close)(mgr_lease_store *store);
    /* Read only: every live lease of the store (any owner), sorted by
     * sandbox id; *out released with sbx_lease_records_free.  NULL for a
     * store whose leases only its own process sees (memory). */
    sbx_status (*list)(mgr_lease_store *store, sbx_lease_record **out, size_t *count,
                       sbx_error *err);
} mgr_lease_store_ops;

/* The part every store starts with. */
struct mgr_lease_store {
    const mgr_lease_store_ops *ops;
    const char *kind;          /* "memory", "sqlite", "redis" */
    int cross_process;         /* peers can see these leases */
    char *owner_id;            /* owned */
    int64_t ttl_ms;
    /* -1: every wait has its own bound; else what the waits of operations
     * that get no answer may still take together (mgr_lease_store_limit_waits). */
    _Atomic int64_t wait_budget_ms;
};

/* A manager's clock (sbx_manager_config.clock) with its argument. */
typedef struct mgr_lease_clock {
    sbx_manager_clock_fn now;      /* never NULL */
    void *ctx;
} mgr_lease_clock;

/* The in-process store.  Lease expiry follows `clock`.  With `share_with`
 * (another memory store, which may be closed first) the new store is
 * another owner on the same leases, as managers of one process sharing a
 * fleet are; `clock` is then the first store's.  On success *out is closed
 * with mgr_lease_store_close. */
sbx_status mgr_lease_store_memory_open(const char *owner_id, int64_t ttl_ms,
                                       mgr_lease_clock clock, mgr_lease_store *share_with,
                                       mgr_lease_store **out, sbx_error *err);

/* The sqlite store on database file `path` (created when missing): each
 * operation one IMMEDIATE transaction, a bounded busy timeout.  Expiry uses
 * the wall clock, shared by the processes of the machine. */
sbx_status mgr_lease_store_sqlite_open(const char *path, const char *owner_id, int64_t ttl_ms,
                                       mgr_lease_store **out, sbx_error *err);

/* The redis store at `url` (redis://[[user]:password@]host[:port][/db],
 * user and password percent-encoded, or unix:///path), keys
 * `<key_prefix>:<sandbox_id>`; every round trip is bounded (5 s), and a
 * claim the server runs after its client stopped waiting does nothing.
 * Connects lazily: an unreachable server fails operations, not the open;
 * a refused login is SBX_ERR_UNAUTHORIZED. */
sbx_status mgr_lease_store_redis_open(const char *url, const char *key_prefix,
                                      const char *owner_id, int64_t ttl_ms,
                                      mgr_lease_store **out, sbx_error *err);

/* Fill the base of a freshly allocated store (its kind and reach are the
 * ops table's); SBX_ERR_INTERNAL when the owner id cannot be copied. */
sbx_status mgr_lease_store_init(mgr_lease_store *store, const mgr_lease_store_ops *ops,
                                const char *owner_id, int64_t ttl_ms, sbx_error *err);

/* From now on the operations of `store` that get no answer share one
 * budget of `budget_ms` (a shutdown's single bound): each waits at most
 * what is left, and none waits once it is spent. */
void mgr_lease_store_limit_waits(mgr_lease_store *store, int64_t budget_ms);

/* How long the next operation may wait for an answer: `bound_ms`, or what
 * is left of the budget when that is less (0: spent, do not wait). */
int64_t mgr_lease_store_wait_bound(mgr_lease_store *store, int64_t bound_ms);

/* Charge `waited_ms` that an operation waited in vain to the budget. */
void mgr_lease_store_charge(mgr_lease_store *store, int64_t waited_ms);

/* 1 when `text` (len bytes) is 1..MGR_LEASE_TEXT_MAX printable ASCII bytes
 * without a space: what an owner id or a sandbox id in a store may be. */
int mgr_lease_text_ok(const char *text, size_t len);

/* Check a lease value read back from a store, which is untrusted input:
 * `value` (len bytes; NULL when missing or not text) must be "own:<owner>"
 * or "del:<owner>" with an owner mgr_lease_text_ok accepts.  SBX_OK with
 * *destroying set (may be NULL); else SBX_ERR_PROTOCOL naming `store_name`
 * and `key` (quoted safely). */
sbx_status mgr_lease_value_check(const char *store_name, const char *key, const char *value,
                                 size_t len, int *destroying, sbx_error *err);

/* The SBX_ERR_PROTOCOL of a bad row or field `key` of `store_name`: `why`
 * says what is wrong with it. */
sbx_status mgr_lease_bad_row(const char *store_name, const char *key, const char *why,
                             sbx_error *err);

/* Close a store (NULL accepted). */
void mgr_lease_store_close(mgr_lease_store *store);

/* A listing being read: `count` records in `items`, room for `cap`. */
typedef struct mgr_lease_records {
    sbx_lease_record *items;
    size_t count, cap;
} mgr_lease_records;

/* Append a lease (strings copied) to `records` (grown by doubling its cap);
 * `value` is "own:<owner>" or "del:<owner>" (checked by the caller with
 * mgr_lease_value_check).  -1 when out of memory. */
int mgr_lease_records_append(mgr_lease_records *records, const char *sandbox_id,
                             const char *value, int64_t ttl_ms);

/* Sort records by sandbox id. */
void mgr_lease_records_sort(sbx_lease_record *records, size_t count);

/* The lease value of a state: "own:<owner>" or "del:<owner>", malloc'ed;
 * NULL when out of memory. */
char *mgr_lease_value(const char *owner_id, int destroying);

#endif
