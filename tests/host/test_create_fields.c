/* The create request of ABI 1.5 through the host, with fixture modules: a
 * malformed member is refused before the module is called, naming the
 * member; a member the module does not honour is "unsupported" naming it
 * (a module built against 1.3 honours none); labels come back in records
 * and filter the list. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "tests/host/host_fixtures.h"

#include <string.h>
#include <time.h>

/* The fixture's sandbox "box" does not exist: nothing was created. */
static void expect_nothing_created(host_fixture *f)
{
    sbx_sandbox *s = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_discover(f->backend, "box", &s, &err), SBX_ERR_NOT_FOUND);
    sbx_backend_free_sandboxes(f->backend, s, 1);
}

/* Create "box" with `req` on fixture `name`: expect `kind` and `text`, and
 * nothing created.  Through both create calls. */
static void expect_refused(const char *name, sbx_create_request *req, sbx_status kind,
                           const char *text)
{
    host_fixture f;
    host_fixture_open(&f, name);
    req->sandbox_id = "box";
    sbx_sandbox *s = NULL;
    sbx_error err;
    expect_error(sbx_backend_create(f.backend, req, &s, &err), &err, kind, text);
    CU_ASSERT_PTR_NULL(s);
    sbx_sandbox_record *r = NULL;
    expect_error(sbx_backend_create_record(f.backend, req, &r, &err), &err, kind, text);
    CU_ASSERT_PTR_NULL(r);
    expect_nothing_created(&f);
    host_fixture_close(&f);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_bad_values_are_usage_errors(void)
{
    static const sbx_label eq_key[] = { { "a=b", "x" } };
    static const sbx_label nul_key[] = { { "", "x" } };
    static const sbx_label twice[] = { { "k", "1" }, { "k", "2" } };
    static const sbx_env_var bad_env[] = { { "1X", "v" } };
    sbx_create_request req;
#define REFUSED(assign, text)                                                     \
    do {                                                                         \
        sbx_create_request init = SBX_CREATE_REQUEST_INIT;                       \
        req = init;                                                              \
        assign;                                                                  \
        expect_refused("fixture-good", &req, SBX_ERR_USAGE, text);               \
    } while (0)
    REFUSED(req.memory_bytes = 0, "memory_bytes 0 is below its minimum");
    REFUSED(req.memory_bytes = 1, "memory_bytes 1 is below its minimum");
    REFUSED(req.cpu_millicores = -500, "cpu_millicores -500 is below its minimum");
    REFUSED(req.pids_limit = 0, "pids_limit 0 is below its minimum");
    REFUSED(req.disk_bytes = 0, "disk_bytes 0 is below its minimum");
    REFUSED(req.expires_at = now_ms() - 1000, "expires_at");
    REFUSED((req.labels = eq_key, req.label_count = 1), "labels #0: a key must be non-empty");
    /* A key "a\0b" is, to C, the key "a": what reaches a NUL is an empty key. */
    REFUSED((req.labels = nul_key, req.label_count = 1), "labels #0: a key must be non-empty");
    REFUSED((req.labels = twice, req.label_count = 2), "labels #1: key 'k' given twice");
    REFUSED((req.labels = NULL, req.label_count = 1), "label_count 1 but no labels array");
    REFUSED(req.image = "python 3.12", "image must be a name without white space");
    REFUSED((req.env = bad_env, req.env_count = 1), "env #0: a name must match");
    REFUSED(req.network = (sbx_network)7, "network 7");
#undef REFUSED
}

static void test_unhonoured_members_are_unsupported(void)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.memory_bytes = INT64_C(64) * 1024 * 1024;
    expect_refused("fixture-good", &req, SBX_ERR_UNSUPPORTED,
                   "create request member 'memory_bytes' is not supported");
    sbx_create_request image = SBX_CREATE_REQUEST_INIT;
    image.image = "python:3.12";
    expect_refused("fixture-good", &image, SBX_ERR_UNSUPPORTED, "'image'");
    /* Built against 1.3: it cannot read labels, so it honours none. */
    static const sbx_label labels[] = { { "team", "a" } };
    sbx_create_request old = SBX_CREATE_REQUEST_INIT;
    old.labels = labels;
    old.label_count = 1;
    expect_refused("fixture-minor-3", &old, SBX_ERR_UNSUPPORTED,
                   "backend 'fixture-minor-3' (ABI 1.3): create request member 'labels'");
}

