/*
 * The docker backend's live processes and exec streams (ABI 1.4) through
 * the host library, against a real engine started by docker-suite.sh
 * (podman or dockerd, same expectations on both), in sandboxes of the
 * suite's busybox image.
 */
#include <config.h>

#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/docker_engine.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SANDBOX "proc-one"
#define OTHER "proc-two"
#define SERVE "exec sleep 100000"
/* A bound no correct run on a loaded 2-core machine comes near. */
#define DEADLINE_MS 120000L

/* A host and a docker backend of this process; max_processes "" keeps the
 * default. */
static int open_backend(sbx_host **h, sbx_backend **b, const char *max_processes)
{
    sbx_error err;
    sbx_option opts[] = { { "socket", sbx_test_docker.socket }, { "image", sbx_test_docker.image },
                          { "stop_grace_s", "0" }, { "command", SERVE },
                          { "ready_timeout_ms", "0" }, { "max_processes", max_processes } };
    size_t count = sizeof opts / sizeof *opts - (max_processes[0] == '\0');
    sbx_host_services services = { sizeof services, NULL, NULL };
    if (sbx_host_new(&services, h, &err) != SBX_OK ||
        sbx_backend_open(*h, "docker", opts, count, b, &err) != SBX_OK) {
        fprintf(stderr, "open docker: %s\n", err.message);
        return 1;
    }
    return 0;
}

static int create_sandbox(sbx_backend *b, const char *id)
{
    sbx_error err;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    sbx_sandbox *sb = NULL;
    if (sbx_backend_create(b, &req, &sb, &err) != SBX_OK) {
        fprintf(stderr, "create %s: %s\n", id, err.message);
        return 1;
    }
    sbx_backend_free_sandboxes(b, sb, 1);
    return 0;
}

static int suite_init(void)
{
    return open_backend(&sbx_test_docker.host, &sbx_test_docker.backend, "") ||
           create_sandbox(sbx_test_docker.backend, SANDBOX) ||
           create_sandbox(sbx_test_docker.backend, OTHER);
}

static int suite_clean(void)
{
    sbx_error err;
    sbx_backend_destroy(sbx_test_docker.backend, SANDBOX, &err);
    sbx_backend_destroy(sbx_test_docker.backend, OTHER, &err);
    return sbx_test_docker_suite_clean();
}

/* A request to run `text` under /bin/sh -c. */
static sbx_process_request shell_request(const char *text, int stdin_open, size_t buffer)
{
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.shell_command = text;
    r.stdin_open = stdin_open;
    r.buffer_bytes = buffer;
    return r;
}

/* Start shell request `r` in `sandbox`; the id into `id`. */
static sbx_status start_in(sbx_backend *b, const char *sandbox, const sbx_process_request *r,
                           char id[SBX_PROCESS_ID_MAX + 1], sbx_error *err)
{
    sbx_process_info *info = NULL;
    sbx_status st = sbx_backend_process_start(b, sandbox, r, &info, err);
    if (st != SBX_OK)
        return st;
    snprintf(id, SBX_PROCESS_ID_MAX + 1, "%s", info->process_id);
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_RUNNING);
    CU_ASSERT_STRING_EQUAL(info->argv[2], r->shell_command);
    sbx_backend_free_processes(b, info);
    return SBX_OK;
}

