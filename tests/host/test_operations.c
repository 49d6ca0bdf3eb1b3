/* The sandbox operations (ABI 1.3) through the host, from fixture modules
 * of every minor: older modules answer "unsupported" for each operation
 * and no operations in operations_info; a 1.3 module's results are checked
 * before a caller reads them, and a module that could hand out results
 * nobody can release is refused at load.  The operations themselves are
 * tested against every backend in tests/backend-contract. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "tests/host/host_fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fixture `name` opened, with sandbox "box" made. */
static void open_fixture(host_fixture *o, const char *name)
{
    host_fixture_open(o, name);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "box";
    sbx_sandbox *s = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_create(o->backend, &req, &s, &err), SBX_OK);
    sbx_backend_free_sandboxes(o->backend, s, 1);
}

/* Every operation of a module of minor 0 or 2, or of a 1.3 one that lacks
 * it: unsupported, naming it; nothing handed out. */
static void expect_no_operations(const char *name, int has_exec)
{
    host_fixture o;
    open_fixture(&o, name);
    sbx_error err;
    sbx_operations_info info;
    memset(&info, 0xAB, sizeof info);
    info.struct_size = sizeof info;
    CU_ASSERT_EQUAL(sbx_backend_operations_info(o.backend, &info, &err), SBX_OK);
    CU_ASSERT_EQUAL(info.struct_size, sizeof info);
    CU_ASSERT_EQUAL(info.operations, has_exec ? SBX_OP_EXEC : 0u);
    if (!has_exec) {
        CU_ASSERT_EQUAL(info.default_timeout_ms, 0);
        CU_ASSERT_EQUAL(info.max_file_bytes, 0);
        static const char *const argv[] = {"true", NULL};
        sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
        req.argv = argv;
        sbx_exec_result *r = (sbx_exec_result *)&err;
        expect_unsupported(sbx_backend_exec(o.backend, "box", &req, &r, &err), &err, name,
                           "exec");
        CU_ASSERT_PTR_NULL(r);
    }
    sbx_file_content *content = (sbx_file_content *)&err;
    expect_unsupported(sbx_backend_read_file(o.backend, "box", "f", 0, 1, &content, &err), &err,
                       name, "read_file");
    CU_ASSERT_PTR_NULL(content);
    expect_unsupported(sbx_backend_write_file(o.backend, "box", "f", "x", 1, 0, 0, &err), &err,
                       name, "write_file");
    sbx_dir_listing *listing = (sbx_dir_listing *)&err;
    expect_unsupported(sbx_backend_list_dir(o.backend, "box", ".", 1, 1, &listing, &err), &err,
                       name, "list_dir");
    CU_ASSERT_PTR_NULL(listing);
    expect_unsupported(sbx_backend_remove_path(o.backend, "box", "f", 0, &err), &err, name,
                       "remove_path");
    host_fixture_close(&o);
}

static void test_minor_0_has_no_operations(void) { expect_no_operations("fixture-older-minor", 0); }
static void test_minor_2_has_no_operations(void) { expect_no_operations("fixture-minor-2", 0); }

/* A module with exec: it runs; what it claims but lacks is masked. */
static void expect_exec_runs(const char *name)
{
    expect_no_operations(name, 1);
    host_fixture o;
    open_fixture(&o, name);
    static const char *const argv[] = {"say", "two words", NULL};
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    req.argv = argv;
    sbx_exec_result *r = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_exec(o.backend, "box", &req, &r, &err), SBX_OK);
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(r->exit_code, 2);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "say two words");
    CU_ASSERT(SBX_EXEC_RESULT_HAS(r, stderr_truncated));
    sbx_backend_free_exec_result(o.backend, r);
    r = NULL;
    CU_ASSERT_EQUAL(sbx_backend_exec(o.backend, "other", &req, &r, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NULL(r);
    host_fixture_close(&o);
}

/* A 1.3 module, built with the 1.3 header as it shipped. */
static void test_minor_3_exec_and_masked_claims(void) { expect_exec_runs("fixture-minor-3"); }

/* A module of the current minor with exec and no processes. */
static void test_current_exec_and_masked_claims(void) { expect_exec_runs("fixture-good"); }

/* Results smaller than 1.3's are released and refused, never handed out. */
static void test_short_results_are_not_handed_out(void)
{
    host_fixture o;
    open_fixture(&o, "fixture-short-results");
    static const char *const argv[] = {"x", NULL};
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    req.argv = argv;
    sbx_exec_result *r = (sbx_exec_result *)&req;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_exec(o.backend, "box", &req, &r, &err), SBX_ERR_INTERNAL);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "fixture-short-results"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "smaller than ABI 1.3"));
    host_fixture_close(&o);
}

