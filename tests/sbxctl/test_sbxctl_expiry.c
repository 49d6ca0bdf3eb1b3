/* sbxctl's expiry: create --expire-in and extend ID DURATION on the local
 * backend (the expiry in the record, a sandbox gone once past it, extend
 * moving it), and bad durations or an extend without an expiry refused
 * naming the option or expires_at.  The wait is on the wall clock passing
 * the expiry, a second ahead. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "tests/sbxctl/run_sbxctl.h"
#include "tests/sbxctl/sbxctl_checks.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"

#define ARGS SBX_TEST_ARGS

static sbx_test_local_state state;

static int setup(void)
{
    return sbx_test_local_state_open(&state, "sbxctl expiry");
}

static int teardown(void)
{
    sbx_test_local_state_close(&state);
    return 0;
}

static void ctl(sbx_test_run *run, const char *const *args)
{
    sbx_test_sbxctl_local(run, state.setting, NULL, SBX_TEST_RUN_TIMEOUT_MS, args);
}

static void expect_failure(const char *const *args, int code, const char *kind,
                           const char *needle)
{
    sbx_test_run run;
    ctl(&run, args);
    sbx_test_assert_failure(&run, code, kind, needle);
    sbx_test_run_clear(&run);
}

/* The count of sandboxes `list --json` answers. */
static int listed_count(void)
{
    sbx_test_run run;
    ctl(&run, ARGS("--json", "list"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    json_object *list = sbx_test_run_json(&run);
    int count = sbx_test_json_int(list, "count", -1);
    json_object_put(list);
    sbx_test_run_clear(&run);
    return count;
}

static void test_bad_durations_and_extends(void)
{
    expect_failure(ARGS("create", "--id", "x1", "--expire-in", "0"), 2, "usage",
                   "--expire-in must be a duration above 0");
    expect_failure(ARGS("create", "--id", "x1", "--expire-in", "10x"), 2, "usage",
                   "--expire-in must be a duration");
    expect_failure(ARGS("create", "--id", "x1", "--expire-in", "-5m"), 2, "usage",
                   "--expire-in must be a duration");
    expect_failure(ARGS("create", "--id", "x1", "--expire-in", "99999d"), 2, "usage",
                   "at most ten years");
    expect_failure(ARGS("extend", "x1"), 2, "usage", "needs a DURATION");
    expect_failure(ARGS("extend", "x1", "soon"), 2, "usage", "the DURATION of command 'extend'");
    CU_ASSERT_EQUAL(listed_count(), 0);
    expect_failure(ARGS("extend", "x1", "30m"), 1, "not_found", "x1");
    sbx_test_local_box(state.setting, "x-none", 1);
    expect_failure(ARGS("extend", "x-none", "30m"), 2, "usage", "(expires_at)");
    sbx_test_local_box(state.setting, "x-none", 0);
}

static void test_expire_in_and_extend_on_local(void)
{
    sbx_test_run run;
    /* Half a minute: a loaded machine's sbxctl runs (seconds each) reach
     * the extend well before. */
    ctl(&run, ARGS("--json", "create", "--id", "x-saved", "--expire-in", "30s"));
    CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    json_object *made = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL(sbx_test_json_string(made, "expires_at"));
    json_object_put(made);
    sbx_test_run_clear(&run);
    ctl(&run, ARGS("extend", "x-saved", "30m"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "sandbox_id: x-saved\nexpires_at: "));
    sbx_test_run_clear(&run);
    ctl(&run, ARGS("create", "--id", "x-gone", "--expire-in", "30m"));
    CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    CU_ASSERT_PTR_NULL(strstr(run.out, "expires_at: -\n"));
    sbx_test_run_clear(&run);
    CU_ASSERT_EQUAL(listed_count(), 2);
    /* extend moves it earlier too: a second from when sbxctl ran, before
     * it exited. */
    ctl(&run, ARGS("extend", "x-gone", "1s"));
    int64_t expired_by = sbx_test_wall_ms() + 1000;
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    sbx_test_wait_wall_past(expired_by);
    CU_ASSERT_EQUAL(listed_count(), 1);
    expect_failure(ARGS("discover", "x-gone"), 1, "not_found", "x-gone");
    ctl(&run, ARGS("alive", "x-saved"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    sbx_test_local_box(state.setting, "x-saved", 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"bad durations and extends are refused naming what is at fault",
         test_bad_durations_and_extends},
        {"create --expire-in and extend on local", test_expire_in_and_extend_on_local},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbxctl expiry", setup, teardown, tests);
}