static void start_ok(const char *text, int stdin_open, size_t buffer, char *id)
{
    sbx_error err;
    const sbx_process_request r = shell_request(text, stdin_open, buffer);
    sbx_status st = start_in(sbx_test_docker.backend, SANDBOX, &r, id, &err);
    if (st != SBX_OK)
        fprintf(stderr, "process_start: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
}

/* What a reader saw of a process, to its end. */
typedef struct seen {
    char out[65536], errs[65536];
    size_t out_len, err_len;
    uint64_t dropped_out, dropped_err;
    sbx_process_output last;      /* the final answer's scalars */
} seen;

/* Read process `id` of `sandbox` from `from` until it ended: 0, or -1
 * (an error, or the deadline). */
static int read_to_end(sbx_backend *b, const char *sandbox, const char *id,
                       sbx_process_cursor from, size_t max_bytes, seen *s)
{
    memset(s, 0, sizeof *s);
    sbx_process_read_request r = SBX_PROCESS_READ_REQUEST_INIT;
    r.cursor = from;
    r.wait_ms = 5000;
    r.max_bytes = max_bytes;
    long until = sbx_test_now_ms() + DEADLINE_MS;
    while (sbx_test_now_ms() < until) {
        sbx_process_output *o = NULL;
        sbx_error err;
        if (sbx_backend_process_read(b, sandbox, id, &r, &o, &err) != SBX_OK) {
            fprintf(stderr, "process_read: %s\n", err.message);
            return -1;
        }
        size_t at = 0;
        for (size_t i = 0; i < o->chunk_count; i++) {
            int is_out = o->chunks[i].stream == SBX_STREAM_STDOUT;
            char *to = is_out ? s->out : s->errs;
            size_t *len = is_out ? &s->out_len : &s->err_len;
            size_t n = o->chunks[i].length;
            if (*len + n <= sizeof s->out) {
                memcpy(to + *len, o->data + at, n);
                *len += n;
            }
            at += n;
        }
        s->dropped_out += o->stdout_dropped;
        s->dropped_err += o->stderr_dropped;
        r.cursor = o->next;
        s->last = *o;
        int ended = o->ended;
        sbx_backend_free_process_output(b, o);
        if (ended)
            return 0;
    }
    return -1;
}

static void test_operations_info(void)
{
    sbx_operations_info info = { .struct_size = sizeof info };
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_operations_info(sbx_test_docker.backend, &info, &err) == SBX_OK);
    unsigned want = SBX_OP_EXEC_STREAM | SBX_OP_PROCESS | SBX_OP_PROCESS_SIGNALS |
                    SBX_OP_PROCESS_STDIN_CLOSE | SBX_OP_PROCESS_PTY;
    CU_ASSERT_EQUAL(info.operations & want, want);
    CU_ASSERT_EQUAL(info.max_processes, 64);
    CU_ASSERT_EQUAL(info.default_buffer_bytes, 1u << 20);
    CU_ASSERT_EQUAL(info.max_buffer_bytes, 64u << 20);
}

static const char exact_text[] =
    "printf 'a\\000b\\377\\n'; printf 'e\\000\\376' >&2; printf 'c\\n'; exit 3";

