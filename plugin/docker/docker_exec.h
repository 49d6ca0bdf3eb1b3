/*
 * Commands in a sandbox's container (ABI 1.3 exec): exec create, start on
 * a hijacked connection (stdin written, then a half-close; the
 * multiplexed output decoded as it arrives into capped streams), then the
 * exec's inspect for its exit code.  The Engine API cannot kill an exec,
 * so every command starts under /bin/sh as a wrapper that reports its
 * process group first (the engine's runtime makes each exec a session
 * leader) and then execs the command; at the timeout a second exec runs
 * `kill -KILL -PGID`, which ends the command and every process it started
 * that stayed in its group.  docs/docker.md "Operations" says what the
 * image needs.
 */
#ifndef SBX_DOCKER_EXEC_H
#define SBX_DOCKER_EXEC_H

#include "plugin/docker/docker_target.h"

/* The limits operations_info reports. */
#define DOCKER_EXEC_DEFAULT_TIMEOUT_MS INT64_C(60000)
#define DOCKER_EXEC_MAX_TIMEOUT_MS INT64_C(86400000)
#define DOCKER_EXEC_DEFAULT_OUTPUT ((size_t)1 << 20)
#define DOCKER_EXEC_MAX_OUTPUT ((size_t)64 << 20)
#define DOCKER_MAX_FILE_BYTES ((uint64_t)256 << 20)

/* A command as the backend runs it (every pointer borrowed). */
typedef struct docker_exec_spec {
    const char *const *argv;       /* program (looked up in PATH) and arguments */
    const sbx_env_var *env;
    size_t env_count;
    const char *working_dir;       /* absolute, or NULL: the container's */
    const void *stdin_data;        /* NULL: no stdin attached */
    size_t stdin_length;
    int64_t timeout_ms;            /* > 0 */
    size_t max_output_bytes;       /* > 0 */
    sbx_output_fn on_output;       /* NULL, or called with the command's bytes as
                                    * they are decoded (the wrapper's lines left out) */
    void *output_ctx;
} docker_exec_spec;

/* Run `spec` in the target's container and wait for it.  SBX_OK with
 * *out (common_exec_result_free) whenever it ran: a program the wrapper
 * could not start exits 127 on both engines; SBX_ERR_NO_SUCH_PATH when
 * the working directory does not exist; SBX_ERR_NOT_FOUND when the
 * container went away; transport, protocol and engine errors. */
sbx_status docker_exec_run(sbx_backend_instance *inst, const docker_target *t,
                           const docker_exec_spec *spec, sbx_exec_result **out, sbx_error *err);

/* The descriptor's exec: the request checked (common_exec_request_check),
 * shell text run as /bin/sh -c TEXT, a relative working_dir taken from
 * the container's; a hang-up on the request's cancel_fd ends the command
 * as its timeout does (TIMED_OUT). */
sbx_status docker_exec(sbx_backend_instance *inst, const char *sandbox_id,
                       const sbx_exec_request *request, sbx_exec_result **out, sbx_error *err);

/* The descriptor's operations_info: every operation, the limits above. */
sbx_status docker_operations_info(sbx_backend_instance *inst, sbx_operations_info *out,
                                  sbx_error *err);

#endif
