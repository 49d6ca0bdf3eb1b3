/*
 * The docker backend's sandbox operations (ABI 1.3: exec and the file
 * calls) through the host library, against a real engine started by
 * docker-suite.sh (podman or dockerd, same expectations on both).  The
 * sandboxes run the suite's busybox image.
 */
#include <config.h>

#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/docker_engine.h"
#include "tests/support/http_probe.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SANDBOX "ops-one"

static int suite_init(void)
{
    sbx_error err;
    if (sbx_test_docker_suite_init() != 0)
        return 1;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = SANDBOX;
    sbx_sandbox *sb = NULL;
    if (sbx_backend_create(sbx_test_docker.backend, &req, &sb, &err) != SBX_OK) {
        fprintf(stderr, "create: %s\n", err.message);
        return 1;
    }
    sbx_backend_free_sandboxes(sbx_test_docker.backend, sb, 1);
    return 0;
}

static int suite_clean(void)
{
    sbx_error err;
    sbx_backend_destroy(sbx_test_docker.backend, SANDBOX, &err);
    return sbx_test_docker_suite_clean();
}

/* What a test runs: argv or shell text, with stdin, a timeout and an
 * output cap (0: the defaults). */
typedef struct exec_args {
    const char *const *argv;
    const char *text;
    const void *input;
    size_t input_len;
    int64_t timeout_ms;
    size_t cap;
} exec_args;

/* Run `a` in `sandbox`; *st the status. */
static sbx_exec_result *run_full(const char *sandbox, const exec_args *a, sbx_status *st)
{
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.argv = a->argv;
    r.shell_command = a->text;
    r.stdin_data = a->input;
    r.stdin_length = a->input_len;
    r.timeout_ms = a->timeout_ms;
    r.max_output_bytes = a->cap;
    sbx_exec_result *out = NULL;
    sbx_error err;
    *st = sbx_backend_exec(sbx_test_docker.backend, sandbox, &r, &out, &err);
    if (*st != SBX_OK)
        fprintf(stderr, "exec: %s\n", err.message);
    return out;
}

static sbx_exec_result *sh(const char *text)
{
    sbx_status st;
    sbx_exec_result *r = run_full(SANDBOX, &(exec_args){ .text = text }, &st);
    CU_ASSERT_FATAL(st == SBX_OK && r != NULL);
    return r;
}

static void expect_exit(const char *text, int code)
{
    sbx_exec_result *r = sh(text);
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(r->exit_code, code);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
}

static void test_exit_codes(void)
{
    expect_exit("exit 0", 0);
    expect_exit("exit 1", 1);
    expect_exit("exit 255", 255);
    expect_exit("no-such-program-here", 127);
    sbx_status st;
    const char *argv[] = { "/no/such/program", "x", NULL };
    sbx_exec_result *r = run_full(SANDBOX, &(exec_args){ .argv = argv }, &st);
    CU_ASSERT_FATAL(st == SBX_OK);
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(r->exit_code, 127);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    r = sh("kill -9 $$");
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_SIGNALED);
    CU_ASSERT_EQUAL(r->term_signal, 9);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
}

static void test_output_streams_binary_and_cap(void)
{
    sbx_exec_result *r = sh("printf 'a\\000b'; printf 'err\\n' >&2");
    CU_ASSERT_EQUAL(r->stdout_length, 3);
    CU_ASSERT(memcmp(r->stdout_data, "a\0b", 3) == 0);
    CU_ASSERT_EQUAL(r->stderr_length, 4);
    CU_ASSERT(memcmp(r->stderr_data, "err\n", 4) == 0);
    CU_ASSERT(!r->stdout_truncated && !r->stderr_truncated);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    /* 3 MiB through a 1000-byte cap: the first bytes kept, the rest read. */
    sbx_status st;
    r = run_full(SANDBOX,
                 &(exec_args){ .text = "dd if=/dev/zero bs=65536 count=48 2>/dev/null; "
                                       "echo done >&2",
                               .cap = 1000 },
                 &st);
    CU_ASSERT_FATAL(st == SBX_OK);
    CU_ASSERT_EQUAL(r->stdout_length, 1000);
    CU_ASSERT(r->stdout_truncated);
    CU_ASSERT_STRING_EQUAL(r->stderr_data, "done\n");
    CU_ASSERT_EQUAL(r->exit_code, 0);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
}

/* Run `text`: exit `code`, stderr exactly `want` (`want_len` bytes). */
static void expect_stderr(const char *text, int code, const char *want, size_t want_len)
{
    sbx_exec_result *r = sh(text);
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(r->exit_code, code);
    CU_ASSERT_EQUAL(r->stderr_length, want_len);
    CU_ASSERT(r->stderr_length == want_len && memcmp(r->stderr_data, want, want_len) == 0);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
}

/* The exit code travels at the end of stderr: whatever a command writes
 * there, and however it ends, reaches the user as written. */