static void expect_exact(const seen *s)
{
    CU_ASSERT_EQUAL(s->out_len, 7);
    CU_ASSERT(memcmp(s->out, "a\0b\377\nc\n", 7) == 0);
    CU_ASSERT_EQUAL(s->err_len, 3);
    CU_ASSERT(memcmp(s->errs, "e\0\376", 3) == 0);
    CU_ASSERT_EQUAL(s->last.outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(s->last.exit_code, 3);
    CU_ASSERT_EQUAL(s->last.next.stdout_offset, 7);
    CU_ASSERT_EQUAL(s->last.next.stderr_offset, 3);
    CU_ASSERT_EQUAL(s->dropped_out + s->dropped_err, 0);
}

/* A process started by a host process that has exited, read by this
 * one, and by a third with an instance of its own: the same bytes. */
static void test_found_and_read_by_other_host_processes(void)
{
    int ids[2];
    CU_ASSERT_FATAL(pipe(ids) == 0);
    pid_t starter = fork();
    CU_ASSERT_FATAL(starter >= 0);
    if (starter == 0) {
        sbx_host *h;
        sbx_backend *b;
        char id[SBX_PROCESS_ID_MAX + 1];
        sbx_error err;
        const sbx_process_request exact = shell_request(exact_text, 0, 0);
        int ok = open_backend(&h, &b, "") == 0 &&
                 start_in(b, SANDBOX, &exact, id, &err) == SBX_OK &&
                 write(ids[1], id, strlen(id)) == (ssize_t)strlen(id);
        _exit(ok ? 0 : 1);
    }
    close(ids[1]);
    char id[SBX_PROCESS_ID_MAX + 1] = "";
    ssize_t n = read(ids[0], id, SBX_PROCESS_ID_MAX);
    close(ids[0]);
    int status = 0;
    waitpid(starter, &status, 0);
    CU_ASSERT_FATAL(WIFEXITED(status) && WEXITSTATUS(status) == 0 && n > 0);
    id[n] = '\0';
    static seen s;
    CU_ASSERT_FATAL(read_to_end(sbx_test_docker.backend, SANDBOX, id, (sbx_process_cursor){ 0, 0 },
                                0, &s) == 0);
    expect_exact(&s);
    pid_t reader = fork();
    CU_ASSERT_FATAL(reader >= 0);
    if (reader == 0) {
        sbx_host *h;
        sbx_backend *b;
        static seen again;
        int ok = open_backend(&h, &b, "") == 0 &&
                 read_to_end(b, SANDBOX, id, (sbx_process_cursor){ 0, 0 }, 0, &again) == 0 &&
                 again.out_len == 7 && memcmp(again.out, "a\0b\377\nc\n", 7) == 0 &&
                 again.err_len == 3 && again.last.exit_code == 3;
        _exit(ok ? 0 : 1);
    }
    waitpid(reader, &status, 0);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* Read in pieces of 2 bytes: the same bytes, cursors exact. */
    CU_ASSERT_FATAL(read_to_end(sbx_test_docker.backend, SANDBOX, id, (sbx_process_cursor){ 0, 0 },
                                2, &s) == 0);
    expect_exact(&s);
}

/* 100000 lines through a buffer of 4096 bytes: a reader that starts at 0
 * once it ended is told how many bytes it missed, and gets the tail. */
static void test_reader_behind_gets_dropped_count(void)
{
    char id[SBX_PROCESS_ID_MAX + 1];
    start_ok("seq 1 100000", 0, 4096, id);
    sbx_process_info *info = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_process_wait(sbx_test_docker.backend, SANDBOX, id, 60000, &info,
                                             &err) == SBX_OK);
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_ENDED);
    sbx_backend_free_processes(sbx_test_docker.backend, info);
    static seen s;
    CU_ASSERT_FATAL(read_to_end(sbx_test_docker.backend, SANDBOX, id, (sbx_process_cursor){ 0, 0 },
                                0, &s) == 0);
    /* seq 1 100000 writes 588895 bytes. */
    CU_ASSERT_EQUAL(s.last.next.stdout_offset, 588895);
    CU_ASSERT_EQUAL(s.dropped_out + s.out_len, 588895);
    CU_ASSERT_EQUAL(s.out_len, 4096);
    CU_ASSERT(s.out_len >= 7 && memcmp(s.out + s.out_len - 7, "100000\n", 7) == 0);
    /* A cursor past the end is the caller's mistake. */
    sbx_process_read_request r = SBX_PROCESS_READ_REQUEST_INIT;
    r.cursor.stdout_offset = 588896;
    sbx_process_output *o = NULL;
    CU_ASSERT_EQUAL(sbx_backend_process_read(sbx_test_docker.backend, SANDBOX, id, &r, &o, &err),
                    SBX_ERR_USAGE);
    CU_ASSERT(strstr(err.message, "past the end") != NULL);
    CU_ASSERT_EQUAL(sbx_backend_process_forget(sbx_test_docker.backend, SANDBOX, id, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_process_read(sbx_test_docker.backend, SANDBOX, id, &r, &o, &err),
                    SBX_ERR_NO_SUCH_PROCESS);
}

