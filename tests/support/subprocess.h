/* Test support: child processes and their output pipes, waited on with
 * poll() against a deadline (tests never sleep).  Used to run the emulator
 * and short-lived tools (the openssl CLI that makes test certificates).
 * Thread-safe: each call has its own pipe and child, and a child only
 * redirects and execs after fork. */
#ifndef SBX_TEST_SUBPROCESS_H
#define SBX_TEST_SUBPROCESS_H

#include <stddef.h>

/* Wait until `fd` is readable (data, EOF or hang-up) or the monotonic
 * `deadline_ms` (tests/support/clock.h) passes: 1 readable, 0 deadline
 * passed, -1 poll failed. */
int sbx_test_wait_readable(int fd, long deadline_ms);

/* Read `fd` until EOF (1) or the deadline or an error (0).  What is read
 * goes into `keep` (NUL-terminated, truncated to `keep_cap` bytes) when it
 * is not NULL, and is discarded otherwise. */
int sbx_test_read_until_eof(int fd, char *keep, size_t keep_cap, long deadline_ms);

/* Run `argv` (argv[0] looked up in PATH; NULL-terminated) with stdin from
 * /dev/null and stdout+stderr into `output` (NUL-terminated, truncated to
 * `output_cap` bytes; may be NULL), for at most `timeout_ms`; a child
 * still running then is killed.  Returns its exit status (127: it could not
 * be executed, e.g. not installed), or -1 when it could not be started,
 * ran out of time or died of a signal (`output` then says which). */
int sbx_test_run_program(const char *const *argv, long timeout_ms, char *output,
                         size_t output_cap);

#endif
