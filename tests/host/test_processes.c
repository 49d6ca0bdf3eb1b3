/* The live-process operations and the other additions of ABI 1.4 through
 * the host, from fixture modules: modules of 1.0 to 1.3 (and a 1.4 one
 * without processes) answer "unsupported" for every process call; a 1.4
 * module gets its calls with their arguments unchanged, and its malformed
 * answers are refused; bad arguments are usage errors, each with its own
 * message, before any module sees them.  The operations themselves will be
 * tested against every backend in tests/backend-contract. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "tests/host/host_fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const one_word[] = {"serve", NULL};

/* Every process call of module `name`: unsupported, naming it and the
 * call; nothing handed out; no process operations claimed. */
static void expect_no_processes(const char *name)
{
    host_fixture o;
    host_fixture_open(&o, name);
    sbx_error err;
    sbx_operations_info info = { .struct_size = sizeof info };
    CU_ASSERT_EQUAL(sbx_backend_operations_info(o.backend, &info, &err), SBX_OK);
    CU_ASSERT_EQUAL(info.operations & (SBX_OP_PROCESS | SBX_OP_PROCESS_PTY), 0u);
    sbx_process_request start = SBX_PROCESS_REQUEST_INIT;
    start.argv = one_word;
    sbx_process_info *info_out = (sbx_process_info *)&err;
    expect_unsupported(sbx_backend_process_start(o.backend, "box", &start, &info_out, &err),
                       &err, name, "process_start");
    CU_ASSERT_PTR_NULL(info_out);
    sbx_process_read_request read = SBX_PROCESS_READ_REQUEST_INIT;
    sbx_process_output *output = (sbx_process_output *)&err;
    expect_unsupported(sbx_backend_process_read(o.backend, "box", "p-1", &read, &output, &err),
                       &err, name, "process_read");
    CU_ASSERT_PTR_NULL(output);
    sbx_process_write_request write = SBX_PROCESS_WRITE_REQUEST_INIT;
    expect_unsupported(sbx_backend_process_write(o.backend, "box", "p-1", &write, &err), &err,
                       name, "process_write");
    expect_unsupported(sbx_backend_process_signal(o.backend, "box", "p-1", 15, &err), &err,
                       name, "process_signal");
    expect_unsupported(sbx_backend_process_resize(o.backend, "box", "p-1", 24, 80, &err), &err,
                       name, "process_resize");
    info_out = (sbx_process_info *)&err;
    expect_unsupported(sbx_backend_process_wait(o.backend, "box", "p-1", 0, &info_out, &err),
                       &err, name, "process_wait");
    CU_ASSERT_PTR_NULL(info_out);
    size_t count = 7;
    info_out = (sbx_process_info *)&err;
    expect_unsupported(sbx_backend_process_list(o.backend, "box", &info_out, &count, &err), &err,
                       name, "process_list");
    CU_ASSERT_PTR_NULL(info_out);
    CU_ASSERT_EQUAL(count, 0);
    expect_unsupported(sbx_backend_process_forget(o.backend, "box", "p-1", &err), &err, name,
                       "process_forget");
    host_fixture_close(&o);
}

static void test_minor_0_has_no_processes(void) { expect_no_processes("fixture-older-minor"); }
static void test_minor_2_has_no_processes(void) { expect_no_processes("fixture-minor-2"); }
static void test_minor_3_has_no_processes(void) { expect_no_processes("fixture-minor-3"); }
static void test_current_without_slots_has_no_processes(void)
{
    expect_no_processes("fixture-good");
}

