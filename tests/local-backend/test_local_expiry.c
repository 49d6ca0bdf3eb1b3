/*
 * Expiry on local (ABI 1.5): a sandbox created with expires_at keeps it in
 * its record; once the wall clock passes it, the first list, discover,
 * is_alive or create of its id (in any host sharing the state directory)
 * destroys it; extend moves it, so that an extended sandbox outlives its
 * first expiry; bad input is refused naming expires_at.  The waits are on
 * the wall clock reaching the expiry (a second ahead), never a pause.
 */
#include <config.h>

#include "tests/local-backend/local_fixture.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/scratch_dir.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* One state directory and two hosts on it, shared by the cases. */
static char state_dir[PATH_MAX];
static sbx_host *host_a, *host_b;
static sbx_backend *local_a, *local_b;

static sbx_backend *open_on_state(sbx_host **host)
{
    *host = sbx_local_test_new_host(NULL, NULL);
    sbx_option opts[2] = { { "state_dir", state_dir }, { "isolation", "none" } };
    return sbx_local_test_open(*host, opts, 2);
}

/* Made by the first case that runs (the fixture asserts, which CUnit
 * allows only inside a test). */
static void ensure_open(void)
{
    if (local_a != NULL)
        return;
    sbx_local_test_make_dir(state_dir, sizeof state_dir, "expiry");
    local_a = open_on_state(&host_a);
    local_b = open_on_state(&host_b);
}

static int suite_cleanup(void)
{
    if (local_a == NULL)
        return 0;
    sbx_test_destroy_all(local_a);
    sbx_backend_close(local_a);
    sbx_backend_close(local_b);
    sbx_host_free(host_a);
    sbx_host_free(host_b);
    sbx_test_remove_tree(state_dir);
    return 0;
}

/* Create `id` on `b` expiring at `expires_at` (0: none); its record's
 * expires_at is what was asked. */
static void create_expiring(sbx_backend *b, const char *id, int64_t expires_at)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.expires_at = expires_at;
    sbx_sandbox_record *r = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_create_record(b, &req, &r, &err);
    if (st != SBX_OK)
        fprintf(stderr, "create %s: %s\n", id, err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    CU_ASSERT(SBX_RECORD_HAS(r, expires_at) && r->expires_at == expires_at);
    sbx_backend_free_records(b, r);
}

/* The expires_at of `id` as `b` lists it; -1 when it is not listed. */
static int64_t listed_expiry(sbx_backend *b, const char *id)
{
    sbx_sandbox_record *records = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_list_records(b, &records, &count, &err) == SBX_OK);
    int64_t found = -1;
    for (const sbx_sandbox_record *r = records; r != NULL; r = r->next)
        if (strcmp(r->sandbox.sandbox_id, id) == 0)
            found = r->expires_at;
    sbx_backend_free_records(b, records);
    return found;
}

