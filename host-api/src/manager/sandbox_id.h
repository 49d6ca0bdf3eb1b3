/* Random ids of the manager: anonymous sandboxes and owner ids. */
#ifndef SBX_MANAGER_SANDBOX_ID_H
#define SBX_MANAGER_SANDBOX_ID_H

#include <stddef.h>
#include <sbx/manager.h>

/* Write 2*`bytes` lowercase hex characters of fresh randomness and a NUL to
 * `out` (`bytes` at most 64).  SBX_ERR_INTERNAL when there is no
 * randomness. */
sbx_status mgr_random_hex(char *out, size_t bytes, sbx_error *err);

/* A new owner id "<hostname>:<32 hex random>", malloc'ed; NULL with `err`
 * filled. */
char *mgr_owner_id_new(sbx_error *err);

#endif