static sbx_status write_stdin(const char *id, const char *text, int close_it, sbx_error *err)
{
    sbx_process_write_request w = SBX_PROCESS_WRITE_REQUEST_INIT;
    w.data = text;
    w.length = text != NULL ? strlen(text) : 0;
    w.close_stdin = close_it;
    sbx_status st = sbx_backend_process_write(sbx_test_docker.backend, SANDBOX, id, &w, err);
    if (st != SBX_OK)
        fprintf(stderr, "process_write: %s\n", err->message);
    return st;
}

static void test_stdin_round_trip_and_close(void)
{
    char id[SBX_PROCESS_ID_MAX + 1];
    start_ok("while read line; do echo \"got $line\"; done; echo eof", 1, 0, id);
    sbx_error err;
    CU_ASSERT_EQUAL(write_stdin(id, "one\n", 0, &err), SBX_OK);
    /* The answer comes back while stdin stays open. */
    sbx_process_read_request r = SBX_PROCESS_READ_REQUEST_INIT;
    r.wait_ms = 5000;
    char got[64] = "";
    size_t len = 0;
    long until = sbx_test_now_ms() + DEADLINE_MS;
    while (len < 8 && sbx_test_now_ms() < until) {
        sbx_process_output *o = NULL;
        CU_ASSERT_FATAL(
            sbx_backend_process_read(sbx_test_docker.backend, SANDBOX, id, &r, &o, &err) == SBX_OK);
        CU_ASSERT_FATAL(!o->ended);
        if (len + o->length < sizeof got) {
            memcpy(got + len, o->data, o->length);
            len += o->length;
        }
        r.cursor = o->next;
        sbx_backend_free_process_output(sbx_test_docker.backend, o);
    }
    CU_ASSERT_EQUAL(len, 8);
    CU_ASSERT(memcmp(got, "got one\n", 8) == 0);
    CU_ASSERT_EQUAL(write_stdin(id, "two\n", 1, &err), SBX_OK);
    static seen s;
    CU_ASSERT_FATAL(read_to_end(sbx_test_docker.backend, SANDBOX, id, r.cursor, 0, &s) == 0);
    CU_ASSERT_EQUAL(s.out_len, 12);
    CU_ASSERT(memcmp(s.out, "got two\neof\n", 12) == 0);
    CU_ASSERT_EQUAL(s.last.exit_code, 0);
    CU_ASSERT_EQUAL(write_stdin(id, "late\n", 0, &err), SBX_ERR_USAGE);
    CU_ASSERT(strstr(err.message, "stdin closed") != NULL);
    /* A process started without stdin has none to write to. */
    start_ok("exit 0", 0, 0, id);
    CU_ASSERT_EQUAL(write_stdin(id, "x", 0, &err), SBX_ERR_USAGE);
}

/* How many processes of the sandbox run `word` (ps in the container). */
static int processes_running(const char *word)
{
    char text[160];
    snprintf(text, sizeof text, "ps -o args | grep -c '^sleep %s$'", word);
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = text;
    sbx_exec_result *res = NULL;
    sbx_error err;
    if (sbx_backend_exec(sbx_test_docker.backend, SANDBOX, &r, &res, &err) != SBX_OK)
        return -1;
    int n = atoi(res->stdout_data);
    sbx_backend_free_exec_result(sbx_test_docker.backend, res);
    return n;
}

static void test_signal_reaches_the_group(void)
{
    char id[SBX_PROCESS_ID_MAX + 1];
    start_ok("sleep 4241 & sleep 4241 & sleep 4241; wait", 0, 0, id);
    long until = sbx_test_now_ms() + DEADLINE_MS;
    while (processes_running("4241") < 3 && sbx_test_now_ms() < until)
        ;
    CU_ASSERT_EQUAL_FATAL(processes_running("4241"), 3);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_signal(sbx_test_docker.backend, SANDBOX, id, 15, &err),
                    SBX_OK);
    sbx_process_info *info = NULL;
    CU_ASSERT_FATAL(sbx_backend_process_wait(sbx_test_docker.backend, SANDBOX, id, 60000, &info,
                                             &err) == SBX_OK);
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_ENDED);
    CU_ASSERT_EQUAL(info->outcome, SBX_EXEC_SIGNALED);
    CU_ASSERT_EQUAL(info->term_signal, 15);
    sbx_backend_free_processes(sbx_test_docker.backend, info);
    CU_ASSERT_EQUAL(processes_running("4241"), 0);
    /* An ended process takes any signal quietly. */
    CU_ASSERT_EQUAL(sbx_backend_process_signal(sbx_test_docker.backend, SANDBOX, id, 9, &err),
                    SBX_OK);
}

