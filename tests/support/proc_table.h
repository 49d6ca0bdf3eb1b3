/* Test support: the host's process table, read from /proc, for suites that
 * check which processes a backend left running. */
#ifndef SBX_TEST_PROC_TABLE_H
#define SBX_TEST_PROC_TABLE_H

#include <stddef.h>

/* One process as /proc shows it.  `args` holds its arguments
 * NUL-separated (`args_len` bytes, then a NUL); `line` the same arguments
 * joined by spaces.  Both are empty for a zombie (it ran its course) and
 * cut at 8 KiB; they are valid only during the visit. */
typedef struct sbx_test_process {
    long pid;
    long ppid; /* 0 when /proc/PID/stat could not be read */
    const char *args;
    size_t args_len;
    const char *line;
} sbx_test_process;

/* Call `visit` with `ctx` for each process in /proc until it returns
 * nonzero.  Returns that value, or 0 when every process was visited (or
 * /proc cannot be read). */
int sbx_test_proc_each(int (*visit)(const sbx_test_process *p, void *ctx), void *ctx);

/* 1 when process `pid` (a child of ours or not) has ended -- exited, a
 * zombie, or gone already -- before the monotonic `deadline_ms`
 * (tests/support/clock.h); 0 when it still runs then.  Waits on its pidfd
 * (Linux 5.3), never a pause. */
int sbx_test_wait_process_end(long pid, long deadline_ms);

#endif
