/*
 * One POST /v1/bash/exec to a sandbox's AIO API, as both exec and the
 * check scripts of the file operations make it: the body, the call, and
 * the largest output cap an answer within max_response_bytes can carry.
 * Safe on many threads at once.
 */
#ifndef SBX_REMOTE_EXEC_CALL_H
#define SBX_REMOTE_EXEC_CALL_H

#include <stddef.h>
#include <stdint.h>
#include <sbx/backend.h>

#include "plugin/remote/remote_endpoint.h"
#include "plugin/remote/remote_options.h"

/* The largest output cap: both streams at their worst (every character
 * escaped) still fit o->max_response_bytes; at least 1. */
size_t remote_exec_output_limit(const remote_options *o);

/* The /v1/bash/exec body of `command`, keeping `cap` bytes a stream.
 * `env` may be NULL; exec_dir NULL is left out.  malloc'd; NULL when out
 * of memory. */
char *remote_exec_body(const char *command, const sbx_env_var *env, size_t env_count,
                       const char *exec_dir, int64_t timeout_ms, size_t cap);

/* POST /v1/bash/exec with `body`, bounded by the command's timeout and a
 * grace for the answer to travel; *out keeps `cap` bytes a stream
 * (common_exec_result_free).  SBX_ERR_UNSUPPORTED for a sandbox without
 * the route; errors are named and masked by remote_endpoint_fail. */
sbx_status remote_exec_post(remote_endpoint *ep, const char *body, int64_t timeout_ms,
                            size_t cap, sbx_exec_result **out, sbx_error *err);

#endif /* SBX_REMOTE_EXEC_CALL_H */
