/*
 * The env a sandbox was created with (ABI 1.5), joined to every exec and
 * process started in it: the sandbox's variables first, then the
 * request's, so that a request's value of a name wins.
 */
#ifndef SBX_LOCAL_SANDBOX_ENV_H
#define SBX_LOCAL_SANDBOX_ENV_H

#include "plugin/local/local_records.h"

/* What a joined request borrows: the sandbox's record and the joined
 * array.  Zero-initialise; release with local_sandbox_env_release. */
typedef struct local_sandbox_env {
    local_metadata meta;
    sbx_env_var *vars;
} local_sandbox_env;

/* Point request->env at the sandbox's env followed by the request's own
 * (unchanged when the sandbox has none), borrowing from *held until its
 * release.  SBX_ERR_NOT_FOUND when the sandbox has no whole record,
 * SBX_ERR_INTERNAL when out of memory. */
sbx_status local_sandbox_env_join(sbx_backend_instance *inst, const local_paths *paths,
                                  sbx_exec_request *request, local_sandbox_env *held,
                                  sbx_error *err);

/* Release what a join borrowed from (NULL members are fine). */
void local_sandbox_env_release(local_sandbox_env *held);

#endif