static void test_stderr_exact_and_exit_code_whatever_it_says(void)
{
    expect_stderr("printf 'no newline' >&2; exit 3", 3, "no newline", 10);
    expect_stderr("printf '' >&2; exit 4", 4, "", 0);
    expect_stderr("printf 'a\\n\\n' >&2; exit 6", 6, "a\n\n", 3);
    expect_stderr("echo 'sbx-exec: exit 7' >&2; exit 0", 0, "sbx-exec: exit 7\n", 17);
    expect_stderr("printf '\\nsbx-exec 0123456789abcdef: exit 9\\n' >&2; exit 5", 5,
                  "\nsbx-exec 0123456789abcdef: exit 9\n", 35);
    expect_stderr("printf 'sbx-exec: pid 1\\n' >&2; exit 2", 2, "sbx-exec: pid 1\n", 16);
    /* A process the command leaves behind writes after the command ended:
     * the exit code is the command's either way.  dockerd's stream waits
     * for it, podman's may end with the exec's process: "late" or nothing,
     * never the wrapper's words. */
    sbx_exec_result *r = sh("(sleep 0.2; echo late >&2) & exit 8");
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(r->exit_code, 8);
    CU_ASSERT(r->stderr_length <= 5 && memcmp(r->stderr_data, "late\n", r->stderr_length) == 0);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
}

static void test_stdin_env_and_working_dir(void)
{
    size_t n = 1 << 20;
    unsigned char *bytes = malloc(n);
    CU_ASSERT_FATAL(bytes != NULL);
    for (size_t i = 0; i < n; i++)
        bytes[i] = (unsigned char)(i * 7 + i / 251);
    sbx_status st;
    const char *cat[] = { "cat", NULL };
    sbx_exec_result *r = run_full(
        SANDBOX, &(exec_args){ .argv = cat, .input = bytes, .input_len = n, .cap = 2 << 20 }, &st);
    CU_ASSERT_FATAL(st == SBX_OK);
    CU_ASSERT_EQUAL(r->stdout_length, n);
    CU_ASSERT(memcmp(r->stdout_data, bytes, n) == 0);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    free(bytes);

    sbx_env_var env[] = { { "VALUE", "a b'\"$(echo no);`x`\nline2" }, { "_X1", "" } };
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    req.shell_command = "printf '%s|%s' \"$VALUE\" \"${_X1-unset}\"; pwd >&2";
    req.env = env;
    req.env_count = 2;
    req.working_dir = "tmp";
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_exec(sbx_test_docker.backend, SANDBOX, &req, &r, &err) == SBX_OK);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "a b'\"$(echo no);`x`\nline2|");
    CU_ASSERT_STRING_EQUAL(r->stderr_data, "/tmp\n");
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);

    req.working_dir = "/no/such/dir";
    CU_ASSERT_EQUAL(sbx_backend_exec(sbx_test_docker.backend, SANDBOX, &req, &r, &err),
                    SBX_ERR_NO_SUCH_PATH);
    req.working_dir = NULL;
    sbx_env_var bad[] = { { "1BAD", "x" } };
    req.env = bad;
    req.env_count = 1;
    CU_ASSERT_EQUAL(sbx_backend_exec(sbx_test_docker.backend, SANDBOX, &req, &r, &err),
                    SBX_ERR_USAGE);
    sbx_env_var eq[] = { { "A=B", "x" } };
    req.env = eq;
    CU_ASSERT_EQUAL(sbx_backend_exec(sbx_test_docker.backend, SANDBOX, &req, &r, &err),
                    SBX_ERR_USAGE);
}

/* The processes of the container whose command line holds `word`
 * (read with the shell alone: the image has no ps). */
static int processes_with(const char *word)
{
    char text[256];
    snprintf(text, sizeof text,
             "n=0; for p in /proc/[0-9]*; do read -r l < $p/cmdline 2>/dev/null; "
             "case \"$l\" in *%s*) n=$((n+1));; esac; done; echo $n", word);
    sbx_exec_result *r = sh(text);
    int n = atoi(r->stdout_data);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    return n;
}

static void test_timeout_kills_command_and_children(void)
{
    sbx_status st;
    /* A child in the background and one in the foreground, both holding
     * the stream open. */
    sbx_exec_result *r = run_full(
        SANDBOX, &(exec_args){ .text = "sleep 3111 & sleep 3112; echo never", .timeout_ms = 1500 },
        &st);
    CU_ASSERT_FATAL(st == SBX_OK);
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_TIMED_OUT);
    CU_ASSERT_EQUAL(r->exit_code, -1);
    CU_ASSERT(r->duration_ms >= 1500 && r->duration_ms < 30000);
    CU_ASSERT(strstr(r->stdout_data, "never") == NULL);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    CU_ASSERT_EQUAL(processes_with("311[1-3]"), 0);
    /* A daemon that detaches its output does not hold the exec. */
    r = run_full(SANDBOX,
                 &(exec_args){ .text = "sleep 3113 >/dev/null 2>&1 & echo started",
                               .timeout_ms = 20000 },
                 &st);
    CU_ASSERT_FATAL(st == SBX_OK);
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "started\n");
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    expect_exit("kill $(for p in /proc/[0-9]*; do read -r l < $p/cmdline; "
                "case \"$l\" in *311[3]*) echo ${p#/proc/};; esac; done) 2>/dev/null; exit 0", 0);
}

/* An exec with a cancel_fd, on its own thread. */
typedef struct cancel_run {
    size_t request_size;
    const char *text;
    int cancel_fd;
    sbx_status st;
    sbx_exec_result *result;
} cancel_run;

