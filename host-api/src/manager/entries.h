/*
 * The manager's entry table (one entry per sandbox id it knows, in
 * m->entries under m->lock), its identity index (identity_index.h) and the
 * snapshots of sandbox records that entries anchor and callers borrow
 * (sbx_managed, reference counted).
 */
#ifndef SBX_MANAGER_ENTRIES_H
#define SBX_MANAGER_ENTRIES_H

#include "host-api/src/manager/identity_index.h"
#include "host-api/src/manager/split_count.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sbx/manager.h>

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
    _Atomic int64_t expires_at;    /* its expiry as last learnt (its create, an
                                    * extend, a list); 0: none known */
    pthread_mutex_t acquire_lock;
    /* The identity index (under the write lock; read under a read hold). */
    struct mgr_entry *identity_next;
    size_t identity_hash;
    int indexed;
} mgr_entry;

/* The entry indexed under (user, thread), or NULL; compares the strings, so
 * a match serves exactly that identity.  Under `lock` (read or write). */
mgr_entry *mgr_identity_find(const mgr_identity_index *index, const char *user,
                             const char *thread);

/* Release the index's buckets (the entries are not touched). */
void mgr_identity_index_free(mgr_identity_index *index);

/* Free entry `value` (a mgr_entry) and drop its snapshot: the table's
 * value destructor, for the manager's final clear. */
void mgr_entry_free(void *value);

/* The entry of `id`, or NULL.  Under `lock` (read or write). */
mgr_entry *mgr_find(sbx_manager *m, const char *id);

/* The entry of `id`, made (state NONE) when missing; NULL when out of
 * memory.  Under the write lock. */
mgr_entry *mgr_find_or_add(sbx_manager *m, const char *id);

/* Free `e` when nothing keeps it (state NONE, no marks, no pins).  Under the
 * write lock. */
void mgr_entry_collect(sbx_manager *m, mgr_entry *e);

/* Under a read hold: drop the pin of `e` while it is tracked, and return 1;
 * 0 when it is untracked (unpin then needs the write hold).  Only an entry
 * in state NONE is ever collected, so whoever untracks `e` later collects it
 * under the write hold and sees the pin gone. */
int mgr_entry_unpin_tracked(mgr_entry *e);

/* Drop a pin taken on `e` (no lock held), collecting it when it was the last
 * thing keeping an untracked entry. */
void mgr_entry_unpin(sbx_manager *m, mgr_entry *e);

/* Make `e` ACTIVE or WARM with `record` (its anchor is taken over) or NONE
 * (record dropped), keeping the gauges and the identity index right.  Under
 * the write lock. */
void mgr_entry_set_state(sbx_manager *m, mgr_entry *e, mgr_state state, sbx_managed *record);

/* Set the identity of `e` (strings copied); -1 when out of memory.  Under
 * the write lock, followed by mgr_entry_set_state, which re-indexes it. */
int mgr_entry_set_identity(mgr_entry *e, const char *user, const char *thread);

/* A snapshot of a backend's sandbox record; NULL when out of memory.  The
 * caller holds its anchor: it hands it to an entry, or drops it. */
sbx_managed *mgr_managed_copy(const sbx_sandbox *sandbox);

/* Drop the anchor of a snapshot (NULL accepted); it is freed once the last
 * caller's reference is gone too. */
void mgr_managed_drop(sbx_managed *managed);

/* Drop a sandbox whose lease a peer now holds, without touching it:
 * refused while this process tears it down or an acquire publishes it, or
 * when `expected_epoch` (>= 0) no longer matches.  Returns 1 when dropped. */
int mgr_forget(sbx_manager *m, const char *id, int64_t expected_epoch);

/* SBX_OK when sandbox `id` is tracked here (active or warm), else
 * SBX_ERR_NOT_FOUND naming it.  Takes the read lock. */
sbx_status mgr_require_tracked(sbx_manager *m, const char *id, sbx_error *err);

#endif