/* A 1.4 module gets each call, with its arguments as the caller gave them. */
static void test_calls_are_routed(void)
{
    host_fixture o;
    host_fixture_open(&o, "fixture-processes");
    sbx_error err;
    sbx_operations_info info = { .struct_size = sizeof info };
    CU_ASSERT_EQUAL(sbx_backend_operations_info(o.backend, &info, &err), SBX_OK);
    CU_ASSERT_EQUAL(info.operations, SBX_OP_PROCESS | SBX_OP_PROCESS_PTY | SBX_OP_READ_FILE |
                                         SBX_OP_EXEC | SBX_OP_EXEC_STREAM);

    sbx_process_request start = SBX_PROCESS_REQUEST_INIT;
    start.argv = one_word;
    start.pty = 1;
    sbx_process_info *p = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_process_start(o.backend, "box", &start, &p, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(p->process_id, "p-1");
    CU_ASSERT_STRING_EQUAL(p->argv[0], "serve");
    CU_ASSERT_EQUAL(p->state, SBX_PROCESS_RUNNING);
    sbx_backend_free_processes(o.backend, p);

    sbx_process_read_request read = SBX_PROCESS_READ_REQUEST_INIT;
    read.cursor.stdout_offset = 100;
    read.cursor.stderr_offset = 5;
    read.wait_ms = SBX_PROCESS_WAIT_MAX_MS;
    sbx_process_output *out = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_process_read(o.backend, "box", "p-1", &read, &out, &err),
                          SBX_OK);
    CU_ASSERT_EQUAL(out->length, 10);
    CU_ASSERT_EQUAL(memcmp(out->data, "out\0puterr", 10), 0);
    CU_ASSERT_EQUAL(out->chunk_count, 2);
    CU_ASSERT_EQUAL(out->chunks[1].stream, SBX_STREAM_STDERR);
    CU_ASSERT_EQUAL(out->next.stdout_offset, 107);
    CU_ASSERT_EQUAL(out->next.stderr_offset, 8);
    sbx_backend_free_process_output(o.backend, out);
    out = (sbx_process_output *)&err;
    expect_error(sbx_backend_process_read(o.backend, "box", "gone", &read, &out, &err), &err,
                 SBX_ERR_NO_SUCH_PROCESS, "gone");
    CU_ASSERT_PTR_NULL(out);

    sbx_process_write_request write = SBX_PROCESS_WRITE_REQUEST_INIT;
    write.data = "hello";
    write.length = 5;
    write.close_stdin = 1;
    CU_ASSERT_EQUAL(sbx_backend_process_write(o.backend, "box", "p-1", &write, &err), SBX_OK);
    expect_error(sbx_backend_process_write(o.backend, "box", "echo", &write, &err), &err,
                 SBX_ERR_PROVISIONER, "write 5 bytes close 1");
    CU_ASSERT_EQUAL(sbx_backend_process_signal(o.backend, "box", "p-1", 15, &err), SBX_OK);
    expect_error(sbx_backend_process_signal(o.backend, "box", "echo", SBX_SIGNAL_MAX, &err), &err,
                 SBX_ERR_PROVISIONER, "signal 64");
    expect_error(sbx_backend_process_resize(o.backend, "box", "echo", 30, SBX_PTY_SIZE_MAX, &err),
                 &err, SBX_ERR_PROVISIONER, "resize 30x4096");
    expect_error(sbx_backend_process_forget(o.backend, "box", "gone", &err), &err,
                 SBX_ERR_NO_SUCH_PROCESS, "gone");
    CU_ASSERT_EQUAL(sbx_backend_process_forget(o.backend, "box", "p-1", &err), SBX_OK);

    p = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_process_wait(o.backend, "box", "p-1", 5, &p, &err), SBX_OK);
    CU_ASSERT_EQUAL(p->state, SBX_PROCESS_ENDED);
    CU_ASSERT_EQUAL(p->exit_code, 3);
    sbx_backend_free_processes(o.backend, p);
    size_t count = 0;
    p = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_process_list(o.backend, "box", &p, &count, &err), SBX_OK);
    CU_ASSERT_EQUAL(count, 2);
    CU_ASSERT_STRING_EQUAL(p->next->process_id, "p-2");
    sbx_backend_free_processes(o.backend, p);
    host_fixture_close(&o);
}

/* A module with only the request slot answers the positional call too. */
static void test_file_requests_are_routed(void)
{
    host_fixture o;
    host_fixture_open(&o, "fixture-processes");
    sbx_error err;
    sbx_read_file_request req = SBX_READ_FILE_REQUEST_INIT;
    req.path = "dir/f";
    req.offset = 7;
    req.max_bytes = 100;
    sbx_file_content *c = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_read_file_req(o.backend, "box", &req, &c, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(c->data, "dir/f@7");
    sbx_backend_free_file_content(o.backend, c);
    c = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_read_file(o.backend, "box", "g", 9, 3, &c, &err), SBX_OK);
    CU_ASSERT_EQUAL(c->length, 3);
    CU_ASSERT_EQUAL(memcmp(c->data, "g@9", 3), 0);
    sbx_backend_free_file_content(o.backend, c);
    expect_unsupported(sbx_backend_write_file(o.backend, "box", "f", "x", 1, 0, 0, &err), &err,
                       "fixture-processes", "write_file");
    req.struct_size = offsetof(sbx_read_file_request, max_bytes);
    expect_error(sbx_backend_read_file_req(o.backend, "box", &req, &c, &err), &err,
                 SBX_ERR_USAGE, "SBX_READ_FILE_REQUEST_INIT");
    expect_error(sbx_backend_read_file_req(o.backend, "box", NULL, &c, &err), &err,
                 SBX_ERR_USAGE, "SBX_READ_FILE_REQUEST_INIT");
    host_fixture_close(&o);
}