static void *exec_with_cancel(void *arg)
{
    cancel_run *c = arg;
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.struct_size = c->request_size;
    r.shell_command = c->text;
    r.timeout_ms = 120000;
    r.cancel_fd = c->cancel_fd;
    sbx_error err;
    c->st = sbx_backend_exec(sbx_test_docker.backend, SANDBOX, &r, &c->result, &err);
    if (c->st != SBX_OK)
        fprintf(stderr, "exec: %s\n", err.message);
    return NULL;
}

/* A caller whose client went away closes the other end of cancel_fd: the
 * command and the one it left in the background end as at the timeout,
 * long before their 60 s. */
static void test_cancel_fd_hang_up_ends_command(void)
{
    int ends[2];
    CU_ASSERT_FATAL(pipe(ends) == 0);
    cancel_run run = { sizeof(sbx_exec_request), "sleep 60 & sleep 60; echo never", ends[0],
                       SBX_OK, NULL };
    pthread_t th;
    CU_ASSERT_FATAL(pthread_create(&th, NULL, exec_with_cancel, &run) == 0);
    /* busybox's read drops cmdline's NULs: "sleep60". */
    long deadline = sbx_test_now_ms() + 60000;
    while (processes_with("sleep*6[0]") < 2 && sbx_test_now_ms() < deadline)
        continue;
    long closed_at = sbx_test_now_ms();
    close(ends[1]);
    pthread_join(th, NULL);
    close(ends[0]);
    CU_ASSERT_FATAL(run.st == SBX_OK && run.result != NULL);
    CU_ASSERT_EQUAL(run.result->outcome, SBX_EXEC_TIMED_OUT);
    CU_ASSERT_EQUAL(run.result->exit_code, -1);
    CU_ASSERT(sbx_test_now_ms() - closed_at < 30000);
    CU_ASSERT(strstr(run.result->stdout_data, "never") == NULL);
    sbx_backend_free_exec_result(sbx_test_docker.backend, run.result);
    CU_ASSERT_EQUAL(processes_with("sleep*6[0]"), 0);
}

/* A request built before cancel_fd (its size without it) has none: a
 * descriptor already hung up where the member would be ends nothing. */
