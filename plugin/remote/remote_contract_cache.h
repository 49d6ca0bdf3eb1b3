/*
 * The mount-contract cache (docs/remote.md rules 1, 2's "unverified", 3's
 * snapshot, 5/6's "mark stale", 7's waiting).  The version is learnt by a
 * probe function and cached: fresh for 30 s after a success (300 s for
 * version 2 or later); after a failure
 * the next probe waits min(30 s, backoff(failures)), with a saturating
 * failure count and overflow-free arithmetic.  At most one probe runs at a
 * time: a caller that finds the cache stale while a probe is in flight waits
 * for that probe and takes its result.
 *
 * Thread safety: every function may be called from many threads at once,
 * except init/destroy.  The probe runs without the cache's lock held.
 * The clock and probe are injectable so that tests can drive time.
 */
#ifndef SBX_REMOTE_CONTRACT_CACHE_H
#define SBX_REMOTE_CONTRACT_CACHE_H

#include <pthread.h>
#include <stdint.h>
#include <sbx/backend.h>

/* How long a successful probe's answer stays fresh (a legacy or version-1
 * answer, and one of version 2 or later, which a provisioner is not
 * expected to downgrade: as the reference client), and the longest wait
 * between failed probes. */
#define REMOTE_CONTRACT_FRESH_MS 30000
#define REMOTE_CONTRACT_FRESH_CURRENT_MS 300000
#define REMOTE_CONTRACT_CURRENT_VERSION 2
#define REMOTE_CONTRACT_RETRY_MAX_MS 30000
/* The first retry delay; it doubles per failure up to the maximum. */
#define REMOTE_CONTRACT_RETRY_BASE_MS 1000

/* Monotonic milliseconds. */
typedef int64_t (*remote_clock_ms_fn)(void *ctx);

/* What a successful probe learns. */
typedef struct remote_probe_answer {
    int version;               /* the mount contract version (>= 0) */
    unsigned create_fields;    /* the SBX_CREATE_* members it advertises (its
                                * capabilities' create_fields; 0: none) */
    int extend;                /* 1: it serves the extend route ("extend":true) */
} remote_probe_answer;

/* Learn the provisioner's capabilities: SBX_OK with *answer filled (it
 * starts zeroed), or an error (filled into err) that counts as a failed
 * probe. */
typedef sbx_status (*remote_contract_probe_fn)(void *ctx, remote_probe_answer *answer,
                                               sbx_error *err);

/* What the cache knows; a copy, taken under the lock. */
typedef struct remote_contract_state {
    int version;               /* last version learnt (0 before any success) */
    int known;                 /* 1 when the last probe succeeded */
    unsigned create_fields;    /* the create members the last successful probe
                                * learnt (0 before any: none is sent) */
    int extend;                /* the last successful probe's extend (0 before any) */
    unsigned failures;         /* consecutive failed probes, saturating */
    int64_t next_probe_at_ms;  /* stale from this clock reading on; 0: stale now */
    int probe_out_of_memory;   /* 1 when the last probe failed for lack of memory
                                * here: says nothing of the provisioner, so it
                                * is not counted as a failure and leaves the
                                * rest of the state as it was (still stale) */
    sbx_status failure_kind;   /* why the last probe failed (SBX_OK after a
                                * success): an unverified contract's cause */
    char failure[200];         /* that failure's message, "" after a success */
} remote_contract_state;

/* Injected collaborators.  clock NULL: CLOCK_MONOTONIC; services NULL: no log;
 * log_name NULL: REMOTE_NAME. */
typedef struct remote_contract_hooks {
    remote_contract_probe_fn probe;
    void *probe_ctx;
    remote_clock_ms_fn clock;
    void *clock_ctx;
    const sbx_host_services *services; /* the host's log callback; borrowed for
                                        * the cache's life (NULL: no log) */
    const char *log_name;      /* borrowed for the cache's life */
} remote_contract_hooks;

typedef struct remote_contract_cache {
    pthread_mutex_t lock;
    pthread_cond_t probe_done;
    remote_contract_state state;
    int probing;                /* a probe is in flight */
    uint64_t probes_completed;  /* lets waiters tell "their" probe finished */
    remote_contract_hooks hooks;
} remote_contract_cache;

/* Initialise an empty (unverified, stale) cache; hooks are copied.
 * SBX_ERR_INTERNAL when a mutex cannot be made. */
sbx_status remote_contract_cache_init(remote_contract_cache *cache,
                                      const remote_contract_hooks *hooks,
                                      sbx_error *err);

/* Release the cache's lock and condition.  No call may be in progress. */
void remote_contract_cache_destroy(remote_contract_cache *cache);

/* The state after refreshing it if stale: probes (when no probe is in
 * flight) or waits for the probe in flight, logging "waiting for the
 * capability probe in flight" at DEBUG before blocking.  *out is a snapshot
 * (rule 3: later changes do not touch it).  Returns 1 when this call ran or
 * waited for a probe, 0 when the cache was fresh. */
int remote_contract_cache_current(remote_contract_cache *cache, remote_contract_state *out);

/* Make the next remote_contract_cache_current probe again (rules 5 and 6). */
void remote_contract_cache_mark_stale(remote_contract_cache *cache);

/* A snapshot without refreshing (diagnostics and tests). */
void remote_contract_cache_peek(remote_contract_cache *cache, remote_contract_state *out);

/* Overwrite the state (tests seed it, as the seed suite does). */
void remote_contract_cache_set_state(remote_contract_cache *cache,
                                     const remote_contract_state *state);

/* The wait before the next probe after `failures` consecutive failures:
 * 1 s, 2 s, 4 s ... capped at 30 s; 0 for no failure.  Never overflows. */
int64_t remote_contract_retry_delay_ms(unsigned failures);

/* The version a create freezes from a state: the version when known, else 0
 * (unverified counts as legacy). */
int remote_contract_effective_version(const remote_contract_state *state);

#endif /* SBX_REMOTE_CONTRACT_CACHE_H */
