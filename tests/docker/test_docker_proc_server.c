/*
 * The docker backend's process server (docs/docker.md "The process
 * server") against a real engine started by docker-suite.sh, where it
 * cannot serve or fails:
 *   - an instance whose `pty_helper` is a helper without the server (an
 *     older sbx-docker-pty; a shell script with its `plain` stands in for
 *     it) makes each call an exec of the process script, says so once in
 *     its log, and its answers are the very ones another instance gets
 *     from the server, which answers read and wait itself;
 *   - a server killed while a long read waits on it: the read fails as a
 *     transport error naming the server, and the next call works.
 */
#include <config.h>

#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/docker_engine.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SANDBOX "proc-server"
#define SERVE "exec sleep 100000"
/* A bound no correct run on a loaded 2-core machine comes near. */
#define DEADLINE_MS 120000L

/* The helper of an sbx before the process server: `serve` is a usage
 * error; `plain` writes its pid (its session's) and runs the command. */
static const char old_helper[] =
    "#!/bin/sh\n"
    "case $1 in\n"
    "plain) d=$2; shift 2; echo $$ > \"$d/pg\"; exec \"$@\" ;;\n"
    "*) echo 'usage: sbx-docker-pty run DIR ROWS COLS STDIN CMD... | plain DIR CMD... |"
    " resize DIR ROWS COLS' >&2; exit 2 ;;\n"
    "esac\n";

static const char *engine_socket;
static const char *engine_image;
static char helper_path[64];

/* An instance and what its log said. */
typedef struct instance {
    sbx_host *host;
    sbx_backend *backend;
    atomic_int no_server_warnings;
} instance;

static instance by_exec;     /* its helper has no server */
static instance by_server;

static void count_log(void *ctx, sbx_log_level level, const char *backend, const char *message)
{
    (void)backend;
    instance *in = ctx;
    if (level == SBX_LOG_WARN && strstr(message, "no process server") != NULL)
        atomic_fetch_add(&in->no_server_warnings, 1);
}

/* A host and docker backend logging into `in`; `helper` NULL for the
 * suite's own. */
static int open_instance(instance *in, const char *helper)
{
    sbx_error err;
    sbx_option opts[] = { { "socket", engine_socket }, { "image", engine_image },
                          { "stop_grace_s", "0" }, { "command", SERVE },
                          { "ready_timeout_ms", "0" }, { "pty_helper", helper } };
    size_t count = sizeof opts / sizeof *opts - (helper == NULL);
    sbx_host_services services = { sizeof services, count_log, in };
    if (sbx_host_new(&services, &in->host, &err) != SBX_OK ||
        sbx_backend_open(in->host, "docker", opts, count, &in->backend, &err) != SBX_OK) {
        fprintf(stderr, "open docker: %s\n", err.message);
        return 1;
    }
    return 0;
}

static int suite_init(void)
{
    snprintf(helper_path, sizeof helper_path, "/tmp/sbx-old-helper.%ld", (long)getpid());
    FILE *f = fopen(helper_path, "w");
    if (f == NULL || fputs(old_helper, f) < 0 || fclose(f) != 0 || chmod(helper_path, 0755) != 0)
        return 1;
    if (open_instance(&by_exec, helper_path) || open_instance(&by_server, NULL))
        return 1;
    sbx_error err;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = SANDBOX;
    sbx_sandbox *sb = NULL;
    if (sbx_backend_create(by_server.backend, &req, &sb, &err) != SBX_OK) {
        fprintf(stderr, "create %s: %s\n", SANDBOX, err.message);
        return 1;
    }
    sbx_backend_free_sandboxes(by_server.backend, sb, 1);
    return 0;
}

static int suite_clean(void)
{
    sbx_error err;
    sbx_backend_destroy(by_server.backend, SANDBOX, &err);
    sbx_backend_close(by_exec.backend);
    sbx_host_free(by_exec.host);
    sbx_backend_close(by_server.backend);
    sbx_host_free(by_server.host);
    unlink(helper_path);
    return 0;
}

