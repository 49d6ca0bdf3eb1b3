/*
 * The env a sandbox was created with (ABI 1.5), joined to every exec and
 * process started in it: the sandbox's variables first, then the
 * request's, so that a request's value of a name wins.
 */
#ifndef SBX_LOCAL_SANDBOX_ENV_H
#define SBX_LOCAL_SANDBOX_ENV_H

#include "plugin/local/local_metadata.h"

#include <sbx/backend.h>

/* Point request->env at the env of the sandbox `meta` records followed by
 * the request's own (unchanged when the sandbox has none: no allocation,
 * *joined NULL).  The joined array, *joined, is the caller's to free; its
 * strings are borrowed from `meta` and the request, which must outlive
 * it.  SBX_ERR_INTERNAL when out of memory. */
sbx_status local_sandbox_env_join(const local_metadata *meta, sbx_exec_request *request,
                                  sbx_env_var **joined, sbx_error *err);

#endif
