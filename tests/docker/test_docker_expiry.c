/*
 * Expiry on the docker backend (ABI 1.5's expires_at and extend), against
 * the dockerd engine docker-suite.sh starts: a sandbox past its expiry is
 * removed by the first is_alive or list that sees it (its container gone
 * from the engine), an extended one outlives the expiry it was created
 * with and shows the moved one, and extends docker cannot honour are
 * refused naming why; a create of an id past its expiry makes a new
 * one.  The sandboxes' expiries are derived from how long a create takes
 * here, so that a loaded machine cannot pass one before
 * the test extends it; the waits are on the wall clock passing.
 */
#include <config.h>

#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/docker_engine.h"
#include "tests/support/http_probe.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int suite_init(void)
{
    sbx_error err;
    if (sbx_test_docker_suite_init() != 0)
        return 1;
    /* A run cut short leaves its sandboxes, whose expiry a create keeps. */
    static const char *const ids[] = { "exp-none", "exp-saved", "exp-alive", "exp-listed",
                                       "exp-again" };
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        if (sbx_backend_destroy(sbx_test_docker.backend, ids[i], &err) != SBX_OK) {
            fprintf(stderr, "destroy %s: %s\n", ids[i], err.message);
            return 1;
        }
    return 0;
}

/* Create sandbox `id` expiring at `expires_at` (0: never); its record's
 * expires_at. */
static int64_t create(const char *id, int64_t expires_at)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.expires_at = expires_at;
    sbx_sandbox_record *made = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_create_record(sbx_test_docker.backend, &req, &made, &err);
    if (st != SBX_OK)
        fprintf(stderr, "create %s: %s\n", id, err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    CU_ASSERT_FATAL(SBX_RECORD_HAS(made, expires_at));
    int64_t got = made->expires_at;
    sbx_backend_free_records(sbx_test_docker.backend, made);
    return got;
}

/* The expiry `list` shows for `id`; -1 when it is not listed. */
static int64_t listed_expiry(const char *id)
{
    sbx_sandbox_record *all = NULL;
    sbx_error err;
    size_t count = 0;
    sbx_status st = sbx_backend_list_records(sbx_test_docker.backend, &all, &count, &err);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    int64_t found = -1;
    for (sbx_sandbox_record *r = all; r != NULL; r = r->next)
        if (strcmp(r->sandbox.sandbox_id, id) == 0)
            found = r->expires_at;
    sbx_backend_free_records(sbx_test_docker.backend, all);
    return found;
}

static int alive(const char *id)
{
    int is = -1;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_is_alive(sbx_test_docker.backend, id, &is, &err), SBX_OK);
    return is;
}

/* The engine's own answer: no container, running or not, carries the
 * sandbox's label. */
static int engine_has_none(const char *id)
{
    char url[256];
    /* filters={"label":["sbx.sandbox_id=ID"]}, URL-encoded */
    snprintf(url, sizeof url,
             "http://localhost/containers/json?all=1&filters=%%7B%%22label%%22%%3A%%5B%%22"
             "sbx.sandbox_id%%3D%s%%22%%5D%%7D", id);
    sbx_test_http_result res;
    memset(&res, 0, sizeof res);
    int none = sbx_test_http_unix(sbx_test_docker.socket, "GET", url, NULL, 30000, &res) == 0 &&
               res.status == 200 && strcmp(res.body, "[]\n") == 0;
    if (!none)
        fprintf(stderr, "engine lists for %s: %ld %s\n", id, res.status,
                res.body != NULL ? res.body : "");
    sbx_test_http_result_clear(&res);
    return none;
}

static void expect_extend(const char *id, int64_t at, sbx_status want, const char *says)
{
    sbx_error err;
    sbx_status st = sbx_backend_extend(sbx_test_docker.backend, id, at, &err);
    CU_ASSERT_EQUAL(st, want);
    if (st != SBX_OK && strstr(err.message, says) == NULL) {
        fprintf(stderr, "extend %s: '%s' lacks '%s'\n", id, err.message, says);
        CU_FAIL("the error names what is at fault");
    }
}

