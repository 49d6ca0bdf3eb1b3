/* Test support for sbx-provisiond: the daemon as a real child process on
 * 127.0.0.1 (started from the build tree, its listening line read with
 * poll() against a deadline, stopped with SIGTERM and its exit status
 * returned), and a daemon over the local backend in a private temporary
 * directory.  Thread-safe as far as each call uses its own process. */
#ifndef SBX_TESTS_PROVD_PROCESS_H
#define SBX_TESTS_PROVD_PROCESS_H

#include <sbx/host.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct provd_proc provd_proc;

/* The daemon built in $SBX_TEST_BUILDDIR, or $SBX_PROVISIOND_BIN when set. */
const char *provd_bin(void);

/* Run the daemon with `args` (NULL-terminated; the program name is added),
 * its stderr appended to `stderr_path` (NULL: the test's stderr), and wait
 * at most 10 s for its listening line.  Returns NULL (with a message on
 * stderr) when it exits or says nothing; else stop it with provd_stop. */
provd_proc *provd_start(const char *const *args, const char *stderr_path);

/* Run the daemon with `args` as provd_start does, without waiting for it
 * to listen (a test of its start).  NULL (message on stderr) when it
 * cannot run; else end it with provd_wait_exit. */
provd_proc *provd_spawn(const char *const *args, const char *stderr_path);

/* Wait at most `timeout_ms` for it to exit on its own (SIGKILL then), keep
 * what it wrote to stdout in `output` (`output_cap` bytes, NUL-terminated),
 * free `p`.  Returns its exit status, or -1 when it died of a signal or had
 * to be killed. */
int provd_wait_exit(provd_proc *p, long timeout_ms, char *output, size_t output_cap);

/* What one request sends: `method` to the daemon's URL + `path`, with
 * `body` (NULL: none; else sent as JSON).  Everything borrowed. */
typedef struct provd_send {
    const char *method;
    const char *path;
    const char *body;
} provd_send;

/* Send `send` to `base`, waiting at most `timeout_ms`: the HTTP status (-1
 * when no complete answer came), with the answer's body in `answer`
 * (`answer_cap` bytes, NUL-terminated; NULL: dropped). */
long provd_request(const char *base, provd_send send, long timeout_ms, char *answer,
                   size_t answer_cap);

/* provd_request of a create of `id` for `user` on thread "t". */
long provd_create(const char *base, const char *id, const char *user, long timeout_ms,
                  char *answer, size_t answer_cap);

/* A sandbox token: 64 lowercase hex digits. */
#define PROVD_TEST_TOKEN_LEN 64

/* A raw TCP connection to the daemon at `url` ("http://127.0.0.1:PORT");
 * -1 on failure. */
int provd_connect(const char *url);

/* Create sandbox `id` for `user` on the daemon at `url` and put its
 * token, from the create's sandbox_url, in `token` (PROVD_TEST_TOKEN_LEN
 * + 1 bytes).  Returns 1, or 0 after a CUnit failure. */
int provd_create_token(const char *url, const char *id, const char *user, char *token);

/* Whether a process whose command line holds `marker` runs (a zombie's
 * command line is empty: it ran its course). */
int provd_running_with(const char *marker);

/* Its base URL ("http://127.0.0.1:PORT"); owned by `p`. */
const char *provd_url(const provd_proc *p);

/* Its process id. */
pid_t provd_pid(const provd_proc *p);

/* Send `signal_number`, wait at most 10 s for it to exit (SIGKILL then),
 * free `p`.  Returns its exit status, or -1 when it died of a signal or
 * had to be killed.  NULL gives -1. */
int provd_stop_with(provd_proc *p, int signal_number);

/* provd_stop_with(p, SIGTERM). */
int provd_stop(provd_proc *p);

/* Run the daemon with `args` expecting it to refuse to start: its exit
 * status (-1: it started, was killed, or could not run), with what it
 * wrote to stderr and stdout in `output` (`output_cap` bytes). */
int provd_run_refused(const char *const *args, char *output, size_t output_cap);

/* A daemon over the local backend with a fresh private directory DIR:
 * the backend's state in DIR/local, the ownership records in DIR/owners
 * (with_state_dir), its stderr in DIR/stderr. */
typedef struct provd_local {
    char dir[256];
    char local_dir[300];
    char owners_dir[300];
    char stderr_path[300];
    provd_proc *proc;
} provd_local;

/* Make the directory and start the daemon with `extra` arguments (NULL:
 * none) added.  Returns 1, or 0 after a CUnit failure (nothing left). */
int provd_local_start(provd_local *d, int with_state_dir, const char *const *extra);

/* As provd_local_start, over the docker backend instead: the engine at
 * the unix socket `socket`, containers of `image` serving a page with
 * busybox httpd on 8080, the ownership records in DIR/owners (d->local_dir
 * is unused).  Returns 1, or 0 after a CUnit failure (nothing left). */
int provd_docker_start(provd_local *d, const char *socket, const char *image,
                       const char *const *extra);

/* As provd_docker_start, the containers a plain image's with nothing
 * serving in them (a long sleep; create does not wait for a server):
 * the daemon's sandbox API is all there is to reach them through. */
int provd_docker_start_plain(provd_local *d, const char *socket, const char *image,
                             const char *const *extra);

/* The daemon over the local backend under `d` (started with a state dir
 * unless it runs) and the remote backend on it in *remote, its host in
 * *host, made once for a suite: 1 when *remote is open, else 0 after a
 * CUnit failure (the error on stderr). */
int provd_local_remote_up(provd_local *d, sbx_host **host, sbx_backend **remote);

/* Start the daemon again on the same directories (after provd_local_stop
 * with keep_dir).  Returns 1, or 0 after a CUnit failure. */
int provd_local_restart(provd_local *d, int with_state_dir, const char *const *extra);

/* Stop the daemon (its exit status is returned) and, unless `keep_dir`,
 * remove the directory. */
int provd_local_stop(provd_local *d, int keep_dir);

/* The ids of the sandboxes the local backend has in d->local_dir, read
 * through the host library without the daemon, as one string "a,b,c"
 * sorted (the caller frees), or NULL when it cannot list. */
char *provd_local_ids(const provd_local *d);

/* The SBX_CREATE_* members the local backend under `d` honours
 * (operations_info), read through the host library; 0 when it cannot
 * open. */
unsigned provd_local_create_fields(const provd_local *d);

/* Whether the daemon's stderr (d->stderr_path) says `text` within
 * `timeout_ms` (read again every 10 ms). */
int provd_local_stderr_says(const provd_local *d, long timeout_ms, const char *text);

/* How many lines of the daemon's stderr (d->stderr_path) hold `text`,
 * read now; 0 when it cannot be read. */
int provd_local_stderr_count(const provd_local *d, const char *text);

#endif
