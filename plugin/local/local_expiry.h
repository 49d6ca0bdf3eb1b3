/*
 * Sandbox expiry on local (ABI 1.5's expires_at, kept in the sandbox's
 * record): a sandbox past it is destroyed by the first call that sees it
 * (list, discover, is_alive, a create of its id), whatever holds it, and
 * extend moves it.  Every process sharing the state directory enforces
 * the same record, under the sandbox's lock.
 */
#ifndef SBX_LOCAL_EXPIRY_H
#define SBX_LOCAL_EXPIRY_H

#include "plugin/local/local_instance.h"
#include "plugin/local/local_metadata.h"
#include "plugin/local/local_state.h"

/* With the sandbox's lock held and *meta its record: when the record is
 * past its expiry, destroy the sandbox, clear *meta and return
 * SBX_ERR_NOT_FOUND (or the destroy's error); else SBX_OK, *meta kept. */
sbx_status local_expiry_enforce_locked(sbx_backend_instance *inst, const local_paths *paths,
                                       local_metadata *meta, sbx_error *err);

/* For a reader holding no lock, with *meta the record it loaded: when it
 * is past its expiry, take the lock, read the record again and destroy
 * the sandbox if it is still past it.  Returns 1 when the sandbox is gone
 * (the caller answers as for no sandbox), 0 when it stands (not expired,
 * extended meanwhile, or the destroy failed: logged). */
int local_expiry_reap(sbx_backend_instance *inst, const local_paths *paths,
                      const local_metadata *meta);

/* The descriptor's extend (ABI 1.5): move the expiry of `sandbox_id`.
 * SBX_ERR_USAGE naming expires_at when it was made without one;
 * SBX_ERR_NOT_FOUND when there is no such sandbox or it was past its
 * expiry (then destroyed); SBX_ERR_INTERNAL when the record cannot be
 * written. */
sbx_status local_extend(sbx_backend_instance *inst, const char *sandbox_id, int64_t expires_at,
                        sbx_error *err);

#endif