/* Start `text` under /bin/sh -c; its id into `id`. */
static void start_ok(const instance *in, const char *text, char id[SBX_PROCESS_ID_MAX + 1])
{
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.shell_command = text;
    sbx_process_info *info = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_process_start(in->backend, SANDBOX, &r, &info, &err);
    if (st != SBX_OK)
        fprintf(stderr, "process_start: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    snprintf(id, SBX_PROCESS_ID_MAX + 1, "%s", info->process_id);
    sbx_backend_free_processes(in->backend, info);
}

/* One read from `from` (wait 0): its status; *out on SBX_OK. */
static sbx_status read_at(const instance *in, const char *id, sbx_process_cursor from,
                          size_t max_bytes, sbx_process_output **out, sbx_error *err)
{
    sbx_process_read_request r = SBX_PROCESS_READ_REQUEST_INIT;
    r.cursor = from;
    r.max_bytes = max_bytes;
    return sbx_backend_process_read(in->backend, SANDBOX, id, &r, out, err);
}

/* Read until the answer holds `out_len` and `err_len` bytes past the
 * start or the process ended: the last answer from the start, or NULL. */
static sbx_process_output *read_until(const instance *in, const char *id, size_t out_len,
                                      size_t err_len)
{
    long until = sbx_test_now_ms() + DEADLINE_MS;
    while (sbx_test_now_ms() < until) {
        sbx_process_output *o = NULL;
        sbx_error err;
        sbx_process_read_request r = SBX_PROCESS_READ_REQUEST_INIT;
        r.wait_ms = 2000;
        if (sbx_backend_process_read(in->backend, SANDBOX, id, &r, &o, &err) != SBX_OK) {
            fprintf(stderr, "process_read: %s\n", err.message);
            return NULL;
        }
        if (o->ended || (o->next.stdout_offset >= out_len && o->next.stderr_offset >= err_len))
            return o;
        sbx_backend_free_process_output(in->backend, o);
    }
    return NULL;
}

static const char ended_text[] =
    "printf 'a\\000b\\n'; printf e1 >&2; printf 'c\\n'; printf e2 >&2; exit 3";
static const char running_text[] = "printf o1; printf e1 >&2; printf o2; printf e2 >&2; " SERVE;

static char ended_id[SBX_PROCESS_ID_MAX + 1], running_id[SBX_PROCESS_ID_MAX + 1];

/* Where the server cannot run, the calls are execs of the script: they
 * all work, and the log says so once. */
static void test_calls_without_a_server(void)
{
    start_ok(&by_exec, ended_text, ended_id);
    start_ok(&by_exec, running_text, running_id);
    sbx_process_info *info = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_process_wait(by_exec.backend, SANDBOX, ended_id, 30000, &info,
                                             &err) == SBX_OK);
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_ENDED);
    CU_ASSERT_EQUAL(info->exit_code, 3);
    sbx_backend_free_processes(by_exec.backend, info);
    sbx_process_output *o = read_until(&by_exec, ended_id, 6, 4);
    CU_ASSERT_FATAL(o != NULL);
    CU_ASSERT(o->ended);
    CU_ASSERT_EQUAL(o->exit_code, 3);
    CU_ASSERT_EQUAL(o->length, 10);
    CU_ASSERT_EQUAL(o->next.stdout_offset, 6);
    CU_ASSERT_EQUAL(o->next.stderr_offset, 4);
    sbx_backend_free_process_output(by_exec.backend, o);
    o = read_until(&by_exec, running_id, 4, 4);
    CU_ASSERT_FATAL(o != NULL);
    CU_ASSERT(!o->ended);
    CU_ASSERT_EQUAL(o->length, 8);
    sbx_backend_free_process_output(by_exec.backend, o);
    size_t count = 0;
    CU_ASSERT_FATAL(sbx_backend_process_list(by_exec.backend, SANDBOX, &info, &count, &err) ==
                    SBX_OK);
    CU_ASSERT_EQUAL(count, 2);
    sbx_backend_free_processes(by_exec.backend, info);
    CU_ASSERT_EQUAL(atomic_load(&by_exec.no_server_warnings), 1);
}

