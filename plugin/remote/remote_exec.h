/*
 * The remote backend's exec (ABI 1.3) and what its operations can do, as
 * a client of each sandbox's AIO API at the sandbox_url the provisioner
 * answers (docs/remote.md "Operations in a sandbox").  Results are built
 * with common/op_results.h and released with its functions.  Safe on many
 * threads at once.
 */
#ifndef SBX_REMOTE_EXEC_H
#define SBX_REMOTE_EXEC_H

#include <sbx/backend.h>

#include "plugin/remote/remote_instance.h"

/* Exec timeout when the caller gives none, and the largest one taken. */
#define REMOTE_EXEC_DEFAULT_TIMEOUT_MS 60000
#define REMOTE_EXEC_MAX_TIMEOUT_MS (24 * 3600 * 1000)
/* Output kept per stream when the caller gives no cap (or less when
 * max_response_bytes cannot carry it; see remote_exec_call.c). */
#define REMOTE_EXEC_DEFAULT_OUTPUT ((size_t)1024 * 1024)

/* What the operations can do: argv, shell text, read, write, list, remove
 * (no stdin: /v1/bash/exec has none), processes (no terminal, stdin
 * close, other signals or streaming exec: the wire has none; no process
 * limit or buffer size: the sandbox's own) and their limits. */
sbx_status remote_operations_info(sbx_backend_instance *inst, sbx_operations_info *out,
                                  sbx_error *err);

/* SBX_ERR_UNSUPPORTED naming the first of argv's words, the shell text
 * and the environment values that is not UTF-8 text without NUL (the AIO
 * wire carries only that; the message never quotes the value); else
 * SBX_OK.  argv and shell_command may be NULL; env when env_count is 0. */
sbx_status remote_check_command_text(const char *const *argv, const char *shell_command,
                                     const sbx_env_var *env, size_t env_count,
                                     const char *sandbox_id, sbx_error *err);

/* POST /v1/bash/exec.  SBX_ERR_UNSUPPORTED for stdin bytes, for text that
 * is not UTF-8, and for a sandbox without the route (AIO < 1.9.3). */
sbx_status remote_exec(sbx_backend_instance *inst, const char *sandbox_id,
                       const sbx_exec_request *request, sbx_exec_result **out, sbx_error *err);

#endif /* SBX_REMOTE_EXEC_H */