static void test_cancel_fd_beyond_the_request_size(void)
{
    int ends[2];
    CU_ASSERT_FATAL(pipe(ends) == 0);
    close(ends[1]);
    cancel_run run = { offsetof(sbx_exec_request, cancel_fd), "sleep 1; echo done", ends[0],
                       SBX_OK, NULL };
    exec_with_cancel(&run);
    close(ends[0]);
    CU_ASSERT_FATAL(run.st == SBX_OK && run.result != NULL);
    CU_ASSERT_EQUAL(run.result->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_STRING_EQUAL(run.result->stdout_data, "done\n");
    sbx_backend_free_exec_result(sbx_test_docker.backend, run.result);
}

/* The hostname of sandbox `id`'s container (its id's first 12 digits),
 * into `out`; "" when the exec fails, *st its status. */
static void hostname_of(const char *id, char *out, size_t size, sbx_status *st)
{
    sbx_exec_result *r = run_full(id, &(exec_args){ .text = "cat /etc/hostname" }, st);
    snprintf(out, size, "%s", r != NULL ? r->stdout_data : "");
    if (r != NULL)
        sbx_backend_free_exec_result(sbx_test_docker.backend, r);
}

static void stop_container(const char *id)
{
    char url[256];
    snprintf(url, sizeof url, "http://localhost/v1.41/containers/sbx-%s/stop?t=0", id);
    sbx_test_http_result h;
    CU_ASSERT_FATAL(sbx_test_http_unix(sbx_test_docker.socket, "POST", url, "", 30000L, &h) == 0);
    sbx_test_http_result_clear(&h);
}

static void create_sandbox(const char *id)
{
    sbx_error err;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    sbx_sandbox *sb = NULL;
    CU_ASSERT_FATAL(sbx_backend_create(sbx_test_docker.backend, &req, &sb, &err) == SBX_OK);
    sbx_backend_free_sandboxes(sbx_test_docker.backend, sb, 1);
}

static void test_gone_sandboxes(void)
{
    sbx_status st;
    sbx_exec_result *r = run_full("ops-absent", &(exec_args){ .text = "true" }, &st);
    CU_ASSERT_EQUAL(st, SBX_ERR_NOT_FOUND);
    CU_ASSERT(r == NULL);
    sbx_error err;
    create_sandbox("ops-stopped");
    stop_container("ops-stopped");
    r = run_full("ops-stopped", &(exec_args){ .text = "true" }, &st);
    CU_ASSERT_EQUAL(st, SBX_ERR_NOT_FOUND);
    sbx_file_content *c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(sbx_test_docker.backend, "ops-stopped", "/etc/hostname",
                                          0, 10, &c, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_backend_write_file(sbx_test_docker.backend, "ops-stopped", "/tmp/x", "x", 1,
                                           0, 0, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT(sbx_backend_destroy(sbx_test_docker.backend, "ops-stopped", &err) == SBX_OK);
}

static sbx_file_content *read_ok(const char *path, uint64_t offset, uint64_t max)
{
    sbx_file_content *c = NULL;
    sbx_error err;
    sbx_status st =
        sbx_backend_read_file(sbx_test_docker.backend, SANDBOX, path, offset, max, &c, &err);
    if (st != SBX_OK)
        fprintf(stderr, "read %s: %s\n", path, err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    return c;
}

/* An instance keeps the container an exec ran in (the next exec skips
 * the lookup): a sandbox stopped, destroyed or made again under the same
 * id since must still be seen as it is now. */
static void test_exec_follows_the_sandbox_container(void)
{
    const char *id = "ops-again";
    char first[64], again[64];
    sbx_status st;
    sbx_error err;
    create_sandbox(id);
    hostname_of(id, first, sizeof first, &st);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    CU_ASSERT(first[0] != '\0');
    stop_container(id);
    hostname_of(id, again, sizeof again, &st);
    CU_ASSERT_EQUAL(st, SBX_ERR_NOT_FOUND);
    /* Made again under its id: a new container, which the exec finds. */
    CU_ASSERT_FATAL(sbx_backend_destroy(sbx_test_docker.backend, id, &err) == SBX_OK);
    create_sandbox(id);
    hostname_of(id, again, sizeof again, &st);
    CU_ASSERT_EQUAL(st, SBX_OK);
    CU_ASSERT(again[0] != '\0' && strcmp(first, again) != 0);
    hostname_of(id, first, sizeof first, &st);
    CU_ASSERT_EQUAL(st, SBX_OK);
    CU_ASSERT_STRING_EQUAL(first, again);
    CU_ASSERT_FATAL(sbx_backend_destroy(sbx_test_docker.backend, id, &err) == SBX_OK);
    hostname_of(id, again, sizeof again, &st);
    CU_ASSERT_EQUAL(st, SBX_ERR_NOT_FOUND);
}

static void test_binary_round_trip_and_ranges(void)
{
    size_t n = 1 << 20;
    unsigned char *bytes = malloc(n);
    CU_ASSERT_FATAL(bytes != NULL);
    for (size_t i = 0; i < n; i++)
        bytes[i] = (unsigned char)(i * 13 + i / 509);
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "/tmp/blob", bytes, n,
                                           0, 0600, &err) == SBX_OK);
    sbx_file_content *c = read_ok("/tmp/blob", 0, 2 << 20);
    CU_ASSERT_EQUAL(c->length, n);
    CU_ASSERT(memcmp(c->data, bytes, n) == 0);
    CU_ASSERT(!c->truncated);
    sbx_backend_free_file_content(sbx_test_docker.backend, c);
    c = read_ok("/tmp/blob", 1000, 5000);
    CU_ASSERT_EQUAL(c->length, 5000);
    CU_ASSERT(memcmp(c->data, bytes + 1000, 5000) == 0);
    CU_ASSERT(c->truncated);
    sbx_backend_free_file_content(sbx_test_docker.backend, c);
    c = read_ok("/tmp/blob", n + 10, 100);
    CU_ASSERT_EQUAL(c->length, 0);
    CU_ASSERT(!c->truncated);
    sbx_backend_free_file_content(sbx_test_docker.backend, c);
    /* The exec sees the same bytes and the mode asked for. */
    sbx_exec_result *r = sh("ls -l /tmp/blob");
    CU_ASSERT(strncmp(r->stdout_data, "-rw-------", 10) == 0);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    /* Append adds exactly, NULs kept; relative paths start at WorkingDir ("/"). */
    CU_ASSERT(sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "tmp/app", "a\0b", 3, 0, 0,
                                     &err) == SBX_OK);
    CU_ASSERT(sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "/tmp/app", "\0c\n", 3,
                                     SBX_WRITE_APPEND, 0, &err) == SBX_OK);
    CU_ASSERT(sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "/tmp/app2", "new", 3,
                                     SBX_WRITE_APPEND, 0, &err) == SBX_OK);
    c = read_ok("/tmp/app", 0, 100);
    CU_ASSERT_EQUAL(c->length, 6);
    CU_ASSERT(memcmp(c->data, "a\0b\0c\n", 6) == 0);
    sbx_backend_free_file_content(sbx_test_docker.backend, c);
    c = read_ok("/tmp/../tmp/./app2", 0, 100);
    CU_ASSERT_STRING_EQUAL(c->data, "new");
    sbx_backend_free_file_content(sbx_test_docker.backend, c);
    free(bytes);
}

