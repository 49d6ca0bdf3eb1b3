/*
 * Sandbox expiry in the manager: the default and maximum lifetime of the
 * configuration applied to the sandboxes it creates, extend, and the
 * reaper's step that destroys sandboxes past their expiry whatever their
 * lease (an expiry is a deadline, not a hint).
 */
#ifndef SBX_MANAGER_EXPIRY_H
#define SBX_MANAGER_EXPIRY_H

#include <sbx/manager.h>

/* Before an acquire creates a sandbox with `request` (the manager's own
 * copy): no expires_at and a default lifetime, on a backend that honours
 * SBX_CREATE_EXPIRY, gets now + default; an expires_at beyond
 * max_lifetime from now is SBX_ERR_USAGE naming expires_at.  Else SBX_OK. */
sbx_status mgr_expiry_of_new(sbx_manager *m, sbx_create_request *request, sbx_error *err);

/* Remember `expires_at` (0: none) as the expiry of the tracked sandbox
 * `id` (nothing when it is not tracked).  Thread-safe. */
void mgr_expiry_note(sbx_manager *m, const char *id, int64_t expires_at);

/* On a backend that honours SBX_CREATE_EXPIRY (others have no expiry,
 * and are not listed for it): destroy every sandbox it lists past its
 * expiry (records' expires_at), under a teardown lease when one can be had, else directly;
 * untracked here either way.  A tracked sandbox past the expiry last
 * learnt for it that the list no longer shows (a backend that destroys
 * expired sandboxes itself, as local's and docker's list do) is torn
 * down here too, and reported expired as well.  Failures are logged,
 * never the caller's. */
void mgr_reap_expired(sbx_manager *m);

#endif
