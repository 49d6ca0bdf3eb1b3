/*
 * Live processes (ABI 1.4) as a host sees them, the same cases against
 * every backend that claims SBX_OP_PROCESS: a process outlives the host
 * process that started it and is read by another; output keeps its bytes
 * and its interleaving; a reader that falls behind is told what it
 * missed; stdin, signals to the group, a terminal and its size; fifty at
 * once; destroy ends them; each bad call its own error.  Streaming exec is
 * here too.  What a backend's operations_info says it cannot do is
 * skipped, and the skip is printed.
 */
#include <config.h>

#include "tests/backend-contract/contract_fixture.h"
#include "tests/backend-contract/process_calls.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Started by a host process that then exits; found, listed and read to
 * its end by this one, as a later `sbxctl logs` would. */
static void test_a_process_outlives_the_host_that_started_it(void)
{
    contract_case c;
    if (!contract_case_start(&c, "pc-outlive", SBX_OP_PROCESS, "run processes"))
        return;
    int ids[2];
    CU_ASSERT_FATAL(pipe(ids) == 0);
    pid_t child = fork();
    CU_ASSERT_FATAL(child >= 0);
    if (child == 0) {
        /* Another host process: its own host and backend. */
        contract_fixture other;
        contract_open(&other);
        char id[SBX_PROCESS_ID_MAX + 1];
        proc_test_start_shell(other.backend, c.id, "read line; echo got $line; echo bye >&2; exit 3",
                    &(sbx_process_request)SBX_PROCESS_REQUEST_INIT, id);
        ssize_t n = write(ids[1], id, strlen(id) + 1);
        contract_close(&other);
        _exit(n > 0 ? 0 : 1);
    }
    close(ids[1]);
    char id[SBX_PROCESS_ID_MAX + 1] = { 0 };
    ssize_t n = read(ids[0], id, sizeof id - 1);
    close(ids[0]);
    int status = 0;
    waitpid(child, &status, 0);
    CU_ASSERT_FATAL(n > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* Its stdin was never opened: it reads end of file at once. */
    sbx_process_info *list = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_list(c.f.backend, c.id, &list, &count, &err), SBX_OK);
    CU_ASSERT_EQUAL(count, 1);
    if (list != NULL)
        CU_ASSERT_STRING_EQUAL(list->process_id, id);
    sbx_backend_free_processes(c.f.backend, list);
    proc_collected got = { 0 };
    CU_ASSERT(proc_test_read_until(c.f.backend, c.id, id, &got, NULL));
    CU_ASSERT_EQUAL(got.outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(got.exit_code, 3);
    CU_ASSERT_EQUAL(got.out_len, 4);
    CU_ASSERT_NSTRING_EQUAL(got.out, "got\n", 4);
    CU_ASSERT_EQUAL(got.err_len, 4);
    CU_ASSERT_NSTRING_EQUAL(got.err, "bye\n", 4);
    contract_case_finish(&c);
}

/* Bytes come out exactly (NUL, invalid UTF-8), and the order of stdout
 * and stderr survives: each write waits for the reader to have seen the
 * one before (through stdin), so the order is the program's. */
static void test_output_keeps_bytes_and_interleaving(void)
{
    contract_case c;
    if (!contract_case_start(&c, "pc-bytes", SBX_OP_PROCESS, "run processes"))
        return;
    if (!contract_case_has(&c, SBX_OP_PROCESS_STDIN_CLOSE, "keep stdin open")) {
        contract_case_finish(&c);
        return;
    }
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.stdin_open = 1;
    char id[SBX_PROCESS_ID_MAX + 1];
    proc_test_start_shell(c.f.backend, c.id,
                "printf 'a\\000b\\377\\n'; read x; printf 'E\\000\\300' >&2; read x; "
                "printf 'c'; read x; printf 'F' >&2",
                &r, id);
    proc_collected got = { 0 };
    CU_ASSERT_FATAL(proc_test_read_until(c.f.backend, c.id, id, &got, "\377\n"));
    proc_test_write_stdin(c.f.backend, c.id, id, "1\n", 0);
    long deadline = sbx_test_now_ms() + PROC_TEST_DEADLINE_MS;
    while (got.err_len < 3 && sbx_test_now_ms() < deadline)
        CU_ASSERT_FATAL(proc_test_read_once(c.f.backend, c.id, id, &got, PROC_TEST_SLICE_MS, 0) == SBX_OK);
    proc_test_write_stdin(c.f.backend, c.id, id, "2\n", 0);
    CU_ASSERT_FATAL(proc_test_read_until(c.f.backend, c.id, id, &got, "c"));
    proc_test_write_stdin(c.f.backend, c.id, id, "3\n", 1);
    CU_ASSERT(proc_test_read_until(c.f.backend, c.id, id, &got, NULL));
    CU_ASSERT_EQUAL(got.out_len, 6);
    CU_ASSERT(memcmp(got.out, "a\0b\377\nc", 6) == 0);
    CU_ASSERT_EQUAL(got.err_len, 4);
    CU_ASSERT(memcmp(got.err, "E\0\300F", 4) == 0);
    /* Read again from the start, in one answer: the same order. */
    proc_collected again = { 0 };
    CU_ASSERT(proc_test_read_until(c.f.backend, c.id, id, &again, NULL));
    CU_ASSERT_STRING_EQUAL(again.order, "oeoe");
    CU_ASSERT_EQUAL(again.exit_code, 0);
    contract_case_finish(&c);
}

/* A reader that falls behind a small buffer gets the most recent bytes
 * and the exact count of those it missed; what is kept never exceeds
 * the buffer. */
static void test_a_reader_behind_is_told_what_it_missed(void)
{
    contract_case c;
    if (!contract_case_start(&c, "pc-behind", SBX_OP_PROCESS, "run processes"))
        return;
    if (c.info.max_buffer_bytes == 0) {
        fprintf(stderr, "  (skipped: backend '%s' takes no buffer size)\n",
                sbx_backend_descriptor_of(c.f.backend)->name);
        contract_case_finish(&c);
        return;
    }
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.buffer_bytes = 4096;
    if (c.info.max_buffer_bytes < r.buffer_bytes)
        r.buffer_bytes = c.info.max_buffer_bytes;
    char id[SBX_PROCESS_ID_MAX + 1];
    /* 1 MiB of numbered lines, the last one known. */
    proc_test_start_shell(c.f.backend, c.id,
                "i=0; while [ $i -lt 1000 ]; do printf '%01047d\\n' $i; i=$((i+1)); done", &r,
                id);
    sbx_process_info *info = proc_test_wait_end(c.f.backend, c.id, id);
    CU_ASSERT_EQUAL(info->exit_code, 0);
    sbx_backend_free_processes(c.f.backend, info);
    proc_collected got = { 0 };
    CU_ASSERT(proc_test_read_until(c.f.backend, c.id, id, &got, NULL));
    CU_ASSERT_EQUAL(got.dropped_out + got.out_len, 1048 * 1000);
    CU_ASSERT(got.out_len <= r.buffer_bytes);
    CU_ASSERT(got.out_len > 0);
    CU_ASSERT_EQUAL(got.cursor.stdout_offset, 1048 * 1000);
    char last[16];
    snprintf(last, sizeof last, "%09d\n", 999);
    CU_ASSERT(got.out_len >= 10 && memcmp(got.out + got.out_len - 10, last, 10) == 0);
    contract_case_finish(&c);
}

/* Bytes written to stdin reach the process; closing stdin ends `cat`;
 * a write after the close is refused with its own message. */
static void test_stdin_round_trip_and_close(void)
{
    contract_case c;
    if (!contract_case_start(&c, "pc-stdin", SBX_OP_PROCESS, "run processes"))
        return;
    if (!contract_case_has(&c, SBX_OP_PROCESS_STDIN_CLOSE, "close stdin")) {
        contract_case_finish(&c);
        return;
    }
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.stdin_open = 1;
    char id[SBX_PROCESS_ID_MAX + 1];
    proc_test_start_shell(c.f.backend, c.id, "cat", &r, id);
    proc_test_write_stdin(c.f.backend, c.id, id, "hello\n", 0);
    proc_collected got = { 0 };
    CU_ASSERT(proc_test_read_until(c.f.backend, c.id, id, &got, "hello\n"));
    proc_test_write_stdin(c.f.backend, c.id, id, "bye\n", 1);
    CU_ASSERT(proc_test_read_until(c.f.backend, c.id, id, &got, NULL));
    CU_ASSERT_EQUAL(got.out_len, 10);
    CU_ASSERT_EQUAL(got.exit_code, 0);
    sbx_process_write_request w = SBX_PROCESS_WRITE_REQUEST_INIT;
    w.data = "late";
    w.length = 4;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_write(c.f.backend, c.id, id, &w, &err), SBX_ERR_USAGE);
    contract_case_finish(&c);
}