static void test_path_errors_same_on_both_engines(void)
{
    sbx_error err;
    sbx_file_content *c = NULL;
    CU_ASSERT_EQUAL(
        sbx_backend_read_file(sbx_test_docker.backend, SANDBOX, "/no/such", 0, 10, &c, &err),
        SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_EQUAL(
        sbx_backend_read_file(sbx_test_docker.backend, SANDBOX, "/etc/hostname/x", 0, 10, &c, &err),
        SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_EQUAL(
        sbx_backend_read_file(sbx_test_docker.backend, SANDBOX, "/tmp", 0, 10, &c, &err),
        SBX_ERR_IS_A_DIRECTORY);
    /* Missing parent: NO_SUCH_PATH on both engines, nothing made. */
    CU_ASSERT_EQUAL(sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "/tmp/nodir/f", "x", 1,
                                           0, 0, &err),
                    SBX_ERR_NO_SUCH_PATH);
    expect_exit("test ! -e /tmp/nodir", 0);
    CU_ASSERT_EQUAL(sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "/etc/hostname/f", "x",
                                           1, 0, 0, &err),
                    SBX_ERR_NOT_A_DIRECTORY);
    CU_ASSERT_EQUAL(
        sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "/tmp", "x", 1, 0, 0, &err),
        SBX_ERR_IS_A_DIRECTORY);
    CU_ASSERT_EQUAL(
        sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "/", "x", 1, 0, 0, &err),
        SBX_ERR_IS_A_DIRECTORY);
    CU_ASSERT(sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "/tmp/mk/a/b/f", "deep", 4,
                                     SBX_WRITE_MKDIRS, 0, &err) == SBX_OK);
    c = read_ok("/tmp/mk/a/b/f", 0, 10);
    CU_ASSERT_STRING_EQUAL(c->data, "deep");
    sbx_backend_free_file_content(sbx_test_docker.backend, c);
    CU_ASSERT_EQUAL(sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "/tmp/mk/a/b/f", "x",
                                           1, SBX_WRITE_EXCLUSIVE, 0, &err),
                    SBX_ERR_EXISTS);
    CU_ASSERT(sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "/tmp/mk/excl", "x", 1,
                                     SBX_WRITE_EXCLUSIVE, 0, &err) == SBX_OK);
    /* A link made inside is followed by a read: the path is the sandbox's own. */
    expect_exit("ln -sf /tmp/mk/a/b/f /tmp/mk/link && ln -sfn /tmp/mk/a /tmp/mk/dirlink", 0);
    c = read_ok("/tmp/mk/link", 0, 10);
    CU_ASSERT_STRING_EQUAL(c->data, "deep");
    sbx_backend_free_file_content(sbx_test_docker.backend, c);
    char longpath[5000];
    memset(longpath, 'a', sizeof longpath - 1);
    longpath[0] = '/';
    longpath[sizeof longpath - 1] = '\0';
    CU_ASSERT_EQUAL(
        sbx_backend_read_file(sbx_test_docker.backend, SANDBOX, longpath, 0, 10, &c, &err),
        SBX_ERR_USAGE);
}

static void test_list_dir(void)
{
    expect_exit("rm -rf /tmp/ls && mkdir -p /tmp/ls/b/deep /tmp/ls/a && echo 12345 > /tmp/ls/z "
                "&& echo x > /tmp/ls/a/q && ln -s /etc /tmp/ls/l && chmod 0751 /tmp/ls/b", 0);
    sbx_dir_listing *l = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_list_dir(sbx_test_docker.backend, SANDBOX, "/tmp/ls", 1, 100, &l,
                                         &err) == SBX_OK);
    const char *want1[] = { "a", "b", "l", "z" };
    CU_ASSERT_EQUAL_FATAL(l->count, 4);
    size_t i = 0;
    for (sbx_dir_entry *e = l->entries; e != NULL; e = e->next, i++) {
        CU_ASSERT_STRING_EQUAL(e->path, want1[i]);
        if (strcmp(e->path, "z") == 0) {
            CU_ASSERT_EQUAL(e->type, SBX_FILE_REGULAR);
            CU_ASSERT_EQUAL(e->size, 6);
            CU_ASSERT(e->mtime > 0);
        }
        if (strcmp(e->path, "b") == 0) {
            CU_ASSERT_EQUAL(e->type, SBX_FILE_DIRECTORY);
            CU_ASSERT_EQUAL(e->mode, 0751);
        }
        if (strcmp(e->path, "l") == 0)
            CU_ASSERT_EQUAL(e->type, SBX_FILE_SYMLINK);
    }
    CU_ASSERT(!l->truncated);
    sbx_backend_free_listing(sbx_test_docker.backend, l);
    CU_ASSERT_FATAL(sbx_backend_list_dir(sbx_test_docker.backend, SANDBOX, "/tmp/ls", 3, 100, &l,
                                         &err) == SBX_OK);
    const char *want3[] = { "a", "a/q", "b", "b/deep", "l", "z" };
    CU_ASSERT_EQUAL_FATAL(l->count, 6);
    i = 0;
    for (sbx_dir_entry *e = l->entries; e != NULL; e = e->next, i++)
        CU_ASSERT_STRING_EQUAL(e->path, want3[i]);
    sbx_backend_free_listing(sbx_test_docker.backend, l);
    CU_ASSERT_FATAL(sbx_backend_list_dir(sbx_test_docker.backend, SANDBOX, "/tmp/ls", 3, 2, &l,
                                         &err) == SBX_OK);
    CU_ASSERT_EQUAL(l->count, 2);
    CU_ASSERT(l->truncated);
    sbx_backend_free_listing(sbx_test_docker.backend, l);
    CU_ASSERT_EQUAL(
        sbx_backend_list_dir(sbx_test_docker.backend, SANDBOX, "/tmp/ls/z", 1, 10, &l, &err),
        SBX_ERR_NOT_A_DIRECTORY);
    CU_ASSERT_EQUAL(
        sbx_backend_list_dir(sbx_test_docker.backend, SANDBOX, "/tmp/nope", 1, 10, &l, &err),
        SBX_ERR_NO_SUCH_PATH);
}

