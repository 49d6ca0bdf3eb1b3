/*
 * The process between the host and a command that exec runs: a child
 * subreaper (PR_SET_CHILD_SUBREAPER), so that every process the command
 * starts -- daemons that setsid or double-fork included -- stays its
 * descendant, is killed (SIGKILL) and reaped before it reports, and so
 * never outlives the exec.  It is a fork of a multi-threaded host: it makes
 * only async-signal-safe calls, on what the host prepared before forking.
 */
#ifndef SBX_LOCAL_REAPER_H
#define SBX_LOCAL_REAPER_H

#include "plugin/local/local_cgroup.h"
#include "plugin/local/local_isolation.h"

/* Everything the reaper and the command need, prepared (allocated) by the
 * host before it forks. */
typedef struct local_reaper_plan {
    char *const *argv;        /* the command's arguments */
    char *const *candidates;  /* the files to execute for argv[0], in order
                               * (the PATH lookup, done before the fork) */
    char **sh_argv;           /* "sh", a candidate, argv[1..], NULL: to run a
                               * file without a #! line, as a shell does */
    char *const *envp;        /* the command's whole environment */
    int cwd_fd;               /* its working directory (O_PATH) */
    int stdin_fd, stdout_fd, stderr_fd;  /* its ends of its standard streams */
    int stop_fd;              /* readable or at EOF: end everything now */
    int report_fd;            /* where the local_reaper_report goes */
    long fd_limit;            /* local_child_fd_limit() */
    const local_isolation_plan *isolation;  /* NULL: isolation=none */
    int terminal;             /* 1: the streams are a terminal, which becomes
                               * the command's controlling one (SIGWINCH) */
    int announce;             /* 1: a notice (local_reaper_report.notice)
                               * precedes the report, once the command's
                               * process group exists */
    const local_cgroup_join *cgroup;  /* the sandbox's cgroups, entered first;
                                       * NULL or none open: no limits */
} local_reaper_plan;

/* What the reaper writes once every process is gone (an isolated exec's
 * init started by local_spawn.c writes it just before its exit ends the
 * rest, and the host reads it once the init ended). */
typedef struct local_reaper_report {
    int status;    /* the command's wait status when `ended` */
    int ended;     /* 1: the command ended (exited or killed) and was reaped */
    int stopped;   /* 1: the stop came while the command still ran */
    int error;     /* 0, or the errno that kept the command from starting */
    int stage;     /* 0, or the isolation step `error` stopped
                    * (local_isolation_stage_text) */
    int notice;    /* 1: not the report but the notice that the command
                    * runs in its own process group with its signals at
                    * their defaults (or failed to start): a signal to the
                    * group from then on reaches it.  The report follows. */
} local_reaper_report;

/* Run in the child the host forked: become a subreaper, start the command
 * in a new session (announced when the plan asks), wait until it ends or the stop comes, SIGKILL and reap
 * every descendant, write the report and _exit.  Never returns. */
_Noreturn void local_reaper_run(const local_reaper_plan *plan);

#endif