/* Two reads' answers are the same, field by field and byte by byte. */
static void expect_same_output(const sbx_process_output *a, const sbx_process_output *b)
{
    CU_ASSERT_EQUAL(a->length, b->length);
    CU_ASSERT(a->length == b->length && memcmp(a->data, b->data, a->length) == 0);
    CU_ASSERT_EQUAL(a->chunk_count, b->chunk_count);
    for (size_t i = 0; i < a->chunk_count && i < b->chunk_count; i++) {
        CU_ASSERT_EQUAL(a->chunks[i].stream, b->chunks[i].stream);
        CU_ASSERT_EQUAL(a->chunks[i].length, b->chunks[i].length);
    }
    CU_ASSERT_EQUAL(a->next.stdout_offset, b->next.stdout_offset);
    CU_ASSERT_EQUAL(a->next.stderr_offset, b->next.stderr_offset);
    CU_ASSERT_EQUAL(a->stdout_dropped, b->stdout_dropped);
    CU_ASSERT_EQUAL(a->stderr_dropped, b->stderr_dropped);
    CU_ASSERT_EQUAL(a->ended, b->ended);
    CU_ASSERT_EQUAL(a->outcome, b->outcome);
    CU_ASSERT_EQUAL(a->exit_code, b->exit_code);
    CU_ASSERT_EQUAL(a->term_signal, b->term_signal);
}

/* The same read through the script and through the server. */
static void expect_same_read(const char *id, sbx_process_cursor from, size_t max_bytes)
{
    sbx_process_output *a = NULL, *b = NULL;
    sbx_error err_a, err_b;
    sbx_status st_a = read_at(&by_exec, id, from, max_bytes, &a, &err_a);
    sbx_status st_b = read_at(&by_server, id, from, max_bytes, &b, &err_b);
    CU_ASSERT_EQUAL(st_a, st_b);
    if (st_a == SBX_OK && st_b == SBX_OK)
        expect_same_output(a, b);
    else if (st_a != SBX_OK && st_b != SBX_OK)
        CU_ASSERT_STRING_EQUAL(err_a.message, err_b.message);
    sbx_backend_free_process_output(by_exec.backend, a);
    sbx_backend_free_process_output(by_server.backend, b);
}

static void expect_same_wait(const char *id)
{
    sbx_process_info *a = NULL, *b = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_process_wait(by_exec.backend, SANDBOX, id, 0, &a, &err) ==
                    SBX_OK);
    CU_ASSERT_FATAL(sbx_backend_process_wait(by_server.backend, SANDBOX, id, 0, &b, &err) ==
                    SBX_OK);
    CU_ASSERT_STRING_EQUAL(a->process_id, b->process_id);
    CU_ASSERT_EQUAL(a->state, b->state);
    CU_ASSERT_EQUAL(a->pty, b->pty);
    CU_ASSERT_EQUAL(a->started_at, b->started_at);
    CU_ASSERT_EQUAL(a->ended_at, b->ended_at);
    CU_ASSERT_EQUAL(a->outcome, b->outcome);
    CU_ASSERT_EQUAL(a->exit_code, b->exit_code);
    for (size_t i = 0; a->argv[i] != NULL || b->argv[i] != NULL; i++) {
        CU_ASSERT_FATAL(a->argv[i] != NULL && b->argv[i] != NULL);
        CU_ASSERT_STRING_EQUAL(a->argv[i], b->argv[i]);
    }
    sbx_backend_free_processes(by_exec.backend, a);
    sbx_backend_free_processes(by_server.backend, b);
}

/* The server's own read and wait answer what the script answers: every
 * cursor, a window cut short, past the end, an unknown process. */