/* The entry `name` of listing `l`, or NULL. */
static const sbx_dir_entry *entry_named(const sbx_dir_listing *l, const char *name)
{
    for (const sbx_dir_entry *e = l->entries; e != NULL; e = e->next)
        if (strcmp(e->path, name) == 0)
            return e;
    return NULL;
}

static sbx_dir_listing *list_ok(const char *path, unsigned depth, size_t max)
{
    sbx_dir_listing *l = NULL;
    sbx_error err;
    sbx_status st =
        sbx_backend_list_dir(sbx_test_docker.backend, SANDBOX, path, depth, max, &l, &err);
    if (st != SBX_OK)
        fprintf(stderr, "list %s: %s\n", path, err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    return l;
}

/* The root, and "." in an image without a WorkingDir, list what `ls -a /`
 * shows in the container. */
static void test_list_root(void)
{
    const char *paths[] = { "/", "." };
    for (size_t i = 0; i < 2; i++) {
        sbx_dir_listing *l = list_ok(paths[i], 1, 1000);
        const sbx_dir_entry *bin = entry_named(l, "bin"), *tmp = entry_named(l, "tmp");
        CU_ASSERT(bin != NULL && bin->type == SBX_FILE_DIRECTORY);
        CU_ASSERT(tmp != NULL && tmp->type == SBX_FILE_DIRECTORY);
        CU_ASSERT(entry_named(l, "bin/sh") == NULL);
        CU_ASSERT(!l->truncated);
        sbx_backend_free_listing(sbx_test_docker.backend, l);
    }
}

/* Every name of a hard-linked file is the regular file it is; names with
 * a newline, spaces or "//"-like bytes are listed as they are. */
static void test_list_hard_links_and_odd_names(void)
{
    expect_exit("rm -rf /tmp/hl && mkdir /tmp/hl && echo 12345 > /tmp/hl/a && ln /tmp/hl/a "
                "/tmp/hl/b && mkdir /tmp/hl/d && ln /tmp/hl/a /tmp/hl/d/c && "
                "touch \"/tmp/hl/x y\" \"$(printf '/tmp/hl/n\\nl')\"", 0);
    sbx_dir_listing *l = list_ok("/tmp/hl", 2, 100);
    const char *want[] = { "a", "b", "d", "d/c", "n\nl", "x y" };
    CU_ASSERT_EQUAL_FATAL(l->count, 6);
    size_t i = 0;
    for (const sbx_dir_entry *e = l->entries; e != NULL; e = e->next, i++) {
        CU_ASSERT_STRING_EQUAL(e->path, want[i]);
        if (i == 0 || i == 1 || i == 3) {
            CU_ASSERT_EQUAL(e->type, SBX_FILE_REGULAR);
            CU_ASSERT_EQUAL(e->size, 6);
        }
    }
    sbx_backend_free_listing(sbx_test_docker.backend, l);
}

/* A listing reads no file's bytes: a sparse file of 200 GB (no disk)
 * lists at once, in its directory and above it, and the engine is free
 * for the next call (dockerd locks a container while its archive
 * streams).  Streaming it would outlast the 30 s bound of a call. */
static void test_list_costs_nothing_of_file_sizes(void)
{
    expect_exit("rm -rf /tmp/sp && mkdir /tmp/sp && truncate -s 200G /tmp/sp/big", 0);
    sbx_dir_listing *l = list_ok("/tmp/sp", 1, 10);
    const sbx_dir_entry *big = entry_named(l, "big");
    CU_ASSERT(big != NULL && big->size == (uint64_t)200 << 30);
    sbx_backend_free_listing(sbx_test_docker.backend, l);
    l = list_ok("/tmp", 2, 1000);
    big = entry_named(l, "sp/big");
    CU_ASSERT(big != NULL && big->size == (uint64_t)200 << 30);
    sbx_backend_free_listing(sbx_test_docker.backend, l);
    expect_exit("rm -rf /tmp/sp", 0);
}

/* A chain of 2000 nested directories lists whole: no walk recurses on
 * the host's stack. */
static void test_list_deep_tree(void)
{
    expect_exit("rm -rf /tmp/deep && p=/tmp/deep && i=0 && while [ $i -lt 2000 ]; do "
                "p=$p/d; i=$((i+1)); done && mkdir -p $p", 0);
    sbx_dir_listing *l = list_ok("/tmp/deep", 100000, 100000);
    CU_ASSERT_EQUAL(l->count, 2000);
    size_t deepest = 0;
    for (const sbx_dir_entry *e = l->entries; e != NULL; e = e->next)
        deepest = strlen(e->path) > deepest ? strlen(e->path) : deepest;
    CU_ASSERT_EQUAL(deepest, 2000 * 2 - 1);
    sbx_backend_free_listing(sbx_test_docker.backend, l);
    expect_exit("rm -rf /tmp/deep", 0);
}

/* Read `path` whole in pieces of `piece` bytes, as sbxctl cp does, into
 * *out (may be NULL: only counted); the bytes read, or -1 when a read
 * fails or `deadline_ms` (wall clock) passes first. */
static int64_t read_in_pieces(sbx_backend *b, const char *path, uint64_t piece,
                              unsigned char *out, int64_t deadline_ms)
{
    uint64_t done = 0;
    for (;;) {
        if (sbx_test_wall_ms() > deadline_ms) {
            fprintf(stderr, "read %s in pieces: %llu bytes by the deadline\n", path,
                    (unsigned long long)done);
            return -1;
        }
        sbx_file_content *c = NULL;
        sbx_error err;
        if (sbx_backend_read_file(b, SANDBOX, path, done, piece, &c, &err) != SBX_OK) {
            fprintf(stderr, "read %s at %llu: %s\n", path, (unsigned long long)done, err.message);
            return -1;
        }
        if (out != NULL)
            memcpy(out + done, c->data, c->length);
        done += c->length;
        int more = c->truncated && c->length > 0;
        sbx_backend_free_file_content(b, c);
        if (!more)
            return (int64_t)done;
    }
}

/* Reading a file in pieces costs its size once: 1 GiB (sparse) in 4 MiB
 * pieces well within a minute (streaming again from the start for each
 * piece, as before, is 128 GiB). */
static void test_read_in_pieces_is_linear(void)
{
    expect_exit("truncate -s 1G /tmp/gig", 0);
    CU_ASSERT_EQUAL(read_in_pieces(sbx_test_docker.backend, "/tmp/gig", 4u << 20, NULL,
                                   sbx_test_wall_ms() + 60000), INT64_C(1) << 30);
    expect_exit("rm -f /tmp/gig", 0);
}

/* Pieces of any size give the file's bytes exactly; a read elsewhere, a
 * write between pieces and another instance's exec see the sandbox as
 * it is (a read kept open between pieces never holds it). */
static void test_read_pieces_exact_and_current(void)
{
    expect_exit("dd if=/dev/urandom of=/tmp/rnd bs=1000 count=3001 2>/dev/null", 0);
    sbx_file_content *whole = read_ok("/tmp/rnd", 0, 16u << 20);
    CU_ASSERT_EQUAL_FATAL(whole->length, 3001000);
    unsigned char *pieces = malloc(whole->length);
    CU_ASSERT_FATAL(pieces != NULL);
    CU_ASSERT_EQUAL(read_in_pieces(sbx_test_docker.backend, "/tmp/rnd", 65537, pieces,
                                   sbx_test_wall_ms() + 120000), 3001000);
    CU_ASSERT(memcmp(pieces, whole->data, whole->length) == 0);
    /* A first piece, then a read at another offset. */
    sbx_file_content *c = read_ok("/tmp/rnd", 0, 1000);
    CU_ASSERT(c->truncated);
    sbx_backend_free_file_content(sbx_test_docker.backend, c);
    c = read_ok("/tmp/rnd", 5, 10);
    CU_ASSERT(c->length == 10 && memcmp(c->data, whole->data + 5, 10) == 0);
    sbx_backend_free_file_content(sbx_test_docker.backend, c);
    /* A first piece, the file replaced, the next piece: the new bytes. */
    sbx_backend_free_file_content(sbx_test_docker.backend, read_ok("/tmp/rnd", 0, 1000));
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "/tmp/rnd",
                                           "0123456789abcdef", 16, 0, 0, &err) == SBX_OK);
    c = read_ok("/tmp/rnd", 1000, 10);
    CU_ASSERT_EQUAL(c->length, 0);
    sbx_backend_free_file_content(sbx_test_docker.backend, c);
    /* A first piece left unread: another instance's exec runs at once. */
    sbx_backend_free_file_content(sbx_test_docker.backend, read_ok("/tmp/rnd", 0, 4));
    sbx_option opts[] = { { "socket", sbx_test_docker.socket }, { "timeout_ms", "20000" } };
    sbx_backend *other = NULL;
    CU_ASSERT_FATAL(sbx_backend_open(sbx_test_docker.host, "docker", opts, 2, &other, &err) ==
                    SBX_OK);
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = "echo free";
    sbx_exec_result *out = NULL;
    sbx_status st = sbx_backend_exec(other, SANDBOX, &r, &out, &err);
    if (st != SBX_OK)
        fprintf(stderr, "exec beside a kept read: %s\n", err.message);
    CU_ASSERT(st == SBX_OK && out != NULL && strcmp(out->stdout_data, "free\n") == 0);
    sbx_backend_free_exec_result(other, out);
    sbx_backend_close(other);
    sbx_backend_free_file_content(sbx_test_docker.backend, whole);
    free(pieces);
    expect_exit("rm -f /tmp/rnd", 0);
}