/* The answers of sandbox `sandbox_id` are refused naming `problem`. */
static void expect_refused_answers(host_fixture *o, const char *sandbox_id, int read_too,
                                   const char *problem)
{
    sbx_error err;
    sbx_process_request start = SBX_PROCESS_REQUEST_INIT;
    start.argv = one_word;
    sbx_process_info *p = (sbx_process_info *)&err;
    expect_error(sbx_backend_process_start(o->backend, sandbox_id, &start, &p, &err), &err,
                 SBX_ERR_INTERNAL, problem);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "fixture-processes"));
    size_t count = 9;
    p = (sbx_process_info *)&err;
    expect_error(sbx_backend_process_list(o->backend, sandbox_id, &p, &count, &err), &err,
                 SBX_ERR_INTERNAL, problem);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_EQUAL(count, 0);
    if (!read_too)
        return;
    sbx_process_read_request read = SBX_PROCESS_READ_REQUEST_INIT;
    sbx_process_output *out = (sbx_process_output *)&err;
    expect_error(sbx_backend_process_read(o->backend, sandbox_id, "p-1", &read, &out, &err), &err,
                 SBX_ERR_INTERNAL, problem);
    CU_ASSERT_PTR_NULL(out);
}

/* The answers for one read of sandbox `sandbox_id` are refused naming
 * `problem`. */
static void expect_refused_output(host_fixture *o, const char *sandbox_id, const char *problem)
{
    sbx_error err;
    sbx_process_read_request read = SBX_PROCESS_READ_REQUEST_INIT;
    sbx_process_output *out = (sbx_process_output *)&err;
    expect_error(sbx_backend_process_read(o->backend, sandbox_id, "p-1", &read, &out, &err), &err,
                 SBX_ERR_INTERNAL, problem);
    CU_ASSERT_PTR_NULL(out);
}

static void test_malformed_answers_are_refused(void)
{
    host_fixture o;
    host_fixture_open(&o, "fixture-processes");
    expect_refused_answers(&o, "short", 1, "smaller than ABI 1.4's");
    expect_refused_answers(&o, "badid", 0, "without a valid process id");
    expect_refused_output(&o, "nobuffers", "without its buffers");
    expect_refused_output(&o, "badchunks", "do not add up");
    expect_refused_output(&o, "badcursor", "does not follow");
    sbx_error err;
    sbx_process_read_request read = SBX_PROCESS_READ_REQUEST_INIT;
    read.max_bytes = 4;
    sbx_process_output *out = NULL;
    expect_error(sbx_backend_process_read(o.backend, "box", "p-1", &read, &out, &err), &err,
                 SBX_ERR_INTERNAL, "more bytes than asked");
    size_t count = 9;
    sbx_process_info *p = NULL;
    expect_error(sbx_backend_process_list(o.backend, "badcount", &p, &count, &err), &err,
                 SBX_ERR_INTERNAL, "differs from its count");
    CU_ASSERT_EQUAL(count, 0);
    host_fixture_close(&o);
}

/* Bad arguments: each a usage error with its own message, and the module
 * never called (it would answer "echo" with a provisioner error). */
