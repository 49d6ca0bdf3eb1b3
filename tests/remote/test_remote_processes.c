/* The remote backend's live processes (ABI 1.4) over real HTTP: the
 * provisioner emulator with --aio serves the AIO bash routes of live
 * commands on local processes (docs/remote.md "Processes (ABI 1.4)").
 * Through the public host API: hostile argv with stdin closed, output
 * followed from a cursor to the end (NUL bytes kept), a second backend
 * instance (as another host process would) reading by id alone, stdin,
 * signals to the group, wait, list, forget, what the wire cannot do, unknown
 * ids, and neither key in any message or log line. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/remote/remote_fixture.h"
#include "tests/support/cunit_main.h"
#include "tests/support/subprocess.h"

#define AIO_KEY "aio-key-5e0d2c7b9a4f1e3d8c6b"
#define SB "proc-sb"
/* Generous: a loaded 2-core machine must not fail a correct run. */
#define DEADLINE_MS 60000

static char state_dir[64];
static sbx_rt rt;
static int started;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Start the emulator and create SB on the first test's call (CUnit's
 * assertions, which the fixture makes, belong inside a test); 1 when
 * they are there. */
static int ensure_started(void)
{
    static int tried;
    if (tried)
        return started;
    tried = 1;
    snprintf(state_dir, sizeof state_dir, "/tmp/sbx-remote-proc.XXXXXX");
    if (mkdtemp(state_dir) == NULL)
        return 0;
    const char *args[] = {"--aio", "--aio-api-key", AIO_KEY, "--state-dir", state_dir, NULL};
    sbx_option extra[] = {{"sandbox_api_key", AIO_KEY}, {"get_timeout_ms", "60000"}};
    memset(&rt, 0, sizeof rt);
    if (!sbx_rt_start(&rt, args, NULL, extra, 2))
        return 0;
    sbx_create_request req = sbx_rt_create_request(SB, NULL, NULL);
    sbx_error err;
    sbx_sandbox *sb = sbx_rt_create_ok(&rt, &req, &err);
    if (sb == NULL)
        return 0;
    sbx_backend_free_sandboxes(rt.backend, sb, 1);
    started = 1;
    return 1;
}

static int suite_stop(void)
{
    sbx_rt_stop(&rt);
    if (state_dir[0] != '\0') {
        const char *argv[] = {"rm", "-rf", "--", state_dir, NULL};
        sbx_test_run_program(argv, 30000, NULL, 0);
    }
    return 0;
}

/* Start `rq` in SB; the info's id, or "" after a failed assertion. */
static void start_ok(sbx_backend *backend, const sbx_process_request *rq, char *id, size_t cap)
{
    sbx_process_info *info = NULL;
    sbx_error err;
    sbx_error_clear(&err);
    sbx_status st = sbx_backend_process_start(backend, SB, rq, &info, &err);
    CU_ASSERT_EQUAL(st, SBX_OK);
    if (st != SBX_OK)
        fprintf(stderr, "process_start: %s\n", err.message);
    snprintf(id, cap, "%s", info != NULL ? info->process_id : "");
    sbx_backend_free_processes(backend, info);
}

/* Start shell text `text` in SB (stdin open or not); its id in `id`. */
static void start_shell(const char *text, int stdin_open, char id[SBX_PROCESS_ID_MAX + 1])
{
    sbx_process_request rq = SBX_PROCESS_REQUEST_INIT;
    rq.shell_command = text;
    rq.stdin_open = stdin_open;
    start_ok(rt.backend, &rq, id, SBX_PROCESS_ID_MAX + 1);
}

/* What following a process to its end gathered. */
typedef struct followed {
    char out[4096], err[4096];
    size_t out_len, err_len;
    sbx_process_output end;     /* the last answer's cursor and end (no data) */
    int reads;
} followed;

