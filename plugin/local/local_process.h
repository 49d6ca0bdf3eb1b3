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

/* A sandbox process being started, between sbx_local_process_start and
 * sbx_local_launch_release. */
typedef struct sbx_local_launch {
    long watcher_pid;   /* the shell's parent until released; 0: none */
    int go_fd;          /* the host's end of the go channel; -1 once used */
    int status_fd;      /* readable when the shell exited (its wait status
                         * follows) or the watcher is gone (EOF); -1: none */
} sbx_local_launch;

#define SBX_LOCAL_LAUNCH_INIT { 0, -1, -1 }

/* Start `/bin/sh -c shell_command` detached, in its own session and
 * process group, stdin from /dev/null, stdout and stderr to `log_fd`, no
 * other inherited descriptor, signals reset; the host never has to reap
 * it.  The shell waits, holding nothing of the host's, until
 * sbx_local_process_go (so that the caller can record *out first); if the
 * host dies before, the shell never starts.  On success *out names the
 * shell and *launch must be released with sbx_local_launch_release.
 * SBX_ERR_INTERNAL when it cannot be started.  Thread-safe (only
 * async-signal-safe calls between fork and exec). */
sbx_status sbx_local_process_start(const char *shell_command, int log_fd,
                                   sbx_local_process *out, sbx_local_launch *launch,
                                   sbx_error *err);

/* Let the started shell run its command.  SBX_ERR_INTERNAL when it is
 * gone. */
sbx_status sbx_local_process_go(sbx_local_launch *launch, sbx_error *err);

/* 1 with the shell's wait status in *status when it has exited (known at
 * once while the launch is held; never blocks), else 0. */
int sbx_local_launch_exit_status(sbx_local_launch *launch, int *status);

/* Stop watching the shell (it runs on, adopted by init) and free what the
 * launch holds; a shell still waiting for go never starts.  Accepts
 * SBX_LOCAL_LAUNCH_INIT and a released launch. */
void sbx_local_launch_release(sbx_local_launch *launch);

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
