/* ABI 1.2 records (sbx_sandbox_record) through the host, from fixture
 * modules of every minor: 1.0 (a 1.2 build declaring the 1.0 size), 1.1
 * (built against the 1.1 header itself), 1.2 and a future minor.  The 1.0
 * operations keep answering arrays of the frozen sbx_sandbox; the record
 * operations answer chains from every minor. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/iso_time.h"
#include "tests/host/host_fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the 1.2 fixture puts in its records (fixture_backend.c). */
#define FIXTURE_CREATED_AT INT64_C(1700000000123)

static void create(sbx_backend *b, const char *id)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    sbx_sandbox *s = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_create(b, &req, &s, &err), SBX_OK);
    sbx_backend_free_sandboxes(b, s, 1);
}

/* The record of `id` in a chain, or NULL. */
static const sbx_sandbox_record *find(const sbx_sandbox_record *chain, const char *id)
{
    for (; chain != NULL; chain = chain->next)
        if (strcmp(chain->sandbox.sandbox_id, id) == 0)
            return chain;
    return NULL;
}

/* A record of a backend with record operations (the fixture's facts), or
 * one the host built for an older backend (1.2 members unknown). */
static void expect_record(const sbx_sandbox_record *r, const char *id, int from_module)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    char url[80];
    snprintf(url, sizeof url, "mem://%s", id);
    CU_ASSERT_STRING_EQUAL(r->sandbox.sandbox_id, id);
    CU_ASSERT_STRING_EQUAL(r->sandbox.sandbox_url, strstr(id, "nourl") ? "" : url);
    CU_ASSERT(r->struct_size >= SBX_RECORD_SIZE_1_2);
    CU_ASSERT(SBX_RECORD_HAS(r, directory));
    CU_ASSERT_EQUAL(r->sandbox.mount_contract_version, SBX_CONTRACT_NONE);
    if (from_module) {
        char container[80];
        snprintf(container, sizeof container, "fx-%s", id);
        CU_ASSERT_EQUAL(r->created_at, FIXTURE_CREATED_AT);
        CU_ASSERT_STRING_EQUAL(r->container_id, container);
        CU_ASSERT_STRING_EQUAL(r->engine, "fixture-engine");
        CU_ASSERT_EQUAL(r->pid, 4242);
    } else {
        CU_ASSERT_EQUAL(r->created_at, SBX_TIME_UNKNOWN);
        CU_ASSERT_PTR_NULL(r->container_id);
        CU_ASSERT_PTR_NULL(r->engine);
        CU_ASSERT_EQUAL(r->pid, 0);
    }
    CU_ASSERT_PTR_NULL(r->incarnation_id);
    CU_ASSERT_PTR_NULL(r->container_name);
    CU_ASSERT_PTR_NULL(r->engine_version);
    CU_ASSERT_PTR_NULL(r->directory);
}

/* Open fixture `name` (declaring ABI 1.`minor`), make three sandboxes and
 * one without an address, and read them back both ways. */
