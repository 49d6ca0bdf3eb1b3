/* Deterministic sandbox ids for `sbxctl create` without --id. */
#ifndef CTL_SANDBOX_ID_H
#define CTL_SANDBOX_ID_H

#include <sbx/manager.h>

/* Bytes of a derived id including its NUL: 16 hex digits. */
#define CTL_DERIVED_ID_SIZE SBX_DERIVED_ID_SIZE

/* Write into `out` the id of docs/manager.md rule 1: the first 16 lower-case hex
 * digits of SHA-256 of "<user>:<thread>", user "default" when NULL, the id
 * the manager and DeerFlow's provider give the same thread, so that a
 * sandbox made by any of them is found by the others.  SBX_OK, or the
 * error of sbx_sandbox_id_derive (no thread, no memory). */
sbx_status ctl_derive_sandbox_id(const char *user_id, const char *thread_id,
                                     char out[CTL_DERIVED_ID_SIZE], sbx_error *err);

#endif