static void test_remove_path(void)
{
    expect_exit("rm -rf /tmp/rm && mkdir -p /tmp/rm/d/e && echo x > /tmp/rm/f && "
                "echo keep > /tmp/rm/target && ln -s /tmp/rm/target /tmp/rm/link", 0);
    sbx_error err;
    CU_ASSERT(sbx_backend_remove_path(sbx_test_docker.backend, SANDBOX, "/tmp/rm/f", 0, &err) ==
              SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_remove_path(sbx_test_docker.backend, SANDBOX, "/tmp/rm/f", 0, &err),
                    SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_EQUAL(sbx_backend_remove_path(sbx_test_docker.backend, SANDBOX, "/tmp/rm/d", 0, &err),
                    SBX_ERR_IS_A_DIRECTORY);
    CU_ASSERT(sbx_backend_remove_path(sbx_test_docker.backend, SANDBOX, "/tmp/rm/link", 0, &err) ==
              SBX_OK);
    expect_exit("test -f /tmp/rm/target && test ! -e /tmp/rm/link", 0);
    CU_ASSERT(sbx_backend_remove_path(sbx_test_docker.backend, SANDBOX, "/tmp/rm/d",
                                      SBX_REMOVE_RECURSIVE, &err) == SBX_OK);
    expect_exit("test ! -e /tmp/rm/d", 0);
    /* A name that looks like an option is a path, never an option. */
    CU_ASSERT(sbx_backend_write_file(sbx_test_docker.backend, SANDBOX, "/tmp/rm/-rf", "x", 1, 0, 0,
                                     &err) == SBX_OK);
    CU_ASSERT(sbx_backend_remove_path(sbx_test_docker.backend, SANDBOX, "/tmp/rm/-rf", 0, &err) ==
              SBX_OK);
    CU_ASSERT_EQUAL(
        sbx_backend_remove_path(sbx_test_docker.backend, SANDBOX, "/", SBX_REMOVE_RECURSIVE, &err),
        SBX_ERR_REFUSED);
}

static void *exec_many(void *arg)
{
    long k = (long)arg;
    for (int i = 0; i < 4; i++) {
        char text[64], want[64];
        snprintf(text, sizeof text, "echo %ld-%d; exit %d", k, i, i);
        snprintf(want, sizeof want, "%ld-%d\n", k, i);
        sbx_status st;
        sbx_exec_result *r = run_full(SANDBOX, &(exec_args){ .text = text }, &st);
        if (st != SBX_OK || strcmp(r->stdout_data, want) != 0 || r->exit_code != i)
            return (void *)1;
        sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    }
    return NULL;
}

static void test_concurrent_execs(void)
{
    pthread_t th[6];
    for (long k = 0; k < 6; k++)
        CU_ASSERT_FATAL(pthread_create(&th[k], NULL, exec_many, (void *)k) == 0);
    for (int k = 0; k < 6; k++) {
        void *rc = NULL;
        pthread_join(th[k], &rc);
        CU_ASSERT(rc == NULL);
    }
}

static void test_operations_info(void)
{
    sbx_operations_info info = { .struct_size = sizeof info };
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_operations_info(sbx_test_docker.backend, &info, &err) == SBX_OK);
    CU_ASSERT_EQUAL(info.operations, 0x7fu | SBX_OP_EXEC_STREAM | SBX_OP_PROCESS |
                                         SBX_OP_PROCESS_SIGNALS | SBX_OP_PROCESS_STDIN_CLOSE |
                                         SBX_OP_PROCESS_PTY);
    CU_ASSERT(info.default_timeout_ms > 0 && info.max_timeout_ms >= info.default_timeout_ms);
    CU_ASSERT(info.max_file_bytes >= (1u << 20));
}