/* exec without free_exec_result: the module is refused at load, naming it. */
static void test_exec_needs_its_free_operation(void)
{
    sbx_host *host = host_fixtures_new_host();
    sbx_error err;
    const sbx_backend_descriptor *d = NULL;
    CU_ASSERT_EQUAL(sbx_host_load(host, "fixture-exec-no-free", &d, &err), SBX_ERR_LOAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "free_exec_result"));
    sbx_host_free(host);
}

/* What the host refuses before any backend sees it. */
static void test_malformed_calls_are_usage_errors(void)
{
    host_fixture o;
    open_fixture(&o, "fixture-good");
    sbx_error err;
    sbx_exec_result *r = NULL;
    CU_ASSERT_EQUAL(sbx_backend_exec(o.backend, "box", NULL, &r, &err), SBX_ERR_USAGE);
    sbx_exec_request small = SBX_EXEC_REQUEST_INIT;
    small.struct_size = sizeof(size_t);
    CU_ASSERT_EQUAL(sbx_backend_exec(o.backend, "box", &small, &r, &err), SBX_ERR_USAGE);
    CU_ASSERT_EQUAL(sbx_backend_exec(o.backend, NULL, &small, &r, &err), SBX_ERR_USAGE);
    sbx_operations_info info;
    info.struct_size = 1;
    CU_ASSERT_EQUAL(sbx_backend_operations_info(o.backend, &info, &err), SBX_ERR_USAGE);
    host_fixture_close(&o);
}

/* open_file (ABI 1.6): unsupported, naming it, from a module of an older
 * minor (even one whose slot past its 1.5 descriptor holds the call: the
 * host reads no member beyond the size) and from one that leaves it NULL;
 * a descriptor answered is the caller's; success without one is refused. */
static void test_open_file_needs_1_6_and_a_descriptor(void)
{
    static const struct {
        const char *name;
        const char *abi;
    } without[] = {{"fixture-minor-3", "1.3"}, {"fixture-minor-5", "1.5"},
                   {"fixture-open-file-past-size", "1.5"}, {"fixture-good", "1.6"}};
    for (size_t i = 0; i < sizeof without / sizeof without[0]; i++) {
        host_fixture o;
        host_fixture_open(&o, without[i].name);
        sbx_error err;
        int fd = 7;
        uint64_t size = 7;
        sbx_status st = sbx_backend_open_file(o.backend, "box", "f", &fd, &size, &err);
        expect_unsupported(st, &err, without[i].name, "open_file");
        char abi[32];
        snprintf(abi, sizeof abi, "(ABI %s)", without[i].abi);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, abi));
        CU_ASSERT_EQUAL(fd, -1);
        CU_ASSERT_EQUAL(size, 0);
        host_fixture_close(&o);
    }
    host_fixture o;
    host_fixture_open(&o, "fixture-open-file");
    sbx_error err;
    int fd = -1;
    uint64_t size = 7;
    CU_ASSERT_EQUAL(sbx_backend_open_file(o.backend, "box", "f", &fd, &size, &err), SBX_OK);
    CU_ASSERT(fd >= 0);
    CU_ASSERT_EQUAL(size, 0);
    CU_ASSERT_EQUAL(close(fd), 0);
    expect_error(sbx_backend_open_file(o.backend, "box", "no-fd", &fd, &size, &err), &err,
                 SBX_ERR_INTERNAL, "open_file returned no descriptor");
    CU_ASSERT_EQUAL(fd, -1);
    expect_error(sbx_backend_open_file(o.backend, NULL, "f", &fd, &size, &err), &err,
                 SBX_ERR_USAGE, "open_file: a sandbox id is required");
    expect_error(sbx_backend_open_file(o.backend, "box", NULL, &fd, &size, &err), &err,
                 SBX_ERR_USAGE, "open_file: a path is required");
    host_fixture_close(&o);
}

void sbx_test_register(void)
{
    host_fixtures_locate();
    static const CU_TestInfo tests[] = {
        {"a 1.0 module: every operation unsupported, naming it", test_minor_0_has_no_operations},
        {"a 1.2 module built with the 1.2 header: every operation unsupported",
         test_minor_2_has_no_operations},
        {"a 1.3 module: exec runs; claims of operations it lacks are masked",
         test_minor_3_exec_and_masked_claims},
        {"a module of the current minor: exec runs; claims it lacks are masked",
         test_current_exec_and_masked_claims},
        {"exec results smaller than 1.3 are refused, not handed out",
         test_short_results_are_not_handed_out},
        {"exec without free_exec_result: the module is refused",
         test_exec_needs_its_free_operation},
        {"malformed exec calls are usage errors", test_malformed_calls_are_usage_errors},
        {"open_file: unsupported before 1.6 or when NULL; a descriptor or an error",
         test_open_file_needs_1_6_and_a_descriptor},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("operations", NULL, NULL, tests);
}