/* A timeout kills the group and the record says so. */
static void test_timeout_kills_the_group(void)
{
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.shell_command = "sleep 4245 & exec sleep 4245";
    r.timeout_ms = 1500;
    sbx_process_info *info = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_process_start(sbx_test_docker.backend, SANDBOX, &r, &info, &err) ==
                    SBX_OK);
    char id[SBX_PROCESS_ID_MAX + 1];
    snprintf(id, sizeof id, "%s", info->process_id);
    sbx_backend_free_processes(sbx_test_docker.backend, info);
    info = NULL;
    long until = sbx_test_now_ms() + DEADLINE_MS;
    while (sbx_test_now_ms() < until) {
        sbx_backend_free_processes(sbx_test_docker.backend, info);
        info = NULL;
        CU_ASSERT_FATAL(sbx_backend_process_wait(sbx_test_docker.backend, SANDBOX, id, 5000, &info,
                                                 &err) == SBX_OK);
        if (info->state == SBX_PROCESS_ENDED)
            break;
    }
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_ENDED);
    CU_ASSERT_EQUAL(info->outcome, SBX_EXEC_TIMED_OUT);
    /* Not before its 1500 ms: ended_at is cut to whole seconds (the
     * image's date has no sub-second field), so the end it names is at
     * most 999 ms before the real one. */
    CU_ASSERT(info->ended_at + 999 >= info->started_at + 1500);
    sbx_backend_free_processes(sbx_test_docker.backend, info);
    CU_ASSERT_EQUAL(processes_running("4245"), 0);
}

static void test_many_at_once_then_list_and_forget(void)
{
    enum { MANY = 25 };
    char ids[MANY][SBX_PROCESS_ID_MAX + 1];
    for (int i = 0; i < MANY; i++)
        start_ok("echo started; exec sleep 4242", 0, 0, ids[i]);
    sbx_process_info *list = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_FATAL(
        sbx_backend_process_list(sbx_test_docker.backend, SANDBOX, &list, &count, &err) == SBX_OK);
    int running = 0;
    for (const sbx_process_info *p = list; p != NULL; p = p->next)
        for (int i = 0; i < MANY; i++)
            if (strcmp(p->process_id, ids[i]) == 0 && p->state == SBX_PROCESS_RUNNING)
                running++;
    CU_ASSERT_EQUAL(running, MANY);
    sbx_backend_free_processes(sbx_test_docker.backend, list);
    CU_ASSERT_EQUAL(sbx_backend_process_forget(sbx_test_docker.backend, SANDBOX, ids[0], &err),
                    SBX_ERR_USAGE);
    for (int i = 0; i < MANY; i++) {
        CU_ASSERT_EQUAL(
            sbx_backend_process_signal(sbx_test_docker.backend, SANDBOX, ids[i], 9, &err), SBX_OK);
        static seen s;
        CU_ASSERT_FATAL(read_to_end(sbx_test_docker.backend, SANDBOX, ids[i],
                                    (sbx_process_cursor){ 0, 0 }, 0, &s) == 0);
        CU_ASSERT(s.out_len == 8 && memcmp(s.out, "started\n", 8) == 0);
        CU_ASSERT_EQUAL(s.last.term_signal, 9);
        CU_ASSERT_EQUAL(sbx_backend_process_forget(sbx_test_docker.backend, SANDBOX, ids[i], &err),
                        SBX_OK);
    }
    CU_ASSERT_EQUAL(processes_running("4242"), 0);
}