static void test_bad_arguments_are_usage_errors(void)
{
    host_fixture o;
    host_fixture_open(&o, "fixture-processes");
    sbx_error err;
    sbx_process_request start = SBX_PROCESS_REQUEST_INIT;
    start.argv = one_word;
    start.pty = 1;
    sbx_process_info *p = NULL;
    start.rows = 0;
    expect_error(sbx_backend_process_start(o.backend, "box", &start, &p, &err), &err,
                 SBX_ERR_USAGE, "terminal size 0 rows x 80 columns is outside 1..4096");
    start.rows = 24;
    start.cols = 100000;
    expect_error(sbx_backend_process_start(o.backend, "box", &start, &p, &err), &err,
                 SBX_ERR_USAGE, "terminal size 24 rows x 100000 columns");
    start.cols = 80;
    start.timeout_ms = -1;
    expect_error(sbx_backend_process_start(o.backend, "box", &start, &p, &err), &err,
                 SBX_ERR_USAGE, "timeout of -1 ms is negative");
    start.timeout_ms = 0;
    start.struct_size = offsetof(sbx_process_request, buffer_bytes);
    expect_error(sbx_backend_process_start(o.backend, "box", &start, &p, &err), &err,
                 SBX_ERR_USAGE, "SBX_PROCESS_REQUEST_INIT");
    expect_error(sbx_backend_process_start(o.backend, NULL, &start, &p, &err), &err,
                 SBX_ERR_USAGE, "a sandbox id is required");
    CU_ASSERT_PTR_NULL(p);

    expect_error(sbx_backend_process_resize(o.backend, "box", "echo", 24, 0, &err), &err,
                 SBX_ERR_USAGE, "terminal size 24 rows x 0 columns");
    expect_error(sbx_backend_process_resize(o.backend, "box", "echo", 4097, 80, &err), &err,
                 SBX_ERR_USAGE, "terminal size 4097 rows");
    expect_error(sbx_backend_process_signal(o.backend, "box", "echo", 0, &err), &err,
                 SBX_ERR_USAGE, "signal 0 is outside 1..64");
    expect_error(sbx_backend_process_signal(o.backend, "box", "echo", 65, &err), &err,
                 SBX_ERR_USAGE, "signal 65 is outside 1..64");

    static const char *const bad_ids[] = {
        "", "a b", "../x", "p\n1", "a/b", "..", ".hidden", "-n"};
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++)
        expect_error(sbx_backend_process_forget(o.backend, "box", bad_ids[i], &err), &err,
                     SBX_ERR_USAGE, "is not a process id");
    char longest[SBX_PROCESS_ID_MAX + 2];
    memset(longest, 'p', SBX_PROCESS_ID_MAX);
    longest[SBX_PROCESS_ID_MAX] = '\0';
    CU_ASSERT_EQUAL(sbx_backend_process_forget(o.backend, "box", longest, &err), SBX_OK);
    longest[SBX_PROCESS_ID_MAX] = 'p';
    longest[SBX_PROCESS_ID_MAX + 1] = '\0';
    expect_error(sbx_backend_process_forget(o.backend, "box", longest, &err), &err,
                 SBX_ERR_USAGE, "is not a process id (1 to 128 bytes");
    expect_error(sbx_backend_process_signal(o.backend, "box", NULL, 15, &err), &err,
                 SBX_ERR_USAGE, "'(null)' is not a process id");

    sbx_process_read_request read = SBX_PROCESS_READ_REQUEST_INIT;
    sbx_process_output *out = NULL;
    read.wait_ms = -1;
    expect_error(sbx_backend_process_read(o.backend, "box", "echo", &read, &out, &err), &err,
                 SBX_ERR_USAGE, "wait of -1 ms is outside 0..60000");
    read.wait_ms = SBX_PROCESS_WAIT_MAX_MS + 1;
    expect_error(sbx_backend_process_read(o.backend, "box", "echo", &read, &out, &err), &err,
                 SBX_ERR_USAGE, "wait of 60001 ms");
    expect_error(sbx_backend_process_read(o.backend, "box", "echo", NULL, &out, &err), &err,
                 SBX_ERR_USAGE, "SBX_PROCESS_READ_REQUEST_INIT");
    expect_error(sbx_backend_process_wait(o.backend, "box", "echo", -5, &p, &err), &err,
                 SBX_ERR_USAGE, "wait of -5 ms");

    sbx_process_write_request write = SBX_PROCESS_WRITE_REQUEST_INIT;
    write.length = 3;
    expect_error(sbx_backend_process_write(o.backend, "box", "echo", &write, &err), &err,
                 SBX_ERR_USAGE, "3 bytes but no data");
    write.struct_size = sizeof(size_t);
    expect_error(sbx_backend_process_write(o.backend, "box", "echo", &write, &err), &err,
                 SBX_ERR_USAGE, "SBX_PROCESS_WRITE_REQUEST_INIT");
    size_t count = 0;
    expect_error(sbx_backend_process_list(o.backend, NULL, &p, &count, &err), &err,
                 SBX_ERR_USAGE, "a sandbox id is required");
    host_fixture_close(&o);
}