/* Read process `id` from the start until it ended (long polls). */
static void follow(sbx_backend *backend, const char *id, followed *f)
{
    memset(f, 0, sizeof *f);
    sbx_process_read_request rq = SBX_PROCESS_READ_REQUEST_INIT;
    rq.wait_ms = 5000;
    int64_t deadline = now_ms() + DEADLINE_MS;
    while (now_ms() < deadline) {
        sbx_process_output *o = NULL;
        sbx_error err;
        sbx_status st = sbx_backend_process_read(backend, SB, id, &rq, &o, &err);
        CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
        f->reads++;
        size_t at = 0;
        for (size_t i = 0; i < o->chunk_count; i++) {
            int is_err = o->chunks[i].stream == SBX_STREAM_STDERR;
            char *dst = is_err ? f->err : f->out;
            size_t *len = is_err ? &f->err_len : &f->out_len;
            if (*len + o->chunks[i].length <= sizeof f->out)
                memcpy(dst + *len, o->data + at, o->chunks[i].length);
            *len += o->chunks[i].length;
            at += o->chunks[i].length;
        }
        rq.cursor = o->next;
        int ended = o->ended;
        f->end = *o;
        f->end.data = NULL;
        f->end.chunks = NULL;
        sbx_backend_free_process_output(backend, o);
        if (ended)
            return;
    }
    CU_FAIL("the process did not end in time");
}

/* Hostile argv arrives word for word, stdin closed reads end of file, the
 * output is exact (NUL kept) and the info's argv is the request's. */
static void test_hostile_argv_and_exact_output(void)
{
    CU_ASSERT_FATAL(ensure_started());
    const char *argv[] = {"sh", "-c", "printf '<%s>' \"$@\"; printf 'x\\000y'; cat; "
                          "echo oops >&2; exit 7", "sh", "it's", "$(id)", "a\nb", "`id`",
                          " 0</dev/null", "\\'", NULL};
    sbx_process_request rq = SBX_PROCESS_REQUEST_INIT;
    rq.argv = argv;
    char id[SBX_PROCESS_ID_MAX + 1];
    start_ok(rt.backend, &rq, id, sizeof id);
    followed f;
    follow(rt.backend, id, &f);
    static const char expected[] = "<it's><$(id)><a\nb><`id`>< 0</dev/null><\\'>x\0y";
    CU_ASSERT_EQUAL(f.out_len, sizeof expected - 1);
    CU_ASSERT_EQUAL(memcmp(f.out, expected, sizeof expected - 1), 0);
    CU_ASSERT_EQUAL(f.err_len, 5);
    CU_ASSERT_EQUAL(memcmp(f.err, "oops\n", 5), 0);
    CU_ASSERT_EQUAL(f.end.outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(f.end.exit_code, 7);
    CU_ASSERT_EQUAL(f.end.next.stdout_offset, sizeof expected - 1);
    sbx_process_info *info = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_process_wait(rt.backend, SB, id, 0, &info, &err), SBX_OK);
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_ENDED);
    for (size_t i = 0; argv[i] != NULL; i++) {
        CU_ASSERT_PTR_NOT_NULL_FATAL(info->argv[i]);
        CU_ASSERT_STRING_EQUAL(info->argv[i], argv[i]);
    }
    sbx_backend_free_processes(rt.backend, info);
}

/* Another backend instance (as sbxctl in another host process) reaches a
 * running process with its id alone, and reads from any cursor. */
static void test_another_instance_reads_by_id(void)
{
    CU_ASSERT_FATAL(ensure_started());
    char id[SBX_PROCESS_ID_MAX + 1];
    start_shell("echo one; sleep 0.5; echo two", 0, id);
    sbx_rt second;
    memset(&second, 0, sizeof second);
    second.emu = rt.emu;
    sbx_option extra[] = {{"sandbox_api_key", AIO_KEY}};
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_rt_open(&second, NULL, extra, 1, &err), SBX_OK);
    followed f;
    follow(second.backend, id, &f);
    CU_ASSERT_EQUAL(f.out_len, 8);
    CU_ASSERT_EQUAL(memcmp(f.out, "one\ntwo\n", 8), 0);
    /* from a cursor past the first line */
    sbx_process_read_request read = SBX_PROCESS_READ_REQUEST_INIT;
    read.cursor.stdout_offset = 4;
    sbx_process_output *o = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_process_read(second.backend, SB, id, &read, &o, &err),
                          SBX_OK);
    CU_ASSERT_EQUAL(o->length, 4);
    CU_ASSERT_EQUAL(memcmp(o->data, "two\n", 4), 0);
    CU_ASSERT(o->ended);
    sbx_backend_free_process_output(second.backend, o);
    /* a cursor past the end is the caller's mistake */
    read.cursor.stdout_offset = 9;
    CU_ASSERT_EQUAL(sbx_backend_process_read(second.backend, SB, id, &read, &o, &err),
                    SBX_ERR_USAGE);
    second.emu = NULL;      /* the suite's: stopped by its owner */
    sbx_rt_stop(&second);
}