/* A signal goes to the group: the shell and what it started end; SIGKILL
 * ends it as SIGNALED 9. */
static void test_a_signal_reaches_the_group(void)
{
    contract_case c;
    if (!contract_case_start(&c, "pc-signal", SBX_OP_PROCESS, "run processes"))
        return;
    char id[SBX_PROCESS_ID_MAX + 1];
    proc_test_start_shell(c.f.backend, c.id, "sleep 1000 & sleep 1000 & echo started; wait", NULL, id);
    proc_collected got = { 0 };
    CU_ASSERT_FATAL(proc_test_read_until(c.f.backend, c.id, id, &got, "started\n"));
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_signal(c.f.backend, c.id, id, SIGKILL, &err), SBX_OK);
    sbx_process_info *info = proc_test_wait_end(c.f.backend, c.id, id);
    CU_ASSERT_EQUAL(info->outcome, SBX_EXEC_SIGNALED);
    CU_ASSERT_EQUAL(info->term_signal, SIGKILL);
    CU_ASSERT(info->ended_at >= info->started_at);
    sbx_backend_free_processes(c.f.backend, info);
    /* Signalling an ended process is no error. */
    CU_ASSERT_EQUAL(sbx_backend_process_signal(c.f.backend, c.id, id, SIGTERM, &err), SBX_OK);
    contract_case_finish(&c);
}