static void test_server_answers_as_the_script(void)
{
    CU_ASSERT_FATAL(ended_id[0] != '\0' && running_id[0] != '\0');
    const char *ids[] = { ended_id, running_id };
    for (size_t i = 0; i < 2; i++) {
        for (uint64_t co = 0; co <= 4; co++)
            for (uint64_t ce = 0; ce <= 4; ce += 2) {
                expect_same_read(ids[i], (sbx_process_cursor){ co, ce }, SBX_PROCESS_DEFAULT);
                expect_same_read(ids[i], (sbx_process_cursor){ co, ce }, 3);
            }
        expect_same_read(ids[i], (sbx_process_cursor){ 99, 0 }, SBX_PROCESS_DEFAULT);
        expect_same_wait(ids[i]);
    }
    expect_same_read("p0000000000000deadbeef", (sbx_process_cursor){ 0, 0 },
                     SBX_PROCESS_DEFAULT);
    /* The server did serve: the instance found the helper wanting, put
     * its own in and never fell back. */
    CU_ASSERT_EQUAL(atomic_load(&by_server.no_server_warnings), 0);
}

/* A long read of a process that prints nothing. */
typedef struct long_read {
    const char *id;
    sbx_status st;
    sbx_error err;
    long took_ms;
} long_read;

static void *read_long(void *arg)
{
    long_read *lr = arg;
    long start = sbx_test_now_ms();
    sbx_process_read_request r = SBX_PROCESS_READ_REQUEST_INIT;
    r.wait_ms = SBX_PROCESS_WAIT_MAX_MS;
    sbx_process_output *o = NULL;
    lr->st = sbx_backend_process_read(by_server.backend, SANDBOX, lr->id, &r, &o, &lr->err);
    sbx_backend_free_process_output(by_server.backend, o);
    lr->took_ms = sbx_test_now_ms() - start;
    return NULL;
}

/* Kill, in the container, every process server that waits on inotify (a
 * read waiting for output): 1 when one was killed. */
static int kill_waiting_server(void)
{
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command =
        "for p in /proc/[0-9]*; do"
        "  case $(tr '\\000' ' ' < $p/cmdline 2>/dev/null) in *'.pty serve'*)"
        "    ls -l $p/fd 2>/dev/null | grep -q inotify && kill -KILL ${p#/proc/} && echo killed;;"
        "  esac; done; :";
    sbx_exec_result *res = NULL;
    sbx_error err;
    int killed = sbx_backend_exec(by_server.backend, SANDBOX, &r, &res, &err) == SBX_OK &&
                 strstr(res->stdout_data, "killed") != NULL;
    sbx_backend_free_exec_result(by_server.backend, res);
    return killed;
}

/* A server killed in the middle of a long read: the read ends at once,
 * a transport error naming the server; the next call works. */
static void test_server_killed_mid_read(void)
{
    char id[SBX_PROCESS_ID_MAX + 1];
    start_ok(&by_server, SERVE, id);
    long_read lr = { .id = id };
    pthread_t reader;
    CU_ASSERT_FATAL(pthread_create(&reader, NULL, read_long, &lr) == 0);
    long until = sbx_test_now_ms() + DEADLINE_MS;
    int killed = 0;
    while (!killed && sbx_test_now_ms() < until)
        killed = kill_waiting_server();
    pthread_join(reader, NULL);
    CU_ASSERT_FATAL(killed);
    CU_ASSERT_EQUAL(lr.st, SBX_ERR_TRANSPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(lr.err.message, "process server ended"));
    CU_ASSERT(lr.took_ms < SBX_PROCESS_WAIT_MAX_MS);
    sbx_process_output *o = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(read_at(&by_server, id, (sbx_process_cursor){ 0, 0 }, SBX_PROCESS_DEFAULT,
                            &o, &err),
                    SBX_OK);
    CU_ASSERT(o != NULL && !o->ended && o->length == 0);
    sbx_backend_free_process_output(by_server.backend, o);
    CU_ASSERT_EQUAL(sbx_backend_process_signal(by_server.backend, SANDBOX, id, 9, &err), SBX_OK);
}

void sbx_test_register(void)
{
    sbx_test_docker_engine(&engine_socket, &engine_image);
    static const CU_TestInfo tests[] = {
        { "calls without a server are execs, logged once", test_calls_without_a_server },
        { "the server's read and wait answer as the script", test_server_answers_as_the_script },
        { "a server killed in the middle of a read", test_server_killed_mid_read },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("docker process server", suite_init, suite_clean, tests);
}
