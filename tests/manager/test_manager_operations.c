/*
 * The sandbox operations on a managed sandbox (sbx_manager_exec and the
 * file calls), over the real local backend and the manager's test clock:
 * they run on an active sandbox only, count as use, and the idle reaper
 * never takes a sandbox while a command runs in it.
 */
#include <config.h>

#include "tests/manager/mgr_fixture.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static sbx_backend *local;
static char state_dir[4096];

static int open_local(void)
{
    local = mf_start_local(state_dir, sizeof state_dir, "manager-ops");
    return local != NULL ? 0 : -1;
}

static int close_local(void)
{
    mf_stop_local(local, state_dir);
    return 0;
}

static sbx_manager *open_manager(int64_t idle_ms)
{
    sbx_manager_config c = mf_config();
    c.idle_timeout_ms = idle_ms;
    return mf_open_on(local, &c);
}

static sbx_exec_result *run(sbx_manager *m, const char *id, const char *text, sbx_status *st)
{
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    req.shell_command = text;
    sbx_exec_result *r = NULL;
    sbx_error err;
    *st = sbx_manager_exec(m, id, &req, &r, &err);
    return r;
}

/* Active: the calls reach the sandbox.  Released or never acquired: not
 * found, and nothing runs. */
static void test_operations_need_an_active_sandbox(void)
{
    sbx_manager *m = open_manager(600000);
    char id[64];
    CU_ASSERT_FATAL(mf_acquire(m, "ann", "t-ops", id));
    sbx_status st;
    sbx_exec_result *r = run(m, id, "echo hi > made.txt; echo done", &st);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "done\n");
    sbx_backend_free_exec_result(local, r);
    sbx_error err;
    sbx_file_content *content = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_manager_read_file(m, id, "made.txt", 0, 100, &content, &err),
                          SBX_OK);
    CU_ASSERT_STRING_EQUAL(content->data, "hi\n");
    sbx_backend_free_file_content(local, content);
    CU_ASSERT_EQUAL(sbx_manager_write_file(m, id, "w.txt", "w", 1, 0, 0, &err), SBX_OK);
    sbx_dir_listing *listing = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_manager_list_dir(m, id, ".", 1, 10, &listing, &err), SBX_OK);
    CU_ASSERT(listing->count >= 2);
    sbx_backend_free_listing(local, listing);
    CU_ASSERT_EQUAL(sbx_manager_remove_path(m, id, "w.txt", 0, &err), SBX_OK);

    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    r = run(m, id, "echo ran > after-release.txt", &st);
    CU_ASSERT_EQUAL(st, SBX_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_EQUAL(sbx_manager_read_file(m, id, "made.txt", 0, 100, &content, &err),
                    SBX_ERR_NOT_FOUND);
    r = run(m, "0123456789abcdef", "echo never", &st);
    CU_ASSERT_EQUAL(st, SBX_ERR_NOT_FOUND);
    sbx_manager_free(m);
}

typedef struct long_call {
    sbx_manager *m;
    const char *id;
    sbx_status status;
    int exit_code;
} long_call;

/* A command that says it started, then waits for the test's go. */
static void *run_until_go(void *arg)
{
    long_call *c = arg;
    sbx_status st;
    sbx_exec_result *r = run(c->m, c->id,
                             "touch started; n=0; while [ ! -e go ] && [ $n -lt 1200 ]; do "
                             "sleep 0.05; n=$((n+1)); done; [ -e go ]",
                             &st);
    c->status = st;
    c->exit_code = r != NULL ? r->exit_code : -1;
    sbx_backend_free_exec_result(local, r);
    return NULL;
}

/* Whether the sandbox's file `name` exists, through the manager. */
static int exists(sbx_manager *m, const char *id, const char *name)
{
    sbx_file_content *content = NULL;
    sbx_error err;
    sbx_status st = sbx_manager_read_file(m, id, name, 0, 1, &content, &err);
    sbx_backend_free_file_content(local, content);
    return st == SBX_OK;
}

/* The idle reaper skips a sandbox while a command runs in it, however long
 * the command takes on the manager's clock; the end of the call is use. */
static void test_a_running_command_keeps_its_sandbox(void)
{
    sbx_manager *m = open_manager(1000);
    char id[64];
    CU_ASSERT_FATAL(mf_acquire(m, "ann", "t-long", id));
    long_call call = {m, id, SBX_ERR_INTERNAL, -1};
    pthread_t thread;
    CU_ASSERT_FATAL(pthread_create(&thread, NULL, run_until_go, &call) == 0);
    long deadline = sbx_test_now_ms() + 60000;
    while (!exists(m, id, "started") && sbx_test_now_ms() < deadline)
        sched_yield();
    CU_ASSERT_FATAL(exists(m, id, "started"));

    mf_advance(10000); /* ten idle timeouts */
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    sbx_managed *still = sbx_manager_get(m, id);
    CU_ASSERT_PTR_NOT_NULL(still);
    sbx_managed_unref(still);

    CU_ASSERT_EQUAL(sbx_manager_write_file(m, id, "go", "", 0, 0, 0, &err), SBX_OK);
    pthread_join(thread, NULL);
    CU_ASSERT_EQUAL(call.status, SBX_OK);
    CU_ASSERT_EQUAL(call.exit_code, 0);

    /* The call's end was use: half an idle timeout later it stays... */
    mf_advance(500);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    still = sbx_manager_get(m, id);
    CU_ASSERT_PTR_NOT_NULL(still);
    sbx_managed_unref(still);
    /* ...and once idle past the timeout (get above was use too), it goes. */
    mf_advance(2000);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT_PTR_NULL(sbx_manager_get(m, id));
    int alive = 1;
    CU_ASSERT_EQUAL(sbx_backend_is_alive(local, id, &alive, &err), SBX_OK);
    CU_ASSERT_EQUAL(alive, 0);
    sbx_manager_free(m);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"operations need an active sandbox", test_operations_need_an_active_sandbox},
        {"a running command keeps its sandbox from the idle reaper",
         test_a_running_command_keeps_its_sandbox},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("manager operations (local)", open_local, close_local, tests);
}
