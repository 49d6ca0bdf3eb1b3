/*
 * Live processes on managed sandboxes: the idle reaper counts a running
 * process as use (over the "mgrtest" backend, whose processes the test
 * sets, on the manager's test clock), unless reap_running_processes; the
 * process calls and sessions need an active sandbox.  Then the same over
 * real processes of the local backend.
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "tests/manager/mgr_fixture.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"

#define START() CU_ASSERT_FATAL(mf_start() == 0)

static sbx_manager *open_idle(int64_t idle_ms, int reap_running)
{
    sbx_manager_config c = mf_config();
    c.idle_timeout_ms = idle_ms;
    c.reap_running_processes = reap_running;
    return mf_open(&c);
}

static void reap(sbx_manager *m)
{
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
}

/* Active and then warm, a sandbox running a process outlives many idle
 * periods; once the process ends, one idle period later it is reaped. */
static void test_reaper_spares_a_sandbox_running_a_process(void)
{
    START();
    sbx_manager *m = open_idle(1000, 0);
    char id[64], other[64];
    sbx_error err;
    CU_ASSERT_FATAL(mf_acquire(m, "u", "dev-server", id));
    CU_ASSERT_FATAL(mf_acquire(m, "u", "quiet", other));
    mt_set_processes(id, 1);
    mf_advance(1500);
    reap(m);
    CU_ASSERT(mt_exists(id));
    CU_ASSERT(!mt_exists(other)); /* the same idle time, no process */
    CU_ASSERT_EQUAL(mf_counters(m).active, 1);
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    mf_advance(1500);
    reap(m);
    CU_ASSERT(mt_exists(id));
    CU_ASSERT_EQUAL(mf_counters(m).warm, 1);
    /* The process ended: the last pass that saw it running was use. */
    mt_set_processes(id, 0);
    mf_advance(600);
    reap(m);
    CU_ASSERT(mt_exists(id));
    mf_advance(600);
    reap(m);
    CU_ASSERT(!mt_exists(id));
    CU_ASSERT_EQUAL(mf_counters(m).reaped, 2);
    sbx_manager_free(m);
    mf_stop();
}

static void test_reap_running_processes_reaps_them_anyway(void)
{
    START();
    sbx_manager *m = open_idle(1000, 1);
    char id[64];
    CU_ASSERT_FATAL(mf_acquire(m, "u", "dev-server", id));
    mt_set_processes(id, 2);
    mf_advance(1500);
    reap(m);
    CU_ASSERT(!mt_exists(id));
    CU_ASSERT_EQUAL(mf_counters(m).reaped, 1);
    CU_ASSERT_EQUAL(mt_get_stats().process_lists, 0); /* not even asked */
    sbx_manager_free(m);
    mf_stop();
}

/* A backend that cannot list processes cannot say the sandbox is idle: it
 * is kept, with a warning naming it, and reaped once the listing works. */
static void test_a_failed_process_listing_keeps_the_sandbox(void)
{
    START();
    sbx_manager *m = open_idle(1000, 0);
    char id[64];
    CU_ASSERT_FATAL(mf_acquire(m, "u", "t", id));
    mt_set_failing(MT_PROCESS_LIST, 1);
    mf_advance(1500);
    reap(m);
    CU_ASSERT(mt_exists(id));
    char expected[160];
    snprintf(expected, sizeof expected, "idle sandbox %s kept: its processes cannot be listed",
             id);
    CU_ASSERT(sbx_test_log_contains(mf_logs, expected));
    mt_set_failing(MT_PROCESS_LIST, 0);
    mf_advance(1500);
    reap(m);
    CU_ASSERT(!mt_exists(id));
    sbx_manager_free(m);
    mf_stop();
}

/* The process calls and sessions reach only an active sandbox; on one
 * they are the backend's calls (its processes, its refusal). */
