/*
 * exec in a local sandbox (ABI 1.3): the command runs on this machine as
 * the host's user (confined when the option isolation is `namespaces`:
 * local_isolation.h), in the sandbox directory, with a minimal environment,
 * under a subreaper that ends every process it started before exec
 * returns (local_reaper.h).  And operations_info: the sandbox operations
 * the backend offers, and their limits.
 */
#ifndef SBX_LOCAL_EXEC_H
#define SBX_LOCAL_EXEC_H

#include "plugin/local/local_instance.h"

/* The limits of exec (docs/local.md). */
#define LOCAL_EXEC_DEFAULT_TIMEOUT_MS INT64_C(600000)   /* 10 minutes, as DeerFlow's */
#define LOCAL_EXEC_MAX_TIMEOUT_MS INT64_C(86400000)     /* a day */
#define LOCAL_EXEC_DEFAULT_OUTPUT ((size_t)1 << 20)     /* 1 MiB per stream */
#define LOCAL_EXEC_MAX_OUTPUT ((size_t)64 << 20)        /* 64 MiB per stream */
#define LOCAL_EXEC_UNBOUNDED_MS (INT64_C(1) << 52)      /* "no timeout": past any life */

/* What a run does beyond exec's one-shot result: the live processes'
 * supervisor (local_supervisor.h) and a streaming exec set these. */
typedef struct local_exec_hooks {
    /* NULL, or called with each read of a stream as it arrives, on the
     * thread that runs the command */
    void (*on_output)(void *ctx, sbx_stream stream, const char *data, size_t length);
    void *ctx;                /* passed back to on_output and on_control */
    int control_fd;           /* -1, or polled for input while the command
                               * runs: on_control is called then */
    /* Reads control_fd, which is read only once the command runs in its
     * own process group: `group` (-1 when none is left, the command
     * having ended).  Returns 1 to end the command now (as the timeout) */
    int (*on_control)(void *ctx, pid_t group);
    int stdin_fd;             /* -1: the request's stdin; else the command's
                               * stdin (borrowed; a FIFO or a terminal) */
    int terminal_master;      /* -1; else stdin_fd is the terminal's slave and
                               * the command's stdout and stderr too, and this
                               * master (borrowed) is the one stream read */
    int unbounded;            /* 1: timeout_ms 0 means none, and the result
                               * keeps no output (the hooks have it) */
} local_exec_hooks;

/* A checked request with its sandbox opened and its command planned
 * (allocated before any fork: the run itself allocates nothing). */
typedef struct local_exec_prepared local_exec_prepared;

/* Check `request`, open sandbox `sandbox_id` and plan the command; *out
 * the caller's (local_exec_release).  The errors of local_exec before it
 * runs anything; they, and those of its run, name `call` (a literal:
 * "exec", "process start"). */
sbx_status local_exec_prepare(sbx_backend_instance *inst, const char *sandbox_id,
                              const sbx_exec_request *request, const char *call,
                              local_exec_prepared **out, sbx_error *err);

/* Run a prepared command to its end with `hooks` (NULL: none), as
 * local_exec does.  May run in a forked child (it allocates only the
 * result); not twice on one prepared. */
sbx_status local_exec_run(const local_exec_prepared *prepared, const local_exec_hooks *hooks,
                          sbx_exec_result **out, sbx_error *err);

/* The descriptors a prepared run needs (a forked runner keeps them open):
 * at most 8, into fds[]; their count. */
size_t local_exec_prepared_fds(const local_exec_prepared *prepared, int fds[8]);

/* In a forked child only: the run logs nothing (the host's log callback,
 * and the locks it may take, are the host's). */
void local_exec_prepared_quiet(local_exec_prepared *prepared);

/* Release a prepared run (NULL is fine). */
void local_exec_release(local_exec_prepared *prepared);

/* The descriptor's exec.  SBX_OK when the command ran (whatever its exit;
 * *out the caller's, released with common_exec_result_free);
 * SBX_ERR_USAGE for a malformed request, the kinds of local_open_root for
 * the sandbox and of local_confine_error for working_dir, SBX_ERR_INTERNAL
 * when the processes or pipes cannot be made, SBX_ERR_UNSUPPORTED naming
 * the step of isolation=namespaces that this host refused (the command
 * did not run). */
sbx_status local_exec(sbx_backend_instance *inst, const char *sandbox_id,
                      const sbx_exec_request *request, sbx_exec_result **out, sbx_error *err);

/* The descriptor's operations_info: every operation, the limits of exec
 * above and the largest read or write (LOCAL_MAX_FILE_BYTES). */
sbx_status local_operations_info(sbx_backend_instance *inst, sbx_operations_info *out,
                                 sbx_error *err);

#endif