/* Bytes written reach stdin; the wire cannot close it. */
static void test_stdin_round_trip(void)
{
    CU_ASSERT_FATAL(ensure_started());
    char id[SBX_PROCESS_ID_MAX + 1];
    start_shell("read line; echo \"got $line\"", 1, id);
    sbx_process_write_request w = SBX_PROCESS_WRITE_REQUEST_INIT;
    w.close_stdin = 1;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_write(rt.backend, SB, id, &w, &err),
                    SBX_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "the AIO API cannot close stdin"));
    w.close_stdin = 0;
    w.data = "hi \xc3\xa9\n";
    w.length = 6;
    CU_ASSERT_EQUAL(sbx_backend_process_write(rt.backend, SB, id, &w, &err), SBX_OK);
    followed f;
    follow(rt.backend, id, &f);
    CU_ASSERT_EQUAL(f.out_len, 10);
    CU_ASSERT_EQUAL(memcmp(f.out, "got hi \xc3\xa9\n", 10), 0);
    w.data = "\xff";
    w.length = 1;
    CU_ASSERT_EQUAL(sbx_backend_process_write(rt.backend, SB, id, &w, &err),
                    SBX_ERR_UNSUPPORTED);
}

/* TERM reaches the group (no child survives); other signals are not on
 * the wire. */
static void test_signal_ends_the_group(void)
{
    CU_ASSERT_FATAL(ensure_started());
    char id[SBX_PROCESS_ID_MAX + 1];
    start_shell("sleep 61.75 & sleep 61.75", 0, id);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_signal(rt.backend, SB, id, SIGHUP, &err),
                    SBX_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "sends only SIGTERM, SIGKILL and SIGINT"));
    CU_ASSERT_EQUAL(sbx_backend_process_signal(rt.backend, SB, id, SIGTERM, &err), SBX_OK);
    sbx_process_info *info = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_process_wait(rt.backend, SB, id, DEADLINE_MS, &info,
                                                   &err), SBX_OK);
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_ENDED);
    CU_ASSERT_EQUAL(info->outcome, SBX_EXEC_SIGNALED);
    CU_ASSERT_EQUAL(info->term_signal, SIGTERM);
    sbx_backend_free_processes(rt.backend, info);
    int64_t deadline = now_ms() + DEADLINE_MS;
    for (;;) {
        sbx_exec_request ex = SBX_EXEC_REQUEST_INIT;
        ex.shell_command = "pgrep -f '[s]leep 61.75' || echo none";
        sbx_exec_result *r = NULL;
        CU_ASSERT_EQUAL_FATAL(sbx_backend_exec(rt.backend, SB, &ex, &r, &err), SBX_OK);
        int none = r->stdout_length == 5 && memcmp(r->stdout_data, "none\n", 5) == 0;
        sbx_backend_free_exec_result(rt.backend, r);
        if (none)
            break;
        CU_ASSERT_FATAL(now_ms() < deadline);
    }
}

/* wait is bounded; list shows a running process; forget drops only an
 * ended one; unknown ids are their own error. */