/* On a terminal `tty` names one, and a resize is what `stty size` sees
 * next. */
static void test_a_terminal_and_its_size(void)
{
    contract_case c;
    if (!contract_case_start(&c, "pc-pty", SBX_OP_PROCESS, "run processes"))
        return;
    if (!contract_case_has(&c, SBX_OP_PROCESS_PTY, "give a terminal")) {
        contract_case_finish(&c);
        return;
    }
    sbx_process_request r = SBX_PROCESS_REQUEST_INIT;
    r.pty = 1;
    r.stdin_open = 1;
    r.rows = 24;
    r.cols = 80;
    char id[SBX_PROCESS_ID_MAX + 1];
    proc_test_start_shell(c.f.backend, c.id,
                "test -t 0 && test -t 1 && echo is-a-terminal; stty size; read x; stty size",
                &r, id);
    proc_collected got = { 0 };
    CU_ASSERT_FATAL(proc_test_read_until(c.f.backend, c.id, id, &got, "24 80"));
    CU_ASSERT_PTR_NOT_NULL(strstr(got.out, "is-a-terminal"));
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_resize(c.f.backend, c.id, id, 30, 100, &err), SBX_OK);
    proc_test_write_stdin(c.f.backend, c.id, id, "\n", 0);
    CU_ASSERT(proc_test_read_until(c.f.backend, c.id, id, &got, "30 100"));
    CU_ASSERT(proc_test_read_until(c.f.backend, c.id, id, &got, NULL));
    CU_ASSERT_EQUAL(got.err_len, 0);  /* one stream on a terminal */
    CU_ASSERT_EQUAL(got.exit_code, 0);
    contract_case_finish(&c);
}

