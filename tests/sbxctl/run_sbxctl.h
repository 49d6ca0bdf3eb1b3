/* Run the built sbxctl ($SBXCTL_BIN) as a child process and capture what a
 * user would see: stdout, stderr and the exit status. */
#ifndef SBX_TEST_RUN_SBXCTL_H
#define SBX_TEST_RUN_SBXCTL_H

#include <stddef.h>

/* What one run produced.  `out` and `err` are NUL-terminated and owned by
 * the struct (release with sbx_test_run_clear). */
typedef struct sbx_test_run {
    int exit_code;      /* the exit status, or -1 when killed or not started */
    int timed_out;      /* non-zero: the deadline passed and the child was killed */
    char *out;
    size_t out_len;
    char *err;
    size_t err_len;
} sbx_test_run;

/* Run $SBXCTL_BIN with the NULL-terminated `args` (argv[1..]) and the
 * current environment changed by `env` (NULL-terminated, may be NULL):
 * "NAME=VALUE" sets, "NAME" removes.  Waits at most `timeout_ms` (poll() on
 * the pipes, no sleeping), then kills the child.  Returns 0 when the child
 * ran to its end, -1 when it could not be started or timed out (with a
 * message on stderr). */
int sbx_test_run_sbxctl(const char *const *args, const char *const *env, int timeout_ms,
                        sbx_test_run *run);

/* As sbx_test_run_sbxctl, with stdin read from the file `stdin_path`
 * (sbx_test_run_sbxctl gives it /dev/null). */
int sbx_test_run_sbxctl_stdin(const char *const *args, const char *const *env,
                              const char *stdin_path, int timeout_ms, sbx_test_run *run);

/* Release what a run holds. */
void sbx_test_run_clear(sbx_test_run *run);

/* Number of lines (newline-terminated) in `text`. */
size_t sbx_test_count_lines(const char *text);

struct json_object;

/* Parse a run's stdout as exactly one JSON object followed by one newline
 * and nothing else: strict JSON (json-c's JSON_TOKENER_STRICT), valid UTF-8,
 * no raw control byte.  NULL when it is anything else (the text is reported
 * on stderr); the caller puts the result. */
struct json_object *sbx_test_run_json(const sbx_test_run *run);

/* Bind a TCP socket to 127.0.0.1 on an ephemeral port without listening,
 * so that connections to the port are refused while the socket is open.
 * Returns the socket (close it when done) and sets *port, or -1. */
int sbx_test_refusing_port(int *port);

/* A TCP socket listening on 127.0.0.1 on an ephemeral port, so that
 * connections to the port wait to be accepted.  Returns the socket (close
 * it when done) and sets *port, or -1. */
int sbx_test_listening_port(int *port);

#endif