static void test_process_calls_need_an_active_sandbox(void)
{
    START();
    sbx_manager *m = open_idle(600000, 0);
    char id[64];
    sbx_error err;
    CU_ASSERT_FATAL(mf_acquire(m, "u", "t", id));
    mt_set_processes(id, 3);
    sbx_process_info *list = NULL;
    size_t count = 0;
    CU_ASSERT_EQUAL(sbx_manager_process_list(m, id, &list, &count, &err), SBX_OK);
    CU_ASSERT_EQUAL(count, 3);
    CU_ASSERT_STRING_EQUAL(list->process_id, "p1");
    sbx_backend_free_processes(mf_backend, list);
    const char *const argv[] = {"serve", NULL};
    sbx_process_request req = SBX_PROCESS_REQUEST_INIT;
    req.argv = argv;
    sbx_process_info *info = NULL;
    CU_ASSERT_EQUAL(sbx_manager_process_start(m, id, &req, &info, &err), SBX_ERR_REFUSED);
    CU_ASSERT_STRING_EQUAL(err.message, "mgrtest: processes are set by the test");
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);

    CU_ASSERT_EQUAL(sbx_manager_process_list(m, id, &list, &count, &err), SBX_ERR_NOT_FOUND);
    char expected[160];
    snprintf(expected, sizeof expected, "manager: process_list: sandbox %s is not active here",
             id);
    CU_ASSERT_STRING_EQUAL(err.message, expected);
    CU_ASSERT_PTR_NULL(list);
    CU_ASSERT_EQUAL(count, 0);
    sbx_process_read_request read = SBX_PROCESS_READ_REQUEST_INIT;
    sbx_process_output *output = NULL;
    CU_ASSERT_EQUAL(sbx_manager_process_read(m, "nobody", "p1", &read, &output, &err),
                    SBX_ERR_NOT_FOUND);
    sbx_process_write_request write = SBX_PROCESS_WRITE_REQUEST_INIT;
    CU_ASSERT_EQUAL(sbx_manager_process_write(m, id, "p1", &write, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_manager_process_signal(m, id, "p1", 15, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_manager_process_resize(m, id, "p1", 24, 80, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_manager_process_wait(m, id, "p1", 0, &info, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_manager_process_forget(m, id, "p1", &err), SBX_ERR_NOT_FOUND);
    sbx_session *session = NULL;
    CU_ASSERT_EQUAL(sbx_manager_session_open(m, id, NULL, &session, &err), SBX_ERR_NOT_FOUND);
    snprintf(expected, sizeof expected, "manager: session: sandbox %s is not active here", id);
    CU_ASSERT_STRING_EQUAL(err.message, expected);
    CU_ASSERT_PTR_NULL(session);
    CU_ASSERT_EQUAL(sbx_manager_session_attach(m, id, NULL, NULL, &session, &err),
                    SBX_ERR_USAGE);
    CU_ASSERT_EQUAL(sbx_manager_session_open(NULL, id, NULL, &session, &err), SBX_ERR_USAGE);
    CU_ASSERT_EQUAL(sbx_manager_process_list(NULL, id, &list, &count, &err), SBX_ERR_USAGE);
    sbx_manager_free(m);
    mf_stop();
}

/* ---------------------------------------------------------------- on local */

static sbx_backend *local;
static char state_dir[4096];

static int open_local(void)
{
    local = mf_start_local(state_dir, sizeof state_dir, "manager-processes");
    return local != NULL ? 0 : -1;
}

static int close_local(void)
{
    mf_stop_local(local, state_dir);
    return 0;
}

static sbx_manager *open_local_manager(int64_t idle_ms, int reap_running)
{
    sbx_manager_config c = mf_config();
    c.idle_timeout_ms = idle_ms;
    c.reap_running_processes = reap_running;
    return mf_open_on(local, &c);
}

/* `cat` with stdin open: it runs until the test closes its stdin. */
static void start_cat(sbx_manager *m, const char *id, char pid[SBX_PROCESS_ID_MAX + 1])
{
    static const char *const argv[] = {"cat", NULL};
    sbx_process_request req = SBX_PROCESS_REQUEST_INIT;
    req.argv = argv;
    req.stdin_open = 1;
    sbx_process_info *info = NULL;
    sbx_error err;
    sbx_status st = sbx_manager_process_start(m, id, &req, &info, &err);
    if (st != SBX_OK)
        fprintf(stderr, "process_start: %s\n", err.message);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_RUNNING);
    snprintf(pid, SBX_PROCESS_ID_MAX + 1, "%s", info->process_id);
    sbx_backend_free_processes(local, info);
}

/* Close the stdin of `pid` and wait (bounded) for its end: its info. */
static int close_and_wait(sbx_manager *m, const char *id, const char *pid)
{
    sbx_process_write_request w = SBX_PROCESS_WRITE_REQUEST_INIT;
    w.close_stdin = 1;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_process_write(m, id, pid, &w, &err), SBX_OK);
    int exit_code = -2;
    long deadline = sbx_test_now_ms() + 60000;
    while (exit_code == -2 && sbx_test_now_ms() < deadline) {
        sbx_process_info *info = NULL;
        if (sbx_manager_process_wait(m, id, pid, 5000, &info, &err) != SBX_OK)
            break;
        if (info->state == SBX_PROCESS_ENDED)
            exit_code = info->exit_code;
        sbx_backend_free_processes(local, info);
    }
    return exit_code;
}

/* Bytes written to stdin come back on stdout, read with a bounded wait. */
static void test_process_calls_reach_a_managed_sandbox(void)
{
    sbx_manager *m = open_local_manager(600000, 0);
    char id[64], pid[SBX_PROCESS_ID_MAX + 1];
    sbx_error err;
    CU_ASSERT_FATAL(mf_acquire(m, "ann", "t-proc", id));
    start_cat(m, id, pid);
    sbx_process_write_request w = SBX_PROCESS_WRITE_REQUEST_INIT;
    w.data = "hello\n";
    w.length = 6;
    CU_ASSERT_EQUAL(sbx_manager_process_write(m, id, pid, &w, &err), SBX_OK);
    char got[64] = "";
    sbx_process_read_request r = SBX_PROCESS_READ_REQUEST_INIT;
    r.wait_ms = 5000;
    long deadline = sbx_test_now_ms() + 60000;
    while (strlen(got) < 6 && sbx_test_now_ms() < deadline) {
        sbx_process_output *o = NULL;
        if (sbx_manager_process_read(m, id, pid, &r, &o, &err) != SBX_OK)
            break;
        strncat(got, o->data, sizeof got - strlen(got) - 1);
        r.cursor = o->next;
        sbx_backend_free_process_output(local, o);
    }
    CU_ASSERT_STRING_EQUAL(got, "hello\n");
    sbx_process_info *list = NULL;
    size_t count = 0;
    CU_ASSERT_EQUAL_FATAL(sbx_manager_process_list(m, id, &list, &count, &err), SBX_OK);
    CU_ASSERT_EQUAL(count, 1);
    CU_ASSERT_STRING_EQUAL(list->process_id, pid);
    CU_ASSERT_STRING_EQUAL(list->argv[0], "cat");
    sbx_backend_free_processes(local, list);
    CU_ASSERT_EQUAL(close_and_wait(m, id, pid), 0);
    CU_ASSERT_EQUAL(sbx_manager_process_forget(m, id, pid, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_manager_process_list(m, id, &list, &count, &err), SBX_OK);
    CU_ASSERT_EQUAL(count, 0);

    sbx_session *s = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_manager_session_open(m, id, NULL, &s, &err), SBX_OK);
    sbx_session_result *res = NULL;
    CU_ASSERT_EQUAL(sbx_session_run(s, "cd /tmp; echo in $(pwd)", 60000, &res, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(res->stdout_data, "in /tmp\n");
    sbx_session_result_free(res);
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    res = NULL;
    CU_ASSERT_EQUAL(sbx_session_run(s, "pwd", 60000, &res, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NULL(res);
    sbx_session_detach(s); /* its shell ends with the sandbox */
    sbx_manager_free(m);
}

/* A real process: the sandbox outlives ten idle timeouts while it runs,
 * and is reaped one idle period after it ended. */
static void test_a_running_process_keeps_its_sandbox(void)
{
    sbx_manager *m = open_local_manager(1000, 0);
    char id[64], pid[SBX_PROCESS_ID_MAX + 1];
    sbx_error err;
    CU_ASSERT_FATAL(mf_acquire(m, "ann", "t-server", id));
    start_cat(m, id, pid);
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    mf_advance(10000);
    reap(m);
    int alive = 0;
    CU_ASSERT_EQUAL(sbx_backend_is_alive(local, id, &alive, &err), SBX_OK);
    CU_ASSERT_EQUAL(alive, 1);
    CU_ASSERT_EQUAL(mf_counters(m).warm, 1);
    CU_ASSERT_FATAL(mf_acquire(m, "ann", "t-server", id));
    CU_ASSERT_EQUAL(close_and_wait(m, id, pid), 0);
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    mf_advance(1500);
    reap(m);
    CU_ASSERT_EQUAL(sbx_backend_is_alive(local, id, &alive, &err), SBX_OK);
    CU_ASSERT_EQUAL(alive, 0);
    CU_ASSERT_EQUAL(mf_counters(m).reaped, 1);
    sbx_manager_free(m);
}

static void test_reap_running_processes_reaps_a_real_one(void)
{
    sbx_manager *m = open_local_manager(1000, 1);
    char id[64], pid[SBX_PROCESS_ID_MAX + 1];
    sbx_error err;
    CU_ASSERT_FATAL(mf_acquire(m, "ann", "t-reaped", id));
    start_cat(m, id, pid);
    mf_advance(1500);
    reap(m);
    int alive = 1;
    CU_ASSERT_EQUAL(sbx_backend_is_alive(local, id, &alive, &err), SBX_OK);
    CU_ASSERT_EQUAL(alive, 0);
    CU_ASSERT_EQUAL(mf_counters(m).reaped, 1);
    sbx_manager_free(m);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"the idle reaper spares a sandbox running a process",
         test_reaper_spares_a_sandbox_running_a_process},
        {"reap_running_processes reaps them anyway",
         test_reap_running_processes_reaps_them_anyway},
        {"a failed process listing keeps the sandbox",
         test_a_failed_process_listing_keeps_the_sandbox},
        {"process calls need an active sandbox", test_process_calls_need_an_active_sandbox},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("processes on managed sandboxes (mgrtest)", NULL, NULL, tests);
    static const CU_TestInfo on_local[] = {
        {"process calls reach a managed sandbox", test_process_calls_reach_a_managed_sandbox},
        {"a running process keeps its sandbox from the idle reaper",
         test_a_running_process_keeps_its_sandbox},
        {"reap_running_processes reaps a real one", test_reap_running_processes_reaps_a_real_one},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("processes on managed sandboxes (local)", open_local, close_local,
                       on_local);
}