/* Fifty processes at once: each has its own id and output. */
static void test_fifty_processes_at_once(void)
{
    contract_case c;
    if (!contract_case_start(&c, "pc-fifty", SBX_OP_PROCESS, "run processes"))
        return;
    if (c.info.max_processes != 0 && c.info.max_processes < 50) {
        fprintf(stderr, "  (skipped: backend '%s' runs at most %zu processes)\n",
                sbx_backend_descriptor_of(c.f.backend)->name, c.info.max_processes);
        contract_case_finish(&c);
        return;
    }
    char ids[50][SBX_PROCESS_ID_MAX + 1];
    for (int i = 0; i < 50; i++) {
        char text[64];
        snprintf(text, sizeof text, "echo number-%d; exec sleep 1000", i);
        proc_test_start_shell(c.f.backend, c.id, text, NULL, ids[i]);
        for (int j = 0; j < i; j++)
            CU_ASSERT_STRING_NOT_EQUAL(ids[i], ids[j]);
    }
    sbx_process_info *list = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_process_list(c.f.backend, c.id, &list, &count, &err), SBX_OK);
    CU_ASSERT_EQUAL(count, 50);
    size_t running = 0;
    for (sbx_process_info *p = list; p != NULL; p = p->next)
        running += p->state == SBX_PROCESS_RUNNING;
    CU_ASSERT_EQUAL(running, 50);
    sbx_backend_free_processes(c.f.backend, list);
    for (int i = 0; i < 50; i++) {
        char want[32];
        snprintf(want, sizeof want, "number-%d\n", i);
        proc_collected got = { 0 };
        CU_ASSERT(proc_test_read_until(c.f.backend, c.id, ids[i], &got, want));
        CU_ASSERT_EQUAL(got.out_len, strlen(want));
    }
    for (int i = 0; i < 50; i++)
        CU_ASSERT_EQUAL(sbx_backend_process_signal(c.f.backend, c.id, ids[i], SIGTERM, &err),
                        SBX_OK);
    for (int i = 0; i < 50; i++) {
        sbx_process_info *info = proc_test_wait_end(c.f.backend, c.id, ids[i]);
        CU_ASSERT_EQUAL(info->term_signal, SIGTERM);
        sbx_backend_free_processes(c.f.backend, info);
    }
    contract_case_finish(&c);
}

/* Each bad call has its own kind and message, and touches nothing. */
static void test_bad_calls_each_have_their_error(void)
{
    contract_case c;
    if (!contract_case_start(&c, "pc-bad", SBX_OP_PROCESS, "run processes"))
        return;
    contract_case other;
    CU_ASSERT_FATAL(contract_case_start(&other, "pc-bad-other", SBX_OP_PROCESS, "run processes"));
    char id[SBX_PROCESS_ID_MAX + 1], theirs[SBX_PROCESS_ID_MAX + 1];
    proc_test_start_shell(c.f.backend, c.id, "echo hi", NULL, id);
    proc_test_start_shell(other.f.backend, other.id, "exec sleep 1000", NULL, theirs);
    sbx_process_info *info = proc_test_wait_end(c.f.backend, c.id, id);
    sbx_backend_free_processes(c.f.backend, info);
    sbx_error err;
    /* An id never started here, and one of another sandbox (unless the
     * two happen to be equal strings, which is then this sandbox's). */
    CU_ASSERT_EQUAL(sbx_backend_process_signal(c.f.backend, c.id, "no-such-process", SIGTERM,
                                               &err),
                    SBX_ERR_NO_SUCH_PROCESS);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "no-such-process"));
    if (strcmp(id, theirs) != 0) {
        sbx_process_info *found = NULL;
        CU_ASSERT_EQUAL(sbx_backend_process_wait(c.f.backend, c.id, theirs, 0, &found, &err),
                        SBX_ERR_NO_SUCH_PROCESS);
        sbx_backend_free_processes(c.f.backend, found);
    }
    /* A cursor past the end. */
    sbx_process_read_request r = SBX_PROCESS_READ_REQUEST_INIT;
    r.cursor.stdout_offset = 1000;
    sbx_process_output *o = NULL;
    CU_ASSERT_EQUAL(sbx_backend_process_read(c.f.backend, c.id, id, &r, &o, &err),
                    SBX_ERR_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "past the end"));
    char cursor_message[SBX_ERROR_MESSAGE_MAX];
    snprintf(cursor_message, sizeof cursor_message, "%s", err.message);
    /* A write to a process whose stdin was never open. */
    sbx_process_write_request w = SBX_PROCESS_WRITE_REQUEST_INIT;
    w.data = "x";
    w.length = 1;
    CU_ASSERT_EQUAL(sbx_backend_process_write(c.f.backend, c.id, id, &w, &err), SBX_ERR_USAGE);
    CU_ASSERT_STRING_NOT_EQUAL(err.message, cursor_message);
    /* Forget of a running one; then the ended one is forgotten for good. */
    CU_ASSERT_EQUAL(sbx_backend_process_forget(other.f.backend, other.id, theirs, &err),
                    SBX_ERR_USAGE);
    CU_ASSERT_EQUAL(sbx_backend_process_forget(c.f.backend, c.id, id, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_process_forget(c.f.backend, c.id, id, &err),
                    SBX_ERR_NO_SUCH_PROCESS);
    /* The other sandbox's process still runs. */
    info = NULL;
    CU_ASSERT_EQUAL(sbx_backend_process_wait(other.f.backend, other.id, theirs, 0, &info, &err),
                    SBX_OK);
    if (info != NULL)
        CU_ASSERT_EQUAL(info->state, SBX_PROCESS_RUNNING);
    sbx_backend_free_processes(other.f.backend, info);
    contract_case_finish(&other);
    contract_case_finish(&c);
}