static void test_bad_ids_each_their_error(void)
{
    char id[SBX_PROCESS_ID_MAX + 1];
    start_ok("exec sleep 4243", 0, 0, id);
    sbx_error err;
    sbx_process_info *info = NULL;
    /* Another sandbox does not know it. */
    CU_ASSERT_EQUAL(sbx_backend_process_wait(sbx_test_docker.backend, OTHER, id, 0, &info, &err),
                    SBX_ERR_NO_SUCH_PROCESS);
    CU_ASSERT_EQUAL(sbx_backend_process_signal(sbx_test_docker.backend, OTHER, id, 9, &err),
                    SBX_ERR_NO_SUCH_PROCESS);
    CU_ASSERT_EQUAL(
        sbx_backend_process_wait(sbx_test_docker.backend, SANDBOX, "p0nosuch", 0, &info, &err),
        SBX_ERR_NO_SUCH_PROCESS);
    CU_ASSERT(strstr(err.message, "p0nosuch") != NULL);
    /* Still running after all that. */
    CU_ASSERT_FATAL(
        sbx_backend_process_wait(sbx_test_docker.backend, SANDBOX, id, 0, &info, &err) == SBX_OK);
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_RUNNING);
    sbx_backend_free_processes(sbx_test_docker.backend, info);
    CU_ASSERT_EQUAL(sbx_backend_process_signal(sbx_test_docker.backend, SANDBOX, id, 9, &err),
                    SBX_OK);
    /* A terminal's size out of range is refused by name; so is the resize
     * of a process without a terminal, and a sandbox that is not there. */
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.shell_command = "true";
    r.pty = 1;
    r.rows = 0;
    CU_ASSERT_EQUAL(sbx_backend_process_start(sbx_test_docker.backend, SANDBOX, &r, &info, &err),
                    SBX_ERR_USAGE);
    CU_ASSERT(strstr(err.message, "0 rows") != NULL);
    CU_ASSERT_EQUAL(
        sbx_backend_process_resize(sbx_test_docker.backend, SANDBOX, id, 100000, 80, &err),
        SBX_ERR_USAGE);
    CU_ASSERT_EQUAL(sbx_backend_process_resize(sbx_test_docker.backend, SANDBOX, id, 30, 100, &err),
                    SBX_ERR_USAGE);
    CU_ASSERT(strstr(err.message, "no terminal") != NULL);
    r.pty = 0;
    CU_ASSERT_EQUAL(
        sbx_backend_process_start(sbx_test_docker.backend, "no-such-box", &r, &info, &err),
        SBX_ERR_NOT_FOUND);
    r.buffer_bytes = (size_t)1 << 40;
    CU_ASSERT_EQUAL(sbx_backend_process_start(sbx_test_docker.backend, SANDBOX, &r, &info, &err),
                    SBX_ERR_USAGE);
}

/* On a terminal: list says so, a signal reaches the group of the
 * process (not the helper that owns the terminal), and closing stdin types
 * the terminal's end of file. */
