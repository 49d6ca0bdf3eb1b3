/* Test support: a child process whose output a test waits on, line by
 * line, with a deadline (a server's "listening on" line, a peer's
 * answers), and which is stopped by a signal and reaped with a deadline
 * too: never by sleeping.  One thread uses a watched child at a time; the
 * child only redirects and execs after fork. */
#ifndef SBX_TEST_WATCHED_CHILD_H
#define SBX_TEST_WATCHED_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/* The stderr_path of sbx_test_child_spawn that joins stderr to stdout. */
#define SBX_TEST_STDERR_TO_STDOUT "-"

typedef struct sbx_test_child {
    pid_t pid;
    int out_fd; /* read end of its stdout: EOF once it (and its heirs) end */
    int in_fd;  /* write end of its stdin, or -1 when it has none of ours */
} sbx_test_child;

/* Fork and exec the program at the path `program` with the arguments
 * `args` (NULL-terminated; NULL: none) after its name, its stdout into a
 * pipe, its stdin from a pipe when `with_stdin` (else inherited),
 * and its stderr inherited (`stderr_path` NULL), joined to stdout
 * (SBX_TEST_STDERR_TO_STDOUT) or appended to the file `stderr_path`.
 * Returns 0, or -1 after saying why on stderr. */
int sbx_test_child_spawn(sbx_test_child *c, const char *program, const char *const *args,
                         const char *stderr_path, int with_stdin);

/* Read one line of `fd` (without its newline; a longer one is cut to
 * `cap` - 1 bytes) before the monotonic `deadline_ms`: 1 read, 0 the
 * deadline passed, -1 end of output or a read error. */
int sbx_test_read_line(int fd, char *line, size_t cap, long deadline_ms);

/* Wait at most `timeout_ms` for the child's first line, which must start
 * with `prefix`: 1 with the rest of it in `rest` (`cap` bytes), else 0
 * after saying on stderr what came instead (nothing, its end, another
 * line). */
int sbx_test_child_expect(sbx_test_child *c, const char *prefix, char *rest, size_t cap,
                          long timeout_ms);

/* Send `signal_number` (0: none), read its stdout until EOF for at most
 * `timeout_ms` (kept in `keep`, `keep_cap` bytes, NUL-terminated; NULL:
 * dropped), SIGKILL it when it did not end by then, close the pipes and
 * reap it.  Returns its exit status, or -1 when it died of a signal. */
int sbx_test_child_finish(sbx_test_child *c, int signal_number, long timeout_ms, char *keep,
                          size_t keep_cap);

#endif
