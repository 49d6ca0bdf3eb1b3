/*
 * The checks every backend makes of an exec request (ABI 1.3) before it
 * runs anything, so that the three backends refuse alike.
 */
#ifndef SBX_COMMON_EXEC_REQUEST_H
#define SBX_COMMON_EXEC_REQUEST_H

#include <sbx/backend.h>

#include <stddef.h>

/* Non-zero when `name` is an environment name a request may carry:
 * ^[A-Za-z_][A-Za-z0-9_]*$ (so it cannot smuggle '=' or a shell word). */
int common_env_name_valid(const char *name);

/* The request as the backend will read it: members past request->struct_size
 * take SBX_EXEC_REQUEST_INIT's defaults. */
void common_exec_request_read(const sbx_exec_request *request, sbx_exec_request *out);

/* Check a request (as read by common_exec_request_read): exactly one of argv
 * (with a non-empty argv[0]) and shell_command; env names valid and values
 * present (the message names the variable's position and never a value);
 * stdin bytes present when stdin_length > 0; timeout_ms >= 0 and at most
 * max_timeout_ms; max_output_bytes at most max_output_bytes_limit.
 * SBX_OK or SBX_ERR_USAGE naming sandbox `sandbox_id` and the member. */
sbx_status common_exec_request_check(const sbx_exec_request *request, const char *sandbox_id,
                                     int64_t max_timeout_ms, size_t max_output_bytes_limit,
                                     sbx_error *err);

/* As common_exec_request_check, the messages naming the call `call` (e.g.
 * "process start") rather than exec. */
sbx_status common_exec_request_check_as(const sbx_exec_request *request, const char *call,
                                        const char *sandbox_id, int64_t max_timeout_ms,
                                        size_t max_output_bytes_limit, sbx_error *err);

#endif
