/*
 * The supervisor of a live process (ABI 1.4): a process forked off the
 * host that started it and detached from it (its own session, reparented
 * when the host exits), so that the process outlives the host.  It runs
 * the command as exec does (local_exec.h: the same reaper or init, the
 * same isolation, limits and ids), writes what the command prints into
 * the output file (local_ring.h), keeps the command's stdin (a FIFO in
 * the process's directory, or the terminal's master, which it feeds from
 * that FIFO) and obeys the messages hosts write on the control FIFO:
 * signal the process group, close stdin, resize the terminal, stop.  It
 * records the end in the output file and exits; while it runs it holds
 * the output file's lock, so a reader tells a killed supervisor from a
 * running one.  It also ends the command, as a running exec does, when
 * the sandbox's record goes (destroy).
 */
#ifndef SBX_LOCAL_SUPERVISOR_H
#define SBX_LOCAL_SUPERVISOR_H

#include "plugin/local/local_exec.h"
#include "plugin/local/local_ring.h"

/* What a control message asks. */
typedef enum local_control_kind {
    LOCAL_CONTROL_STOP = 1,         /* end the process and all it started */
    LOCAL_CONTROL_SIGNAL = 2,       /* a: the signal, to the process group */
    LOCAL_CONTROL_CLOSE_STDIN = 3,  /* the command reads end of file */
    LOCAL_CONTROL_RESIZE = 4        /* a, b: the terminal's rows and columns */
} local_control_kind;

/* What a supervisor starts from (all borrowed). */
typedef struct local_supervisor_plan {
    local_exec_prepared *prepared;  /* the command, planned */
    int dir_fd;                 /* the process's directory (its FIFOs go there) */
    local_ring *ring;           /* its output file, created and locked */
    int stdin_open;             /* stdin stays open for writes */
    int pty;                    /* on a terminal of rows x cols */
    unsigned rows, cols;
} local_supervisor_plan;

/* Make the process's FIFOs (and terminal), fork the supervisor detached
 * from the calling process and return once it runs on its own (the
 * supervisor holds the ring's lock from then on).  SBX_ERR_INTERNAL naming
 * `sandbox_id` and the step that failed (nothing then runs). */
sbx_status local_supervisor_start(const local_supervisor_plan *plan, const char *sandbox_id,
                                  sbx_error *err);

/* Write a control message to the supervisor of the process directory
 * `name` of `table` (or, with name NULL, the directory `table` itself).
 * 1 when it was written, 0 when no supervisor reads (it ended). */
int local_supervisor_ask(int table, const char *name, local_control_kind kind, int a, int b);

#endif