static void exercise(const char *name, unsigned minor)
{
    sbx_host *host = host_fixtures_new_host();
    sbx_backend *b = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_open(host, name, NULL, 0, &b, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_descriptor_of(b)->abi_minor, minor);
    int from_module = minor >= 2;
    create(b, "box-a");
    create(b, "box-b");
    create(b, "box-nourl");
    create(b, "box-c");

    /* 1.0: an array of the frozen struct, indexed by this program's sizeof. */
    sbx_sandbox *all = NULL;
    size_t count = 0;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_list_running(b, &all, &count, &err), SBX_OK);
    CU_ASSERT_EQUAL_FATAL(count, 3);
    CU_ASSERT_STRING_EQUAL(all[0].sandbox_id, "box-a");
    CU_ASSERT_STRING_EQUAL(all[1].sandbox_url, "mem://box-b");
    CU_ASSERT_STRING_EQUAL(all[2].sandbox_id, "box-c");
    sbx_backend_free_sandboxes(b, all, count);

    /* 1.2: a chain; a backend with records keeps the one without an address. */
    sbx_sandbox_record *chain = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_list_records(b, &chain, &count, &err), SBX_OK);
    CU_ASSERT_EQUAL(count, from_module ? 4 : 3);
    size_t walked = 0;
    for (const sbx_sandbox_record *r = chain; r != NULL; r = r->next, walked++)
        expect_record(r, r->sandbox.sandbox_id, from_module);
    CU_ASSERT_EQUAL(walked, count);
    expect_record(find(chain, "box-b"), "box-b", from_module);
    if (from_module)
        expect_record(find(chain, "box-nourl"), "box-nourl", 1);
    else
        CU_ASSERT_PTR_NULL(find(chain, "box-nourl"));
    sbx_backend_free_records(b, chain);

    sbx_sandbox_record *one = NULL;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "box-d";
    CU_ASSERT_EQUAL_FATAL(sbx_backend_create_record(b, &req, &one, &err), SBX_OK);
    expect_record(one, "box-d", from_module);
    CU_ASSERT_PTR_NULL(one->next);
    sbx_backend_free_records(b, one);
    CU_ASSERT_EQUAL_FATAL(sbx_backend_discover_record(b, "box-a", &one, &err), SBX_OK);
    expect_record(one, "box-a", from_module);
    sbx_backend_free_records(b, one);
    CU_ASSERT_EQUAL(sbx_backend_discover_record(b, "box-z", &one, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NULL(one);
    CU_ASSERT_STRING_EQUAL(err.message, "sandbox 'box-z' not found");
    sbx_backend_free_records(b, NULL);
    sbx_backend_close(b);
    sbx_host_free(host);
}

static void test_minor_0(void) { exercise("fixture-older-minor", 0); }
static void test_minor_1(void) { exercise("fixture-minor-1", 1); }
static void test_minor_2(void) { exercise("fixture-minor-2", 2); }
static void test_minor_3(void) { exercise("fixture-minor-3", 3); }
static void test_minor_5(void) { exercise("fixture-minor-5", 5); }
static void test_current_minor(void) { exercise("fixture-good", SBX_BACKEND_ABI_MINOR); }
static void test_future_minor(void) { exercise("fixture-newer-minor", 99); }

static void test_short_records_are_not_handed_out(void)
{
    sbx_host *host = host_fixtures_new_host();
    sbx_backend *b = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_open(host, "fixture-short-records", NULL, 0, &b, &err),
                          SBX_OK);
    char expected[256];
    snprintf(expected, sizeof expected,
             "backend 'fixture-short-records': create_record returned a record smaller than "
             "ABI 1.2's (%zu bytes, not %zu)",
             offsetof(sbx_sandbox_record, created_at), (size_t)SBX_RECORD_SIZE_1_2);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "box-a";
    sbx_sandbox_record *one = NULL;
    CU_ASSERT_EQUAL(sbx_backend_create_record(b, &req, &one, &err), SBX_ERR_INTERNAL);
    CU_ASSERT_STRING_EQUAL(err.message, expected);
    CU_ASSERT_PTR_NULL(one);
    size_t count = 7;
    CU_ASSERT_EQUAL(sbx_backend_list_records(b, &one, &count, &err), SBX_ERR_INTERNAL);
    CU_ASSERT_PTR_NULL(one);
    CU_ASSERT_EQUAL(count, 0);
    /* The 1.0 operations are not affected. */
    sbx_sandbox *s = NULL;
    CU_ASSERT_EQUAL(sbx_backend_discover(b, "box-a", &s, &err), SBX_OK);
    sbx_backend_free_sandboxes(b, s, 1);
    sbx_backend_close(b);
    sbx_host_free(host);
}

static void test_record_operations_need_free_records(void)
{
    sbx_host *host = host_fixtures_new_host();
    const sbx_backend_descriptor *d = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_host_load(host, "fixture-records-no-free", &d, &err), SBX_ERR_LOAD);
    char expected[8192];
    snprintf(expected, sizeof expected,
             "cannot load backend module %s/fixture-records-no-free.so: module ABI %d.%d, host "
             "ABI %d.%d (descriptor lacks the free_records operation its record operations "
             "need)", host_fixtures_dir(), SBX_BACKEND_ABI_MAJOR, SBX_BACKEND_ABI_MINOR,
             SBX_BACKEND_ABI_MAJOR, SBX_BACKEND_ABI_MINOR);
    CU_ASSERT_STRING_EQUAL(err.message, expected);
    sbx_host_free(host);
}

/* The layouts that modules of 1.0 to 1.5 were built with do not move:
 * 1.3 to 1.6 only append, the exec request's cancel_fd comes after 1.3's
 * and its output callback after cancel_fd; 1.5 appends to the create
 * request, the record and operations_info, and extend to the descriptor;
 * 1.6 open_file to the descriptor. */