/* extend (ABI 1.5): an expiry not in the future is refused naming
 * expires_at before any backend is asked; a module without extend (of an
 * older minor, or leaving it NULL) is unsupported, naming the call. */
static void test_extend_checks_and_unsupported(void)
{
    const char *const names[] = { "fixture-minor-3", "fixture-good" };
    for (size_t i = 0; i < 2; i++) {
        host_fixture f;
        host_fixture_open(&f, names[i]);
        sbx_error err;
        expect_error(sbx_backend_extend(f.backend, "box", now_ms() - 1, &err), &err,
                     SBX_ERR_USAGE, "extend: expires_at");
        expect_unsupported(sbx_backend_extend(f.backend, "box", now_ms() + 60000, &err), &err,
                           names[i], "extend");
        host_fixture_close(&f);
    }
}

/* What a create with none of the 1.5 members set did before: it works on
 * a module of every minor. */
static void test_plain_requests_reach_every_module(void)
{
    const char *const names[] = { "fixture-older-minor", "fixture-minor-3", "fixture-good" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        host_fixture f;
        host_fixture_open(&f, names[i]);
        sbx_create_request req = SBX_CREATE_REQUEST_INIT;
        req.sandbox_id = "box";
        sbx_sandbox *s = NULL;
        sbx_error err;
        CU_ASSERT_EQUAL(sbx_backend_create(f.backend, &req, &s, &err), SBX_OK);
        sbx_backend_free_sandboxes(f.backend, s, 1);
        host_fixture_close(&f);
    }
}

/* Labels pass to a module that honours them; the list filter keeps the
 * records that carry every label asked for (the fixture's records carry
 * "fixture-id" = their id). */
static void test_labels_pass_and_filter_the_list(void)
{
    host_fixture f;
    host_fixture_open(&f, "fixture-good");
    static const sbx_label labels[] = { { "team", "a" }, { "tier", "gold" } };
    const char *const ids[] = { "box-a", "box-b", "box-c" };
    sbx_sandbox_record *r = NULL;
    sbx_error err;
    for (size_t i = 0; i < 3; i++) {
        sbx_create_request req = SBX_CREATE_REQUEST_INIT;
        req.sandbox_id = ids[i];
        req.labels = labels;
        req.label_count = 2;
        CU_ASSERT_EQUAL_FATAL(sbx_backend_create_record(f.backend, &req, &r, &err), SBX_OK);
        sbx_backend_free_records(f.backend, r);
    }
    size_t n = 0;
    static const sbx_label want_b[] = { { "fixture-id", "box-b" } };
    CU_ASSERT_EQUAL(sbx_backend_list_records_labelled(f.backend, want_b, 1, &r, &n, &err), SBX_OK);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_FATAL(r != NULL);
    CU_ASSERT_STRING_EQUAL(r->sandbox.sandbox_id, "box-b");
    CU_ASSERT_PTR_NULL(r->next);
    CU_ASSERT_EQUAL(r->label_count, 1);
    sbx_backend_free_records(f.backend, r);
    static const sbx_label want_both[] = { { "fixture-id", "box-b" }, { "team", "a" } };
    CU_ASSERT_EQUAL(sbx_backend_list_records_labelled(f.backend, want_both, 2, &r, &n, &err),
                    SBX_OK);
    CU_ASSERT_EQUAL(n, 0);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_EQUAL(sbx_backend_list_records_labelled(f.backend, NULL, 0, &r, &n, &err), SBX_OK);
    CU_ASSERT_EQUAL(n, 3);
    sbx_backend_free_records(f.backend, r);
    static const sbx_label no_value[] = { { "team", NULL } };
    expect_error(sbx_backend_list_records_labelled(f.backend, no_value, 1, &r, &n, &err), &err,
                 SBX_ERR_USAGE, "label filter #0 has no key or no value");
    host_fixture_close(&f);
}

void sbx_test_register(void)
{
    host_fixtures_locate();
    static const CU_TestInfo tests[] = {
        {"malformed 1.5 members: usage errors naming them, nothing created",
         test_bad_values_are_usage_errors},
        {"members a module does not honour: unsupported, naming them",
         test_unhonoured_members_are_unsupported},
        {"a request setting no 1.5 member reaches modules of every minor",
         test_plain_requests_reach_every_module},
        {"labels pass to a module honouring them; the list filter", test_labels_pass_and_filter_the_list},
        {"extend: a past expiry named; unsupported without the call",
         test_extend_checks_and_unsupported},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("create fields", NULL, NULL, tests);
}
