/*
 * Every destroy path of the manager (rule 9): teardown of one sandbox,
 * the predicates that decide it may still go, and eviction of warm ones.
 */
#ifndef SBX_MANAGER_TEARDOWN_H
#define SBX_MANAGER_TEARDOWN_H

#include "host-api/src/manager/entries.h"

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

#endif
