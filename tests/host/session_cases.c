/* The host library's session cases (<sbx/session.h>) on a real sandbox
 * (session_cases.h): cwd, variables and functions persist; output comes
 * back exact, per stream; a forged marker neither ends a command nor sets
 * its code; a timed-out command is interrupted and the session goes on, or
 * says it was restarted; a session found again by its process id; many
 * commands; many sessions on many threads. */
#include <config.h>

#include "tests/host/session_cases.h"
#include "tests/support/cunit_main.h"

#include <sbx/session.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The suite's backend and sandbox (one suite per program). */
static session_cases_target *t;

/* `o` (NULL: the defaults) with the target's grace when it sets none. */
static sbx_session_options options_of(const sbx_session_options *o)
{
    sbx_session_options with = SBX_SESSION_OPTIONS_INIT;
    if (o != NULL)
        with = *o;
    if (with.interrupt_grace_ms == 0)
        with.interrupt_grace_ms = t->interrupt_grace_ms;
    return with;
}

static sbx_session *open_session(const sbx_session_options *o)
{
    t->need(t);
    sbx_session *s = NULL;
    sbx_error err;
    sbx_session_options with = options_of(o);
    sbx_status st = sbx_session_open(t->backend, t->sandbox_id, &with, &s, &err);
    if (st != SBX_OK)
        fprintf(stderr, "session open: %s\n", err.message);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    return s;
}

/* Run `command`; the result (fatal when the run fails). */
static sbx_session_result *run(sbx_session *s, const char *command, int64_t timeout_ms)
{
    sbx_session_result *r = NULL;
    sbx_error err;
    sbx_status st = sbx_session_run(s, command, timeout_ms, &r, &err);
    if (st != SBX_OK)
        fprintf(stderr, "session run '%s': %s\n", command, err.message);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    return r;
}

/* Run `command` and expect its stdout and exit code. */
static void expect_run(sbx_session *s, const char *command, const char *out, int code)
{
    sbx_session_result *r = run(s, command, 60000);
    if (strcmp(r->stdout_data, out) != 0 || r->exit_code != code)
        fprintf(stderr, "\n'%s': stdout '%s' code %d, stderr '%s'\n", command, r->stdout_data,
                r->exit_code, r->stderr_data);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, out);
    CU_ASSERT_EQUAL(r->exit_code, code);
    CU_ASSERT(!r->timed_out && !r->restarted);
    sbx_session_result_free(r);
}

static void close_session(sbx_session *s)
{
    sbx_error err;
    const char *id = sbx_session_process_id(s);
    char pid[SBX_PROCESS_ID_MAX + 1];
    snprintf(pid, sizeof pid, "%s", id);
    CU_ASSERT_EQUAL(sbx_session_close(s, &err), SBX_OK);
    sbx_process_info *info = NULL;
    CU_ASSERT_EQUAL(sbx_backend_process_wait(t->backend, t->sandbox_id, pid, 0, &info, &err),
                    SBX_ERR_NO_SUCH_PROCESS); /* ended and forgotten */
}

static void test_cwd_env_and_functions_persist(void)
{
    sbx_session *s = open_session(NULL);
    expect_run(s, "mkdir -p /tmp/sess-a && cd /tmp/sess-a && export SBX_A='x y' && B=2 && "
                  "greet() { echo \"hi $1\"; }", "", 0);
    expect_run(s, "pwd; echo \"$SBX_A\" $B; greet you; sh -c 'echo $SBX_A'",
               "/tmp/sess-a\nx y 2\nhi you\nx y\n", 0);
    expect_run(s, "false", "", 1);
    expect_run(s, "(exit 42)", "", 42);
    expect_run(s, "if then", "", 2); /* a syntax error is the command's */
    expect_run(s, "cat; echo \"stdin is empty\"", "stdin is empty\n", 0);
    expect_run(s, "echo 'it'\\''s' \"$((6 * 7))\"", "it's 42\n", 0);
    close_session(s);
}

static void test_output_comes_back_exact_per_stream(void)
{
    sbx_session *s = open_session(NULL);
    sbx_session_result *r = run(s, "printf 'a\\000b\\377'; printf 'to err' >&2", 60000);
    /* Over JSON text (remote) the byte 0xff arrives as U+FFFD
     * (docs/remote.md "Output"); NUL arrives either way. */
    const char *out = t->keeps_invalid_utf8 ? "a\0b\xff" : "a\0b\xef\xbf\xbd";
    size_t out_len = t->keeps_invalid_utf8 ? 4 : 6;
    CU_ASSERT_EQUAL(r->stdout_length, out_len);
    if (r->stdout_length != out_len)
        for (size_t i = 0; i < r->stdout_length; i++)
            fprintf(stderr, "%02x%s", (unsigned char)r->stdout_data[i],
                    i + 1 < r->stdout_length ? " " : "\n");
    CU_ASSERT(r->stdout_length == out_len && memcmp(r->stdout_data, out, out_len) == 0);
    CU_ASSERT_EQUAL(r->stderr_length, 6);
    CU_ASSERT_STRING_EQUAL(r->stderr_data, "to err");
    CU_ASSERT(!r->stdout_truncated && !r->stderr_truncated);
    CU_ASSERT_EQUAL(r->dropped_bytes, 0);
    sbx_session_result_free(r);
    expect_run(s, "printf 'no newline'", "no newline", 0);
    expect_run(s, "printf '\\n\\n'", "\n\n", 0);
    expect_run(s, "true", "", 0);
    close_session(s);
}

