/*
 * The manager's lifetimes over the real local backend: a sandbox an
 * acquire creates gets the configured default lifetime; the reaper
 * destroys an active (leased) sandbox once past its expiry and reports it
 * expired (though local's own list removed it first); extend saves
 * one; an expiry beyond the maximum lifetime is refused naming expires_at
 * before anything is created.  Waits are on the wall clock reaching the
 * expiry, a second ahead, never a pause.
 */
#include <config.h>

#include "tests/manager/mgr_fixture.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static sbx_backend *local;
static char state_dir[4096];

static int open_local(void)
{
    local = mf_start_local(state_dir, sizeof state_dir, "manager-expiry");
    return local != NULL ? 0 : -1;
}

static int close_local(void)
{
    mf_stop_local(local, state_dir);
    return 0;
}

static sbx_manager *open_manager(int64_t default_ms, int64_t max_ms)
{
    sbx_manager_config c = mf_config();
    c.default_lifetime_ms = default_ms;
    c.max_lifetime_ms = max_ms;
    return mf_open_on(local, &c);
}

/* 1 when the sandbox's directory exists (looked at without a backend
 * call, which would itself enforce the expiry). */
static int sandbox_dir_exists(const char *id)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", state_dir, id);
    return stat(path, &st) == 0;
}

/* The expires_at of `id`'s record, -1 when there is none. */
static int64_t record_expiry(const char *id)
{
    sbx_sandbox_record *r = NULL;
    sbx_error err;
    if (sbx_backend_discover_record(local, id, &r, &err) != SBX_OK)
        return -1;
    int64_t at = r->expires_at;
    sbx_backend_free_records(local, r);
    return at;
}

static sbx_status exec_true(sbx_manager *m, const char *id)
{
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    req.shell_command = "true";
    sbx_exec_result *r = NULL;
    sbx_error err;
    sbx_status st = sbx_manager_exec(m, id, &req, &r, &err);
    if (r != NULL)
        sbx_backend_free_exec_result(local, r);
    return st;
}

static void test_default_lifetime_and_reaper(void)
{
    sbx_manager *m = open_manager(1000, 0);
    CU_ASSERT_FATAL(m != NULL);
    int64_t before = sbx_test_wall_ms();
    char id[64];
    CU_ASSERT_FATAL(mf_acquire(m, "ann", "t-expiry", id));
    int64_t at = record_expiry(id);
    CU_ASSERT(at >= before + 1000 && at <= sbx_test_wall_ms() + 1000);
    sbx_test_wait_wall_past(at);
    /* Active, leased here: the reaper destroys it all the same.  Local's
     * list destroys it before the reaper sees it past its expiry: the
     * reaper still reports it expired, from the expiry it learnt. */
    sbx_error err;
    CU_ASSERT_EQUAL(mf_counters(m).expired, 0);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT(!sandbox_dir_exists(id));
    CU_ASSERT_EQUAL(mf_counters(m).expired, 1);
    CU_ASSERT_EQUAL(exec_true(m, id), SBX_ERR_NOT_FOUND);
    /* Reported once: the next pass has nothing left of it. */
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(mf_counters(m).expired, 1);
    sbx_manager_free(m);
}

static void test_extend_saves_a_managed_sandbox(void)
{
    /* Three seconds: the extend (right after the acquire) comes well
     * before on a loaded machine. */
    sbx_manager *m = open_manager(3000, 0);
    CU_ASSERT_FATAL(m != NULL);
    char id[64];
    CU_ASSERT_FATAL(mf_acquire(m, "ann", "t-extend", id));
    int64_t at = record_expiry(id), later = sbx_test_wall_ms() + 600000;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_manager_extend(m, id, later, &err), SBX_OK);
    sbx_test_wait_wall_past(at);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT(sandbox_dir_exists(id));
    CU_ASSERT_EQUAL(record_expiry(id), later);
    CU_ASSERT_EQUAL(exec_true(m, id), SBX_OK);
    CU_ASSERT_EQUAL(sbx_manager_destroy(m, id, &err), SBX_OK);
    sbx_manager_free(m);
}

static void test_max_lifetime_and_bad_input(void)
{
    sbx_manager *m = open_manager(0, 60000);
    CU_ASSERT_FATAL(m != NULL);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.user_id = "ann";
    req.thread_id = "t-max";
    req.expires_at = sbx_test_wall_ms() + 120000;
    sbx_managed *got = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_acquire(m, &req, &got, &err), SBX_ERR_USAGE);
    CU_ASSERT(strstr(err.message, "expires_at") != NULL &&
              strstr(err.message, "max_lifetime") != NULL);
    char id[SBX_DERIVED_ID_SIZE];
    mf_derive("ann", "t-max", id);
    CU_ASSERT(!sandbox_dir_exists(id));
    /* Within the maximum, and without a default: no expiry unless asked. */
    req.expires_at = 0;
    CU_ASSERT_EQUAL_FATAL(sbx_manager_acquire(m, &req, &got, &err), SBX_OK);
    sbx_managed_unref(got);
    CU_ASSERT_EQUAL(record_expiry(id), 0);
    CU_ASSERT_EQUAL(sbx_manager_extend(m, id, sbx_test_wall_ms() + 30000, &err), SBX_ERR_USAGE);
    CU_ASSERT(strstr(err.message, "expires_at") != NULL);
    CU_ASSERT_EQUAL(sbx_manager_extend(m, id, sbx_test_wall_ms() + 120000, &err), SBX_ERR_USAGE);
    CU_ASSERT(strstr(err.message, "max_lifetime") != NULL);
    CU_ASSERT_EQUAL(sbx_manager_extend(m, "not-tracked", sbx_test_wall_ms() + 30000, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_manager_destroy(m, id, &err), SBX_OK);
    sbx_manager_free(m);
}

static void test_config_checks_lifetimes(void)
{
    sbx_manager_config c = mf_config();
    c.default_lifetime_ms = 120000;
    c.max_lifetime_ms = 60000;
    sbx_manager *m = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_open(local, &c, &m, &err), SBX_ERR_CONFIG);
    CU_ASSERT(strstr(err.message, "default_lifetime") != NULL);
    c.default_lifetime_ms = -1;
    CU_ASSERT_EQUAL(sbx_manager_open(local, &c, &m, &err), SBX_ERR_CONFIG);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "default lifetime; the reaper destroys a leased sandbox past it",
          test_default_lifetime_and_reaper },
        { "extend saves a managed sandbox", test_extend_saves_a_managed_sandbox },
        { "max lifetime and bad input name expires_at", test_max_lifetime_and_bad_input },
        { "the configuration's lifetimes are checked", test_config_checks_lifetimes },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("manager expiry", open_local, close_local, tests);
}
