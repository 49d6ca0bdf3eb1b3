/*
 * The processes that serve local sandboxes: started detached in their own
 * session and process group, recognised later (also from other processes)
 * by pid plus kernel start time, so that a recycled pid is never mistaken
 * for (or signalled as) a sandbox.
 */
#ifndef SBX_LOCAL_PROCESS_H
#define SBX_LOCAL_PROCESS_H

#include <sbx/backend.h>

/* A sandbox process: its pid (also its process group id) and start time in
 * clock ticks since boot (/proc/PID/stat field 22). */
typedef struct sbx_local_process {
    long pid;
    unsigned long long start_time;
} sbx_local_process;

/* Run `/bin/sh -c shell_command` detached: double fork, so that the host
 * never has to reap it, setsid, stdin from /dev/null, stdout and stderr
 * appended to `log_path`, no other inherited descriptors.  On success *out
 * names the running shell.  SBX_ERR_INTERNAL when it cannot be started.
 * Thread-safe (only async-signal-safe calls between fork and exec). */
sbx_status sbx_local_process_spawn(const char *shell_command, const char *log_path,
                                   sbx_local_process *out, sbx_error *err);

/* 1 when `proc` still runs (not a zombie) and is the same process that was
 * started (same start time), else 0. */
int sbx_local_process_is_running(const sbx_local_process *proc);

/* Stop the process group of `proc` if it is still ours: SIGTERM, wait up to
 * timeout_ms for the shell to exit, then SIGKILL the group.  SBX_OK when it
 * is gone (or was already); SBX_ERR_INTERNAL when it cannot be signalled
 * or outlives SIGKILL. */
sbx_status sbx_local_process_stop(const sbx_local_process *proc, long timeout_ms,
                                  sbx_error *err);

#endif