static void test_wait_forget_and_unknown_ids(void)
{
    CU_ASSERT_FATAL(ensure_started());
    char id[SBX_PROCESS_ID_MAX + 1];
    start_shell("sleep 60", 0, id);
    sbx_process_info *info = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_process_wait(rt.backend, SB, id, 0, &info, &err), SBX_OK);
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_RUNNING);
    sbx_backend_free_processes(rt.backend, info);
    CU_ASSERT_EQUAL(sbx_backend_process_forget(rt.backend, SB, id, &err), SBX_ERR_USAGE);
    /* listed while it runs, with its argv */
    size_t count = 0;
    int listed = 0;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_process_list(rt.backend, SB, &info, &count, &err), SBX_OK);
    for (sbx_process_info *p = info; p != NULL; p = p->next)
        if (strcmp(p->process_id, id) == 0)
            listed = p->state == SBX_PROCESS_RUNNING && strcmp(p->argv[2], "sleep 60") == 0;
    CU_ASSERT(listed);
    sbx_backend_free_processes(rt.backend, info);
    CU_ASSERT_EQUAL(sbx_backend_process_signal(rt.backend, SB, id, SIGKILL, &err), SBX_OK);
    CU_ASSERT_EQUAL_FATAL(sbx_backend_process_wait(rt.backend, SB, id, DEADLINE_MS, &info,
                                                   &err), SBX_OK);
    CU_ASSERT_EQUAL(info->term_signal, SIGKILL);
    sbx_backend_free_processes(rt.backend, info);
    CU_ASSERT_EQUAL(sbx_backend_process_forget(rt.backend, SB, id, &err), SBX_OK);
    sbx_process_read_request read = SBX_PROCESS_READ_REQUEST_INIT;
    sbx_process_output *o = NULL;
    CU_ASSERT_EQUAL(sbx_backend_process_read(rt.backend, SB, id, &read, &o, &err),
                    SBX_ERR_NO_SUCH_PROCESS);
    CU_ASSERT_EQUAL(sbx_backend_process_read(rt.backend, SB, "7-nosuchx", &read, &o, &err),
                    SBX_ERR_NO_SUCH_PROCESS);
    CU_ASSERT_EQUAL(sbx_backend_process_read(rt.backend, SB, "plain", &read, &o, &err),
                    SBX_ERR_NO_SUCH_PROCESS);
    CU_ASSERT(strstr(err.message, "plain") != NULL);
}

/* What the wire cannot do is said before the call, and refused. */
static void test_what_the_wire_cannot_do(void)
{
    CU_ASSERT_FATAL(ensure_started());
    sbx_operations_info ops = {.struct_size = sizeof ops};
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_operations_info(rt.backend, &ops, &err), SBX_OK);
    CU_ASSERT(ops.operations & SBX_OP_PROCESS);
    CU_ASSERT_FALSE(ops.operations & (SBX_OP_PROCESS_PTY | SBX_OP_PROCESS_SIGNALS |
                                      SBX_OP_PROCESS_STDIN_CLOSE | SBX_OP_EXEC_STREAM));
    sbx_process_request rq = SBX_PROCESS_REQUEST_INIT;
    rq.shell_command = "true";
    rq.pty = 1;
    sbx_process_info *info = NULL;
    CU_ASSERT_EQUAL(sbx_backend_process_start(rt.backend, SB, &rq, &info, &err),
                    SBX_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "process_start with a terminal"));
    rq.pty = 0;
    rq.buffer_bytes = 4096;
    CU_ASSERT_EQUAL(sbx_backend_process_start(rt.backend, SB, &rq, &info, &err),
                    SBX_ERR_UNSUPPORTED);
}

/* Runs last: the AIO key never reached a message or the log. */
static void test_zz_no_key_in_the_log(void)
{
    CU_ASSERT_FATAL(ensure_started());
    CU_ASSERT_FALSE(sbx_test_log_contains(rt.log, AIO_KEY));
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"hostile_argv_and_exact_output", test_hostile_argv_and_exact_output},
        {"another_instance_reads_by_id", test_another_instance_reads_by_id},
        {"stdin_round_trip", test_stdin_round_trip},
        {"signal_ends_the_group", test_signal_ends_the_group},
        {"wait_forget_and_unknown_ids", test_wait_forget_and_unknown_ids},
        {"what_the_wire_cannot_do", test_what_the_wire_cannot_do},
        {"zz_no_key_in_the_log", test_zz_no_key_in_the_log},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote processes", NULL, suite_stop, tests);
}