static void test_frozen_layouts(void)
{
    CU_ASSERT_EQUAL(SBX_BACKEND_ABI_MINOR, 6);
    CU_ASSERT_EQUAL(SBX_CREATE_REQUEST_SIZE_1_4, offsetof(sbx_create_request, image));
    CU_ASSERT_EQUAL(SBX_CREATE_REQUEST_SIZE_1_5, sizeof(sbx_create_request));
    CU_ASSERT(SBX_RECORD_SIZE_1_2 <= offsetof(sbx_sandbox_record, labels));
    CU_ASSERT(offsetof(sbx_operations_info, max_buffer_bytes) <
              offsetof(sbx_operations_info, create_fields));
    CU_ASSERT_EQUAL(offsetof(sbx_sandbox, mount_contract_version), 5 * sizeof(char *));
    CU_ASSERT_EQUAL(SBX_DESCRIPTOR_SIZE_1_1, SBX_DESCRIPTOR_MIN_SIZE(clear_reconciliation));
    CU_ASSERT(SBX_DESCRIPTOR_SIZE_1_1 < SBX_DESCRIPTOR_MIN_SIZE(create_record));
    CU_ASSERT_EQUAL(SBX_DESCRIPTOR_SIZE_1_2, SBX_DESCRIPTOR_MIN_SIZE(free_records));
    CU_ASSERT(SBX_DESCRIPTOR_SIZE_1_2 < SBX_DESCRIPTOR_MIN_SIZE(operations_info));
    CU_ASSERT(SBX_DESCRIPTOR_MIN_SIZE(remove_path_req) < SBX_DESCRIPTOR_MIN_SIZE(extend));
    CU_ASSERT_EQUAL(SBX_DESCRIPTOR_SIZE_1_5, SBX_DESCRIPTOR_MIN_SIZE(extend));
    CU_ASSERT(SBX_DESCRIPTOR_SIZE_1_5 < SBX_DESCRIPTOR_MIN_SIZE(open_file));
    CU_ASSERT_EQUAL(sizeof(sbx_backend_descriptor), SBX_DESCRIPTOR_SIZE_1_6);
    CU_ASSERT_EQUAL(SBX_DESCRIPTOR_SIZE_1_3, SBX_DESCRIPTOR_MIN_SIZE(remove_path));
    CU_ASSERT(SBX_DESCRIPTOR_SIZE_1_3 < SBX_DESCRIPTOR_MIN_SIZE(process_start));
    CU_ASSERT_EQUAL(SBX_DESCRIPTOR_SIZE_1_4, SBX_DESCRIPTOR_MIN_SIZE(remove_path_req));
    CU_ASSERT_EQUAL(SBX_EXEC_REQUEST_SIZE_1_3, offsetof(sbx_exec_request, cancel_fd));
    CU_ASSERT(SBX_EXEC_REQUEST_SIZE_1_3 < sizeof(sbx_exec_request));
    CU_ASSERT(offsetof(sbx_exec_request, cancel_fd) < offsetof(sbx_exec_request, on_output));
    CU_ASSERT_EQUAL(SBX_EXEC_REQUEST_SIZE_1_4, sizeof(sbx_exec_request));
}

/* The times backends are given, as created_at reads them. */
static void test_rfc3339_times(void)
{
    static const struct {
        const char *text;
        int64_t ms;
    } good[] = {
        {"1970-01-01T00:00:00Z", 0},
        {"2026-12-02T15:30:00Z", INT64_C(1796225400000)},
        {"2024-02-29T23:59:59.999999999Z", INT64_C(1709251199999)},
        {"2024-05-01T12:00:00.5+02:00", INT64_C(1714557600500)},
        {"2024-05-01T08:30:00-01:30", INT64_C(1714557600000)},
        {"1969-12-31T23:59:59Z", INT64_C(-1000)},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int64_t ms = 42;
        CU_ASSERT_EQUAL(common_time_parse_rfc3339(good[i].text, &ms), 1);
        CU_ASSERT_EQUAL(ms, good[i].ms);
        if (ms != good[i].ms)
            fprintf(stderr, "%s: %lld\n", good[i].text, (long long)ms);
    }
    static const char *const bad[] = {
        "", "2024-05-01", "2024-05-01T12:00:00", "2024-02-30T00:00:00Z",
        "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-05-01T24:00:00Z",
        "2024-05-01T12:00:00.Z", "2024-05-01T12:00:00Zjunk", "2024-05-01 12:00:00Z",
        "2024-05-01T12:00:00+0200", "+2024-05-01T12:00:00Z", "1714557600",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t ms = 42;
        CU_ASSERT_EQUAL(common_time_parse_rfc3339(bad[i], &ms), 0);
        CU_ASSERT_EQUAL(ms, 42);
    }
    CU_ASSERT_EQUAL(common_time_parse_rfc3339(NULL, NULL), 0);
}

void sbx_test_register(void)
{
    host_fixtures_locate();
    static const CU_TestInfo tests[] = {
        {"a 1.0 module: arrays as before, records built by the host", test_minor_0},
        {"a 1.1 module built with the 1.1 header: arrays as before, records built by the host",
         test_minor_1},
        {"a 1.2 module: its own records, URL-less ones kept in list_records", test_minor_2},
        {"a 1.3 module: its own records, as a 1.2 one", test_minor_3},
        {"a 1.5 module built with the 1.5 header: its own records, as a 1.2 one", test_minor_5},
        {"a module of the current minor: its own records, as a 1.2 one", test_current_minor},
        {"a module of a future minor: its records are read as 1.2", test_future_minor},
        {"records smaller than 1.2 are refused, not handed out", test_short_records_are_not_handed_out},
        {"record operations without free_records: the module is refused",
         test_record_operations_need_free_records},
        {"the 1.0, 1.1 and 1.2 layouts are unchanged", test_frozen_layouts},
        {"RFC 3339 times as created_at reads them", test_rfc3339_times},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("records", NULL, NULL, tests);
}