static void test_terminal_signal_and_end_of_file(void)
{
    sbx_process_request r = shell_request("sleep 4244 & cat; echo cat-ended; wait", 1, 0);
    r.pty = 1;
    char id[SBX_PROCESS_ID_MAX + 1];
    sbx_error err;
    sbx_status st = start_in(sbx_test_docker.backend, SANDBOX, &r, id, &err);
    if (st != SBX_OK)
        fprintf(stderr, "process_start: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    sbx_process_info *list = NULL;
    size_t count = 0;
    CU_ASSERT_FATAL(
        sbx_backend_process_list(sbx_test_docker.backend, SANDBOX, &list, &count, &err) == SBX_OK);
    int listed = 0;
    for (sbx_process_info *p = list; p != NULL; p = p->next)
        if (strcmp(p->process_id, id) == 0)
            listed = p->pty ? 1 : -1;
    sbx_backend_free_processes(sbx_test_docker.backend, list);
    CU_ASSERT_EQUAL(listed, 1);
    CU_ASSERT_EQUAL(write_stdin(id, "", 1, &err), SBX_OK);
    static seen s;
    memset(&s, 0, sizeof s);
    sbx_process_read_request rr = SBX_PROCESS_READ_REQUEST_INIT;
    rr.wait_ms = 5000;
    long until = sbx_test_now_ms() + DEADLINE_MS;
    /* cat ends at the typed end of file; the shell waits for sleep. */
    while (strstr(s.out, "cat-ended") == NULL && sbx_test_now_ms() < until) {
        sbx_process_output *o = NULL;
        CU_ASSERT_FATAL(sbx_backend_process_read(sbx_test_docker.backend, SANDBOX, id, &rr, &o,
                                                 &err) == SBX_OK);
        CU_ASSERT_FATAL(!o->ended);
        if (s.out_len + o->length < sizeof s.out) {
            memcpy(s.out + s.out_len, o->data, o->length);
            s.out_len += o->length;
        }
        rr.cursor = o->next;
        sbx_backend_free_process_output(sbx_test_docker.backend, o);
    }
    CU_ASSERT_PTR_NOT_NULL(strstr(s.out, "cat-ended"));
    CU_ASSERT_EQUAL(processes_running("4244"), 1);
    CU_ASSERT_EQUAL(sbx_backend_process_signal(sbx_test_docker.backend, SANDBOX, id, 15, &err),
                    SBX_OK);
    CU_ASSERT_FATAL(read_to_end(sbx_test_docker.backend, SANDBOX, id, (sbx_process_cursor){ 0, 0 },
                                0, &s) == 0);
    CU_ASSERT_EQUAL(s.last.outcome, SBX_EXEC_SIGNALED);
    CU_ASSERT_EQUAL(s.last.term_signal, 15);
    CU_ASSERT_EQUAL(processes_running("4244"), 0);
}

/* SIGINT ends a process that did not ask otherwise (a background start
 * must not leave it ignored), with or without a terminal. */
static void test_an_interrupt_ends_a_process(void)
{
    for (int pty = 0; pty <= 1; pty++) {
        sbx_process_request r = shell_request("exec sleep 4246", 0, 0);
        r.pty = pty;
        char id[SBX_PROCESS_ID_MAX + 1];
        sbx_error err;
        CU_ASSERT_FATAL(start_in(sbx_test_docker.backend, SANDBOX, &r, id, &err) == SBX_OK);
        CU_ASSERT_EQUAL(sbx_backend_process_signal(sbx_test_docker.backend, SANDBOX, id, 2, &err),
                        SBX_OK);
        static seen s;
        CU_ASSERT_FATAL(read_to_end(sbx_test_docker.backend, SANDBOX, id,
                                    (sbx_process_cursor){ 0, 0 }, 0, &s) == 0);
        CU_ASSERT_EQUAL(s.last.outcome, SBX_EXEC_SIGNALED);
        CU_ASSERT_EQUAL(s.last.term_signal, 2);
    }
}

static void test_limit_and_destroy_with_processes(void)
{
    sbx_host *h;
    sbx_backend *b;
    CU_ASSERT_FATAL(open_backend(&h, &b, "3") == 0);
    CU_ASSERT_FATAL(create_sandbox(b, "proc-limit") == 0);
    char id[SBX_PROCESS_ID_MAX + 1];
    sbx_error err;
    const sbx_process_request sleeper = shell_request("exec sleep 4244", 0, 0);
    for (int i = 0; i < 3; i++)
        CU_ASSERT_EQUAL(start_in(b, "proc-limit", &sleeper, id, &err), SBX_OK);
    CU_ASSERT_EQUAL(start_in(b, "proc-limit", &sleeper, id, &err), SBX_ERR_REFUSED);
    CU_ASSERT(strstr(err.message, "max_processes") != NULL);
    CU_ASSERT_EQUAL(sbx_backend_destroy(b, "proc-limit", &err), SBX_OK);
    sbx_process_info *list = NULL;
    size_t count = 0;
    CU_ASSERT_EQUAL(sbx_backend_process_list(b, "proc-limit", &list, &count, &err),
                    SBX_ERR_NOT_FOUND);
    sbx_backend_close(b);
    sbx_host_free(h);
}

/* on_output, as the command prints: the command waits for a file that
 * the callback makes (through another instance) once it saw the first
 * line, so it ends only if the line arrived while it ran. */
typedef struct stream_seen {
    sbx_backend *other;
    char out[64];
    size_t len;
    int touched;
} stream_seen;

static void on_output(void *ctx, sbx_stream stream, const char *data, size_t length)
{
    stream_seen *s = ctx;
    if (stream == SBX_STREAM_STDOUT && s->len + length < sizeof s->out) {
        memcpy(s->out + s->len, data, length);
        s->len += length;
    }
    if (!s->touched && s->len >= 6 && memcmp(s->out, "first\n", 6) == 0) {
        s->touched = 1;
        sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
        r.shell_command = "touch /tmp/stream-go";
        sbx_exec_result *res = NULL;
        sbx_error err;
        if (sbx_backend_exec(s->other, SANDBOX, &r, &res, &err) == SBX_OK)
            sbx_backend_free_exec_result(s->other, res);
    }
}

static void test_exec_streams_as_output_arrives(void)
{
    sbx_host *h;
    stream_seen s = { 0 };
    CU_ASSERT_FATAL(open_backend(&h, &s.other, "") == 0);
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = "rm -f /tmp/stream-go; echo first; "
                      "while [ ! -e /tmp/stream-go ]; do sleep 0.05; done; echo second";
    r.timeout_ms = 60000;
    r.on_output = on_output;
    r.output_ctx = &s;
    sbx_exec_result *res = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_exec(sbx_test_docker.backend, SANDBOX, &r, &res, &err) == SBX_OK);
    CU_ASSERT_EQUAL(res->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(s.len, 13);
    CU_ASSERT(memcmp(s.out, "first\nsecond\n", 13) == 0);
    CU_ASSERT_EQUAL(res->stdout_length, 13);
    sbx_backend_free_exec_result(sbx_test_docker.backend, res);
    sbx_backend_close(s.other);
    sbx_host_free(h);
}

void sbx_test_register(void)
{
    sbx_test_docker_engine(&sbx_test_docker.socket, &sbx_test_docker.image);
    static const CU_TestInfo tests[] = {
        { "operations_info: processes, signals, stdin close, streams, terminals", test_operations_info },
        { "a process another host process started, read by two more", test_found_and_read_by_other_host_processes },
        { "a reader behind a 4096-byte buffer: dropped count, the tail", test_reader_behind_gets_dropped_count },
        { "stdin: a round trip while open, close, writes after it", test_stdin_round_trip_and_close },
        { "a signal reaches the process's group", test_signal_reaches_the_group },
        { "a timeout kills the group", test_timeout_kills_the_group },
        { "25 processes at once, listed, killed, read, forgotten", test_many_at_once_then_list_and_forget },
        { "unknown ids, another sandbox's id, terminal sizes, no sandbox", test_bad_ids_each_their_error },
        { "a terminal: listed, signal to its group, end of file typed", test_terminal_signal_and_end_of_file },
        { "SIGINT ends a process, with or without a terminal", test_an_interrupt_ends_a_process },
        { "the process limit; destroy with processes running", test_limit_and_destroy_with_processes },
        { "exec: on_output as the command prints", test_exec_streams_as_output_arrives },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("docker backend processes", suite_init, suite_clean, tests);
}