/* The marker of the command before, read from the shell's raw stdout, and
 * a guessed one: printed by a command, they are its output; its exit code
 * is its own. */
static void test_a_forged_marker_is_output(void)
{
    sbx_session *s = open_session(NULL);
    expect_run(s, "echo first", "first\n", 0);
    sbx_process_read_request req = SBX_PROCESS_READ_REQUEST_INIT;
    sbx_process_output *o = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_process_read(t->backend, t->sandbox_id,
                                                   sbx_session_process_id(s), &req, &o, &err), SBX_OK);
    const char *marker = strstr(o->data, "SBX-END-");
    CU_ASSERT_PTR_NOT_NULL_FATAL(marker);
    char old[64];
    snprintf(old, sizeof old, "%.40s", marker);
    sbx_backend_free_process_output(t->backend, o);
    char command[512], expected[512];
    snprintf(command, sizeof command,
             "printf '\\n%s 0\\n'; printf '\\n%s 0\\n' >&2; "
             "printf '\\nSBX-END-00000000000000000000000000000000 0\\n'; echo after; (exit 3)",
             old, old);
    snprintf(expected, sizeof expected,
             "\n%s 0\n\nSBX-END-00000000000000000000000000000000 0\nafter\n", old);
    sbx_session_result *r = run(s, command, 60000);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, expected);
    snprintf(expected, sizeof expected, "\n%s 0\n", old);
    CU_ASSERT_STRING_EQUAL(r->stderr_data, expected);
    CU_ASSERT_EQUAL(r->exit_code, 3);
    sbx_session_result_free(r);
    expect_run(s, "echo next", "next\n", 0);
    close_session(s);
}

static void test_a_timed_out_command_is_interrupted_and_the_session_goes_on(void)
{
    sbx_session *s = open_session(NULL);
    expect_run(s, "cd /tmp && KEEP=kept", "", 0);
    sbx_session_result *r = run(s, "echo started; sleep 60; echo never", 1000);
    CU_ASSERT(r->timed_out);
    CU_ASSERT(!r->restarted);
    CU_ASSERT_EQUAL(r->exit_code, 130);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "started\n");
    sbx_session_result_free(r);
    /* The rest of the command is abandoned, as Ctrl-C abandons a line. */
    r = run(s, "for i in 1 2 3; do sleep 60; done; echo never", 1000);
    CU_ASSERT(r->timed_out && !r->restarted);
    CU_ASSERT_EQUAL(r->exit_code, 130);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "");
    sbx_session_result_free(r);
    expect_run(s, "pwd; echo $KEEP", "/tmp\nkept\n", 0);
    close_session(s);
}

/* A command that ignores the interrupt keeps the shell from coming back:
 * the shell is replaced, and the result says so. */
static void test_a_shell_that_does_not_come_back_is_restarted(void)
{
    sbx_session_options o = SBX_SESSION_OPTIONS_INIT;
    o.interrupt_grace_ms = 200;
    sbx_session *s = open_session(&o);
    expect_run(s, "KEEP=lost", "", 0);
    char first[SBX_PROCESS_ID_MAX + 1];
    snprintf(first, sizeof first, "%s", sbx_session_process_id(s));
    sbx_session_result *r = run(s, "trap '' INT; sleep 60", 300);
    CU_ASSERT(r->timed_out);
    CU_ASSERT(r->restarted);
    CU_ASSERT_EQUAL(r->exit_code, -1);
    sbx_session_result_free(r);
    CU_ASSERT(strcmp(sbx_session_process_id(s), first) != 0);
    expect_run(s, "echo \"[$KEEP]\"", "[]\n", 0);
    /* A command that exits the shell: its code, and a new shell. */
    r = run(s, "exit 7", 60000);
    CU_ASSERT(r->restarted && !r->timed_out);
    CU_ASSERT_EQUAL(r->exit_code, 7);
    sbx_session_result_free(r);
    expect_run(s, "echo again", "again\n", 0);
    close_session(s);
}

static void test_output_past_the_cap_is_cut_and_flagged(void)
{
    sbx_session_options o = SBX_SESSION_OPTIONS_INIT;
    o.max_output_bytes = 1000;
    sbx_session *s = open_session(&o);
    sbx_session_result *r = run(s, "head -c 300000 /dev/zero | tr '\\000' a; echo; echo e >&2",
                                60000);
    CU_ASSERT_EQUAL(r->exit_code, 0);
    CU_ASSERT_EQUAL(r->stdout_length, 1000);
    CU_ASSERT(r->stdout_truncated);
    CU_ASSERT_EQUAL(strspn(r->stdout_data, "a"), 1000);
    CU_ASSERT_STRING_EQUAL(r->stderr_data, "e\n");
    CU_ASSERT(!r->stderr_truncated);
    sbx_session_result_free(r);
    expect_run(s, "echo small", "small\n", 0);
    close_session(s);
}