void sbx_test_register(void)
{
    sbx_test_docker_engine(&sbx_test_docker.socket, &sbx_test_docker.image);
    static const CU_TestInfo tests[] = {
        { "operations_info: every operation and its limits", test_operations_info },
        { "exec: exit codes 0, 1, 255, a signal, a missing program is 127", test_exit_codes },
        { "exec: separate streams, NUL bytes, output past the cap", test_output_streams_binary_and_cap },
        { "exec: stderr exact however it ends, the exit code whatever it says", test_stderr_exact_and_exit_code_whatever_it_says },
        { "exec: 1 MiB of stdin, env values literal, working dirs, bad env names", test_stdin_env_and_working_dir },
        { "exec: a timeout kills the command and its children", test_timeout_kills_command_and_children },
        { "exec: a hang-up on cancel_fd ends the command and its children", test_cancel_fd_hang_up_ends_command },
        { "exec: no cancel_fd beyond a request's size", test_cancel_fd_beyond_the_request_size },
        { "exec and files on an absent or stopped sandbox: not found", test_gone_sandboxes },
        { "exec after its sandbox was stopped, destroyed, made again", test_exec_follows_the_sandbox_container },
        { "files: 1 MiB binary round trip, ranges, append, relative paths", test_binary_round_trip_and_ranges },
        { "files: path errors, mkdirs, exclusive, links, long paths", test_path_errors_same_on_both_engines },
        { "list_dir: depth, order, types, modes, cap", test_list_dir },
        { "list_dir of / and of . without a WorkingDir", test_list_root },
        { "list_dir: hard links are regular files, odd names exact", test_list_hard_links_and_odd_names },
        { "list_dir: a 200 GB sparse file costs nothing", test_list_costs_nothing_of_file_sizes },
        { "list_dir: a chain of 2000 directories", test_list_deep_tree },
        { "read_file: 1 GiB in 4 MiB pieces, linear", test_read_in_pieces_is_linear },
        { "read_file: pieces exact, writes and other instances between", test_read_pieces_exact_and_current },
        { "remove_path: files, links, directories, option-like names", test_remove_path },
        { "concurrent execs on one sandbox", test_concurrent_execs },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("docker backend operations", suite_init, suite_clean, tests);
}