/* Process operations without free_processes: refused at load, naming it. */
static void test_processes_need_their_free_operations(void)
{
    sbx_host *host = host_fixtures_new_host();
    sbx_error err;
    const sbx_backend_descriptor *d = NULL;
    expect_error(sbx_host_load(host, "fixture-processes-no-free", &d, &err), &err, SBX_ERR_LOAD,
                 "free_processes");
    sbx_host_free(host);
}

/* What an output callback was given. */
typedef struct collected {
    int calls;
    sbx_stream stream;
    char text[64];
} collected;

static void collect(void *ctx, sbx_stream stream, const char *data, size_t length)
{
    collected *c = ctx;
    c->calls++;
    c->stream = stream;
    snprintf(c->text, sizeof c->text, "%.*s", (int)length, data);
}

/* A backend that does not stream exec output still honours on_output: the
 * host calls it from the result, once per stream that has bytes. */
static void expect_output_from_result(const char *name)
{
    host_fixture o;
    host_fixture_open(&o, name);
    sbx_create_request create = SBX_CREATE_REQUEST_INIT;
    create.sandbox_id = "box";
    sbx_sandbox *s = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_create(o.backend, &create, &s, &err), SBX_OK);
    sbx_backend_free_sandboxes(o.backend, s, 1);
    static const char *const argv[] = {"say", "hi", NULL};
    collected seen = {0};
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    req.argv = argv;
    req.on_output = collect;
    req.output_ctx = &seen;
    sbx_exec_result *r = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_exec(o.backend, "box", &req, &r, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "say hi");
    sbx_backend_free_exec_result(o.backend, r);
    CU_ASSERT_EQUAL(seen.calls, 1);
    CU_ASSERT_EQUAL(seen.stream, SBX_STREAM_STDOUT);
    CU_ASSERT_STRING_EQUAL(seen.text, "say hi");
    /* A request of 1.3's size has no callback: nothing is called. */
    req.struct_size = SBX_EXEC_REQUEST_SIZE_1_3 + sizeof(int);
    CU_ASSERT_EQUAL_FATAL(sbx_backend_exec(o.backend, "box", &req, &r, &err), SBX_OK);
    sbx_backend_free_exec_result(o.backend, r);
    CU_ASSERT_EQUAL(seen.calls, 1);
    host_fixture_close(&o);
}

static void test_minor_3_exec_output_from_result(void)
{
    expect_output_from_result("fixture-minor-3");
}

static void test_current_exec_output_from_result(void)
{
    expect_output_from_result("fixture-good");
}

/* A backend that streams calls on_output itself: the host does not call
 * it a second time from the result. */
static void test_streaming_exec_output_once(void)
{
    host_fixture o;
    host_fixture_open(&o, "fixture-processes");
    static const char *const argv[] = {"x", NULL};
    collected seen = {0};
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    req.argv = argv;
    req.on_output = collect;
    req.output_ctx = &seen;
    sbx_exec_result *r = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_exec(o.backend, "box", &req, &r, &err), SBX_OK);
    sbx_backend_free_exec_result(o.backend, r);
    CU_ASSERT_EQUAL(seen.calls, 1);
    CU_ASSERT_STRING_EQUAL(seen.text, "streamed");
    host_fixture_close(&o);
}

void sbx_test_register(void)
{
    host_fixtures_locate();
    static const CU_TestInfo tests[] = {
        {"a 1.0 module: every process call unsupported, naming it",
         test_minor_0_has_no_processes},
        {"a 1.2 module: every process call unsupported", test_minor_2_has_no_processes},
        {"a 1.3 module built with the 1.3 header: every process call unsupported",
         test_minor_3_has_no_processes},
        {"a 1.4 module without the slots: every process call unsupported",
         test_current_without_slots_has_no_processes},
        {"a 1.4 module gets every process call with its arguments", test_calls_are_routed},
        {"file requests reach the request slot, positional calls too",
         test_file_requests_are_routed},
        {"malformed process answers are refused, not handed out",
         test_malformed_answers_are_refused},
        {"bad process arguments are usage errors, each its own",
         test_bad_arguments_are_usage_errors},
        {"process operations without their frees: the module is refused",
         test_processes_need_their_free_operations},
        {"exec on_output from a 1.3 module's result", test_minor_3_exec_output_from_result},
        {"exec on_output from a non-streaming 1.4 module's result",
         test_current_exec_output_from_result},
        {"exec on_output from a streaming module: called once, by the module",
         test_streaming_exec_output_once},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("processes", NULL, NULL, tests);
}