static void test_list_destroys_an_expired_sandbox(void)
{
    ensure_open();
    /* Two seconds: the lists before it come well before on a loaded
     * machine. */
    int64_t at = sbx_test_wall_ms() + 2000;
    create_expiring(local_a, "exp-list", at);
    CU_ASSERT_EQUAL(sbx_local_test_metadata_long(state_dir, "exp-list", "expires_at"), (long)at);
    CU_ASSERT_EQUAL(listed_expiry(local_b, "exp-list"), at);
    sbx_test_wait_wall_past(at);
    /* The other host's list is the first to see it: it destroys it. */
    CU_ASSERT_EQUAL(listed_expiry(local_b, "exp-list"), -1);
    char dir[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s/exp-list", state_dir);
    CU_ASSERT(!sbx_local_test_path_exists(dir));
    CU_ASSERT_EQUAL(sbx_test_is_alive(local_a, "exp-list"), 0);
    /* The id is free: a create makes it anew, without expiry. */
    create_expiring(local_a, "exp-list", 0);
    CU_ASSERT_EQUAL(listed_expiry(local_a, "exp-list"), 0);
}

static void test_discover_alive_and_create_see_expiry(void)
{
    ensure_open();
    int64_t at = sbx_test_wall_ms() + 1000;
    create_expiring(local_a, "exp-disc", at);
    create_expiring(local_a, "exp-alive", at);
    create_expiring(local_a, "exp-again", at);
    sbx_test_wait_wall_past(at);
    sbx_sandbox *sb = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_discover(local_b, "exp-disc", &sb, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT(strstr(err.message, "expiry") != NULL);
    CU_ASSERT_EQUAL(sbx_test_is_alive(local_b, "exp-alive"), 0);
    /* A create of the id makes a new sandbox, with the new request's expiry. */
    int64_t later = sbx_test_wall_ms() + 600000;
    create_expiring(local_b, "exp-again", later);
    CU_ASSERT_EQUAL(listed_expiry(local_a, "exp-again"), later);
}

static void test_extend_saves_a_sandbox(void)
{
    ensure_open();
    /* Three seconds: the extend (two calls later) comes well before on a
     * loaded machine. */
    int64_t at = sbx_test_wall_ms() + 3000;
    create_expiring(local_a, "exp-saved", at);
    int64_t later = sbx_test_wall_ms() + 600000;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_extend(local_b, "exp-saved", later, &err), SBX_OK);
    sbx_test_wait_wall_past(at);
    CU_ASSERT_EQUAL(listed_expiry(local_a, "exp-saved"), later);
    CU_ASSERT_EQUAL(sbx_test_is_alive(local_a, "exp-saved"), 1);
    /* Earlier works too: extend moves the expiry, either way. */
    int64_t sooner = sbx_test_wall_ms() + 1000;
    CU_ASSERT_EQUAL(sbx_backend_extend(local_a, "exp-saved", sooner, &err), SBX_OK);
    sbx_test_wait_wall_past(sooner);
    CU_ASSERT_EQUAL(sbx_backend_extend(local_a, "exp-saved", later, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_test_is_alive(local_b, "exp-saved"), 0);
}

static void test_bad_input_names_expires_at(void)
{
    ensure_open();
    sbx_error err;
    create_expiring(local_a, "exp-none", 0);
    CU_ASSERT_EQUAL(sbx_backend_extend(local_a, "exp-none", sbx_test_wall_ms() + 60000, &err),
                    SBX_ERR_USAGE);
    CU_ASSERT(strstr(err.message, "expires_at") != NULL);
    CU_ASSERT_EQUAL(listed_expiry(local_a, "exp-none"), 0);
    CU_ASSERT_EQUAL(sbx_backend_extend(local_a, "exp-none", sbx_test_wall_ms() - 1000, &err),
                    SBX_ERR_USAGE);
    CU_ASSERT(strstr(err.message, "expires_at") != NULL);
    CU_ASSERT_EQUAL(sbx_backend_extend(local_a, "exp-absent", sbx_test_wall_ms() + 60000, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_backend_extend(local_a, "../x", sbx_test_wall_ms() + 60000, &err),
                    SBX_ERR_REFUSED);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "exp-past";
    req.expires_at = sbx_test_wall_ms() - 1;
    sbx_sandbox *sb = NULL;
    CU_ASSERT_EQUAL(sbx_backend_create(local_a, &req, &sb, &err), SBX_ERR_USAGE);
    CU_ASSERT(strstr(err.message, "expires_at") != NULL);
    CU_ASSERT_EQUAL(sbx_test_is_alive(local_a, "exp-past"), 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "list destroys a sandbox past its expiry", test_list_destroys_an_expired_sandbox },
        { "discover, is_alive and create see the expiry", test_discover_alive_and_create_see_expiry },
        { "extend saves a sandbox, and moves it earlier", test_extend_saves_a_sandbox },
        { "bad input is refused naming expires_at", test_bad_input_names_expires_at },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("local expiry", NULL, suite_cleanup, tests);
}
