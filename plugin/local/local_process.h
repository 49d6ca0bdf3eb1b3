/*
 * The processes that serve local sandboxes: started detached in their own
 * session and process group, recognised later (also from other processes)
 * by pid plus kernel start time, so that a recycled pid is never mistaken
 * for (or signalled as) a sandbox.
 */
#ifndef SBX_LOCAL_PROCESS_H
#define SBX_LOCAL_PROCESS_H

#include "plugin/local/local_server.h"

#include <sbx/backend.h>

/* A sandbox process: its pid (also its process group id) and start time in
 * clock ticks since boot (/proc/PID/stat field 22). */
typedef struct local_process {
    long pid;
    unsigned long long start_time;
} local_process;

/* A sandbox process being started, between local_process_start and
 * local_launch_release. */
typedef struct local_launch {
    long watcher_pid;   /* the shell's parent until released; 0: none */
    int go_fd;          /* the host's end of the go channel; -1 once used */
    int status_fd;      /* readable when the shell exited (its wait status
                         * follows) or the watcher is gone (EOF); -1: none */
    int ready_fd;       /* network=none: local_server's ready_read, moved
                         * here by the caller; -1: none */
} local_launch;

#define LOCAL_LAUNCH_INIT { 0, -1, -1, -1 }

/* What local_process_start runs: `/bin/sh -c text`, its environment the
 * one it starts with (the host's, or the isolated command's) with `env`'s
 * "NAME=value" strings (env_count of them, names distinct) set over it.
 * The sandbox's env travels there, never in the text: a command line is
 * readable by every user of the machine (/proc/PID/cmdline), an
 * environment only by the process's owner. */
typedef struct local_shell_command {
    const char *text;
    char *const *env;
    size_t env_count;
} local_shell_command;

/* Start `/bin/sh -c command->text` detached, in its own session and
 * process group, stdin from /dev/null, stdout and stderr to `log_fd`, no
 * other inherited descriptor, signals reset; the host never has to reap
 * it.  The shell waits, holding nothing of the host's, until
 * local_process_go (so that the caller can record *out first); if the
 * host dies before, the shell never starts.  With `server` (borrowed
 * until this returns; NULL: none) the shell's process joins the isolated
 * sandbox's namespaces first (local_server_enter).  On success *out names
 * the shell's process and *launch must be released with local_launch_release.
 * SBX_ERR_INTERNAL when it cannot be started.  Thread-safe (only
 * async-signal-safe calls between fork and exec). */
sbx_status local_process_start(const local_shell_command *command, int log_fd,
                               const local_server *server, local_process *out,
                               local_launch *launch, sbx_error *err);

/* Let the started shell run its command.  SBX_ERR_INTERNAL when it is
 * gone. */
sbx_status local_process_go(local_launch *launch, sbx_error *err);

/* 1 with the shell's wait status in *status when it has exited (known at
 * once while the launch is held; never blocks), else 0. */
int local_launch_exit_status(local_launch *launch, int *status);

/* Stop watching the shell (it runs on, adopted by init) and free what the
 * launch holds; a shell still waiting for go never starts.  Accepts
 * LOCAL_LAUNCH_INIT and a released launch. */
void local_launch_release(local_launch *launch);

/* Name the running process `pid` (its start time read from /proc) in
 * *out: 1, or 0 when it does not exist. */
int local_process_identify(long pid, local_process *out);

/* 1 when `proc` still runs (not a zombie) and is the same process that was
 * started (same start time), else 0. */
int local_process_is_running(const local_process *proc);

/* Stop the process group of `proc` if it is still ours: SIGTERM, wait up to
 * timeout_ms for the shell to exit, then SIGKILL the group.  SBX_OK when it
 * is gone (or was already); SBX_ERR_INTERNAL when it cannot be signalled
 * or outlives SIGKILL. */
sbx_status local_process_stop(const local_process *proc, long timeout_ms,
                              sbx_error *err);

#endif
