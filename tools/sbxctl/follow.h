/* Following a live process of a sandbox (logs, attach, exec -i/-t): its
 * output written to sbxctl's stdout and stderr as it comes, and optionally
 * sbxctl's stdin written to the process, sbxctl's signals passed on to it,
 * sbxctl's terminal in raw mode and its size kept in step.  Memory stays
 * bounded: each read's bytes are written out and released. */
#ifndef CTL_FOLLOW_H
#define CTL_FOLLOW_H

#include <sbx/host.h>

#include "tools/sbxctl/output.h"

/* How long one read waits for output, in milliseconds: a bound, not a
 * delay (a read answers as soon as a byte or the end is there). */
#define CTL_FOLLOW_WAIT_MS 2000

/* What to follow and how.  Strings and the backend are borrowed. */
typedef struct ctl_follow_request {
    const ctl_output *out;  /* prints a failed stdin write (forwarding then stops) */
    sbx_backend *backend;
    const char *sandbox_id;
    const char *process_id;
    int until_end;         /* non-zero: until the process ends; 0: what it has
                            * printed so far, then return */
    int forward_stdin;     /* sbxctl's stdin is written to the process as it comes */
    int close_stdin_at_eof; /* with forward_stdin: end of file on sbxctl's stdin
                            * closes the process's stdin */
    int terminal;          /* the process runs on a terminal: sbxctl's goes raw
                            * (with forward_stdin) and its size follows SIGWINCH */
    int forward_signals;   /* SIGINT, SIGTERM, SIGHUP and SIGQUIT that sbxctl gets
                            * go to the process (see ctl_follow_block_signals) */
} ctl_follow_request;

/* How the followed process ended, when it did. */
typedef struct ctl_follow_end {
    int ended;                   /* non-zero: the process ended and all its output
                                  * was written */
    sbx_exec_outcome outcome;
    int exit_code;
    int term_signal;
} ctl_follow_end;

/* Block the signals a follow with forward_signals passes on, in the
 * calling thread: call it before any other thread exists, so that no
 * thread of the library takes them.  They are unblocked when the follow
 * ends. */
void ctl_follow_block_signals(void);

/* Follow as `request` says; the terminal is put back on every return.
 * Bytes dropped because the reader fell behind are reported on stderr as
 * sbxctl's own lines.  Returns SBX_OK (end says whether the process ended)
 * or the failed call's status with `err`; SBX_ERR_INTERNAL when sbxctl's
 * stdout or stderr cannot be written. */
sbx_status ctl_follow(const ctl_follow_request *request, ctl_follow_end *end, sbx_error *err);

#endif