static void test_expiry_removes_and_extend_saves(void)
{
    /* How long a create takes here sets the expiries: five times that and
     * 2 s more holds the next four creates and the extend. */
    long started = sbx_test_now_ms();
    CU_ASSERT_EQUAL(create("exp-none", 0), SBX_TIME_UNKNOWN);
    int64_t margin = 5 * (sbx_test_now_ms() - started) + 2000;

    int64_t first = sbx_test_wall_ms() + margin;
    CU_ASSERT_EQUAL(create("exp-saved", first), first);
    CU_ASSERT_EQUAL(create("exp-alive", first), first);
    CU_ASSERT_EQUAL(create("exp-listed", first), first);
    CU_ASSERT_EQUAL(create("exp-again", first), first);
    int64_t later = sbx_test_wall_ms() + 30 * 60 * 1000;
    expect_extend("exp-saved", later, SBX_OK, "");
    /* The label holds the create's expiry: nothing can go before it. */
    expect_extend("exp-alive", first - 1, SBX_ERR_UNSUPPORTED, "before the one it was created");
    expect_extend("exp-none", later, SBX_ERR_USAGE, "(expires_at)");
    expect_extend("exp-missing", later, SBX_ERR_NOT_FOUND, "exp-missing");
    sbx_sandbox_record *rec = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(
        sbx_backend_discover_record(sbx_test_docker.backend, "exp-saved", &rec, &err), SBX_OK);
    CU_ASSERT_EQUAL(rec->expires_at, later);
    sbx_backend_free_records(sbx_test_docker.backend, rec);

    sbx_test_wait_wall_past(first);
    /* is_alive sees one past it first: removed, by that call. */
    CU_ASSERT_EQUAL(alive("exp-alive"), 0);
    CU_ASSERT(engine_has_none("exp-alive"));
    /* list another, which it leaves out. */
    CU_ASSERT_EQUAL(listed_expiry("exp-listed"), -1);
    CU_ASSERT(engine_has_none("exp-listed"));
    /* The extended one stays, listed with its moved expiry, and answers. */
    CU_ASSERT_EQUAL(listed_expiry("exp-saved"), later);
    CU_ASSERT_EQUAL(alive("exp-saved"), 1);
    CU_ASSERT_EQUAL(listed_expiry("exp-none"), SBX_TIME_UNKNOWN);
    /* A create of an id past its expiry makes a new sandbox, with the new
     * request's expiry, instead of handing out the old one. */
    CU_ASSERT_EQUAL(create("exp-again", later), later);
    CU_ASSERT_EQUAL(alive("exp-again"), 1);
    CU_ASSERT_EQUAL(sbx_backend_destroy(sbx_test_docker.backend, "exp-again", &err), SBX_OK);
    /* A past one cannot be extended: gone, and said so. */
    expect_extend("exp-alive", later, SBX_ERR_NOT_FOUND, "exp-alive");

    /* Moved earlier (not before the create's): gone at that time. */
    int64_t soon = sbx_test_wall_ms() + 1000;
    expect_extend("exp-saved", soon, SBX_OK, "");
    sbx_test_wait_wall_past(soon);
    CU_ASSERT_EQUAL_FATAL(
        sbx_backend_discover_record(sbx_test_docker.backend, "exp-saved", &rec, &err),
        SBX_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "exp-saved"));
    CU_ASSERT(engine_has_none("exp-saved"));
    CU_ASSERT_EQUAL(sbx_backend_destroy(sbx_test_docker.backend, "exp-none", &err), SBX_OK);
}

void sbx_test_register(void)
{
    sbx_test_docker_engine(&sbx_test_docker.socket, &sbx_test_docker.image);
    static const CU_TestInfo tests[] = {
        {"expiry removes a sandbox at is_alive and list; extend saves one",
         test_expiry_removes_and_extend_saves},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("docker expiry", suite_init, sbx_test_docker_suite_clean, tests);
}