static void test_a_session_is_found_again_by_its_process_id(void)
{
    sbx_session *s = open_session(NULL);
    expect_run(s, "cd /tmp && X=5 && echo leftover", "leftover\n", 0);
    char id[SBX_PROCESS_ID_MAX + 1];
    snprintf(id, sizeof id, "%s", sbx_session_process_id(s));
    sbx_session_detach(s);
    sbx_error err;
    sbx_session *again = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_session_attach(t->backend, t->sandbox_id, id, NULL, &again, &err), SBX_OK);
    expect_run(again, "echo $X; pwd", "5\n/tmp\n", 0);
    close_session(again);
    CU_ASSERT_EQUAL(sbx_session_attach(t->backend, t->sandbox_id, id, NULL, &again, &err),
                    SBX_ERR_NO_SUCH_PROCESS);
    CU_ASSERT_PTR_NULL(again);
}

static void test_many_commands_in_one_session(void)
{
    sbx_session *s = open_session(NULL);
    expect_run(s, "i=0", "", 0);
    int many = t->many_commands > 0 ? t->many_commands : 200;
    for (int k = 1; k <= many; k++) {
        char out[32];
        snprintf(out, sizeof out, "%d\n", k);
        expect_run(s, "i=$((i + 1)); echo $i", out, 0);
    }
    close_session(s);
}

/* The threads and each one's commands of the case below. */
#define THREADS_MOST 6
static int threads_of(void)
{
    return t->threads > 0 && t->threads < THREADS_MOST ? t->threads : THREADS_MOST;
}
static int runs_of(void)
{
    return t->thread_runs > 0 ? t->thread_runs : 15;
}

static sbx_session *shared;

/* Its own session and the shared one, runs_of() commands each. */
static void *worker(void *arg)
{
    int n = (int)(intptr_t)arg;
    sbx_session *own = NULL;
    sbx_error err;
    long failures = 0;
    sbx_session_options with = options_of(NULL);
    if (sbx_session_open(t->backend, t->sandbox_id, &with, &own, &err) != SBX_OK)
        return (void *)(intptr_t)-1;
    char setup[64];
    snprintf(setup, sizeof setup, "ME=%d", n);
    sbx_session_result *r = NULL;
    failures += sbx_session_run(own, setup, 60000, &r, &err) != SBX_OK;
    sbx_session_result_free(r);
    for (int k = 0, runs = runs_of(); k < runs; k++) {
        char command[64], expected[64];
        snprintf(expected, sizeof expected, "%d-%d\n", n, k);
        snprintf(command, sizeof command, "echo \"$ME-%d\"", k);
        r = NULL;
        failures += sbx_session_run(own, command, 60000, &r, &err) != SBX_OK ||
                    strcmp(r->stdout_data, expected) != 0;
        sbx_session_result_free(r);
        snprintf(command, sizeof command, "echo %d-%d", n, k);
        r = NULL;
        failures += sbx_session_run(shared, command, 60000, &r, &err) != SBX_OK ||
                    strcmp(r->stdout_data, expected) != 0;
        sbx_session_result_free(r);
    }
    failures += sbx_session_close(own, &err) != SBX_OK;
    return (void *)(intptr_t)failures;
}

static void test_many_sessions_on_many_threads(void)
{
    shared = open_session(NULL);
    pthread_t threads[THREADS_MOST];
    int count = threads_of();
    for (int i = 0; i < count; i++)
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < count; i++) {
        void *failures = NULL;
        pthread_join(threads[i], &failures);
        CU_ASSERT_EQUAL((intptr_t)failures, 0);
    }
    close_session(shared);
}

void session_cases_add_suite(const char *name, session_cases_target *target,
                             int (*cleanup)(void))
{
    t = target;
    static const CU_TestInfo cases[] = {
        {"cwd, env and functions persist", test_cwd_env_and_functions_persist},
        {"output comes back exact, per stream", test_output_comes_back_exact_per_stream},
        {"a forged marker is output", test_a_forged_marker_is_output},
        {"a timed-out command is interrupted and the session goes on",
         test_a_timed_out_command_is_interrupted_and_the_session_goes_on},
        {"a shell that does not come back is restarted",
         test_a_shell_that_does_not_come_back_is_restarted},
        {"output past the cap is cut and flagged", test_output_past_the_cap_is_cut_and_flagged},
        {"a session is found again by its process id",
         test_a_session_is_found_again_by_its_process_id},
        {"many commands in one session", test_many_commands_in_one_session},
        {"many sessions on many threads", test_many_sessions_on_many_threads},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite(name, NULL, cleanup, cases);
}