/* What a streaming exec's callback saw. */
typedef struct streamed {
    char text[256];
    size_t len;
    int cancel_write;  /* closed when "first" arrived, which ends the exec */
} streamed;

static void on_output(void *ctx, sbx_stream stream, const char *data, size_t length)
{
    streamed *s = ctx;
    if (stream != SBX_STREAM_STDOUT)
        return;
    size_t n = length < sizeof s->text - 1 - s->len ? length : sizeof s->text - 1 - s->len;
    memcpy(s->text + s->len, data, n);
    s->len += n;
    s->text[s->len] = '\0';
    if (strstr(s->text, "first\n") != NULL && s->cancel_write >= 0) {
        close(s->cancel_write);
        s->cancel_write = -1;
    }
}

/* A streaming exec hands output over while the command runs: the
 * callback sees the first line of a command that would sleep for long
 * after it, and ends the command through the cancel descriptor. */
static void test_exec_streams_output_as_it_comes(void)
{
    contract_case c;
    if (!contract_case_start(&c, "pc-stream", SBX_OP_PROCESS, "run processes"))
        return;
    if (!contract_case_has(&c, SBX_OP_EXEC_STREAM, "stream exec output")) {
        contract_case_finish(&c);
        return;
    }
    int cancel[2];
    CU_ASSERT_FATAL(pipe(cancel) == 0);
    streamed s = { { 0 }, 0, cancel[1] };
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = "echo first; exec sleep 1000";
    r.cancel_fd = cancel[0];
    r.on_output = on_output;
    r.output_ctx = &s;
    r.timeout_ms = PROC_TEST_DEADLINE_MS * 2;
    sbx_exec_result *result = NULL;
    sbx_error err;
    long began = sbx_test_now_ms();
    CU_ASSERT_EQUAL(sbx_backend_exec(c.f.backend, c.id, &r, &result, &err), SBX_OK);
    CU_ASSERT(sbx_test_now_ms() - began < PROC_TEST_DEADLINE_MS);
    CU_ASSERT_STRING_EQUAL(s.text, "first\n");
    if (result != NULL) {
        CU_ASSERT_EQUAL(result->outcome, SBX_EXEC_TIMED_OUT);
        CU_ASSERT_STRING_EQUAL(result->stdout_data, "first\n");
    }
    sbx_backend_free_exec_result(c.f.backend, result);
    close(cancel[0]);
    if (s.cancel_write >= 0)
        close(s.cancel_write);
    contract_case_finish(&c);
}

const CU_TestInfo process_contract_cases[] = {
    { "a process outlives the host that started it", test_a_process_outlives_the_host_that_started_it },
    { "output keeps its bytes and its interleaving", test_output_keeps_bytes_and_interleaving },
    { "a reader behind is told what it missed", test_a_reader_behind_is_told_what_it_missed },
    { "stdin round trip and close", test_stdin_round_trip_and_close },
    { "a signal reaches the group", test_a_signal_reaches_the_group },
    { "a terminal and its size", test_a_terminal_and_its_size },
    { "fifty processes at once", test_fifty_processes_at_once },
    { "bad calls each have their error", test_bad_calls_each_have_their_error },
    { "exec streams output as it comes", test_exec_streams_output_as_it_comes },
    CU_TEST_INFO_NULL
};
