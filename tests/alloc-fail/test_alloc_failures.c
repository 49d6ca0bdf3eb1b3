/*
 * Allocation-failure injection (fail_alloc.h) on the remote backend's
 * operations against the emulator: for each operation, run it once for
 * every N = 1, 2, ... with the Nth allocation of sbx code failing, until a
 * run asks for fewer than N allocations.  Every run must end with SBX_OK
 * and a usable result, or with an error whose kind is the returned status
 * and whose message is terminated; never a crash.  Leaks are checked by
 * running this program under valgrind (`make check-valgrind`).
 * The record operations of ABI 1.2 (create_record, discover_record,
 * list_records: the host builds the records from the remote backend's 1.1
 * answers) are run the same way, and must also hand out no record on
 * failure (out NULL, count 0); a create or create_record that failed
 * after the provisioner made the sandbox must say it is left for destroy
 * (the caller cannot see it otherwise).
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "tests/alloc-fail/fail_alloc.h"
#include "tests/support/cunit_main.h"
#include "tests/support/emulator.h"
#include "tests/support/remote_helpers.h"

/* More sbx allocations than any one operation asks for: a run that still
 * injects a failure at this N means the loop would not end. */
#define MAX_FAILURE_POINT 5000

static sbx_test_emu *emu;

/* One operation under test, on a freshly opened backend (NULL for "open",
 * which opens it itself inside the armed window). */
typedef sbx_status (*operation_fn)(sbx_host *host, sbx_backend **backend, sbx_error *err);

/* What the runs of one operation ended with, for the log. */
typedef struct tally {
    unsigned long ok, by_kind[SBX_ERR_INTERNAL + 1];
} tally;

static int seed_running(const char *id)
{
    char path[96], body[160];
    snprintf(path, sizeof path, "/_emu/sandboxes/%s", id);
    snprintf(body, sizeof body,
             "{\"sandbox_id\":\"%s\",\"sandbox_url\":\"http://127.0.0.1:9\",\"status\":\"Running\","
             "\"user_id\":\"default\",\"thread_id\":\"%s\",\"mount_contract_version\":2}",
             id, id);
    return sbx_test_emu_control(emu, "PUT", path, body, NULL);
}

static int setup_suite(void)
{
    emu = sbx_test_emu_start((const char *const[]){"--contract", "2", NULL});
    return emu == NULL || seed_running("af-alive") != 200 || seed_running("af-other") != 200;
}

static int cleanup_suite(void)
{
    sbx_test_emu_stop(emu);
    emu = NULL;
    return 0;
}

static sbx_status op_open(sbx_host *host, sbx_backend **backend, sbx_error *err)
{
    sbx_option options[] = {{"provisioner_url", sbx_test_emu_url(emu)}, {"timeout_ms", "5000"}};
    return sbx_backend_open(host, "remote", options, 2, backend, err);
}

/* The create request of op_create and op_create_record. */
static sbx_create_request create_request(sbx_mount *mount)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "af-created";
    req.thread_id = "af-thread";
    req.user_id = "alice";
    /* under the provisioner's state directory, as the real one requires */
    *mount = (sbx_mount){"/.deer-flow/users/u1/acp-workspace", "/mnt/acp-workspace", 1};
    req.extra_mounts = mount;
    req.extra_mount_count = 1;
    return req;
}

static sbx_status op_create(sbx_host *host, sbx_backend **backend, sbx_error *err)
{
    (void)host;
    sbx_mount mount;
    sbx_create_request req = create_request(&mount);
    sbx_sandbox *sb = NULL;
    sbx_status st = sbx_backend_create(*backend, &req, &sb, err);
    if (st == SBX_OK) {
        CU_ASSERT_PTR_NOT_NULL(sb);
        if (sb != NULL)
            CU_ASSERT_STRING_EQUAL(sb->sandbox_id, "af-created");
    }
    sbx_backend_free_sandboxes(*backend, sb, st == SBX_OK ? 1 : 0);
    return st;
}

static sbx_status op_create_record(sbx_host *host, sbx_backend **backend, sbx_error *err)
{
    (void)host;
    sbx_mount mount;
    sbx_create_request req = create_request(&mount);
    sbx_sandbox_record *one = NULL;
    sbx_status st = sbx_backend_create_record(*backend, &req, &one, err);
    if (st == SBX_OK) {
        CU_ASSERT_PTR_NOT_NULL(one);
        if (one != NULL) {
            CU_ASSERT_STRING_EQUAL(one->sandbox.sandbox_id, "af-created");
            CU_ASSERT_PTR_NULL(one->next);
        }
    } else {
        CU_ASSERT_PTR_NULL(one);
    }
    sbx_backend_free_records(*backend, one);
    return st;
}

static sbx_status op_discover_record(sbx_host *host, sbx_backend **backend, sbx_error *err)
{
    (void)host;
    sbx_sandbox_record *one = NULL;
    sbx_status st = sbx_backend_discover_record(*backend, "af-alive", &one, err);
    if (st == SBX_OK) {
        CU_ASSERT_PTR_NOT_NULL(one);
        if (one != NULL)
            CU_ASSERT_STRING_EQUAL(one->sandbox.sandbox_url, "http://127.0.0.1:9");
    } else {
        CU_ASSERT_PTR_NULL(one);
    }
    sbx_backend_free_records(*backend, one);
    return st;
}

static sbx_status op_list_records(sbx_host *host, sbx_backend **backend, sbx_error *err)
{
    (void)host;
    sbx_sandbox_record *chain = NULL;
    size_t count = 0, walked = 0;
    sbx_status st = sbx_backend_list_records(*backend, &chain, &count, err);
    for (const sbx_sandbox_record *r = chain; r != NULL; r = r->next)
        walked++;
    CU_ASSERT_EQUAL(walked, count);
    if (st == SBX_OK) {
        CU_ASSERT(count >= 2);
    } else {
        CU_ASSERT(chain == NULL && count == 0);
    }
    sbx_backend_free_records(*backend, chain);
    return st;
}

static sbx_status op_is_alive(sbx_host *host, sbx_backend **backend, sbx_error *err)
{
    (void)host;
    int alive = 0;
    sbx_status st = sbx_backend_is_alive(*backend, "af-alive", &alive, err);
    if (st == SBX_OK)
        CU_ASSERT_EQUAL(alive, 1);
    return st;
}

static sbx_status op_discover(sbx_host *host, sbx_backend **backend, sbx_error *err)
{
    (void)host;
    sbx_sandbox *sb = NULL;
    sbx_status st = sbx_backend_discover(*backend, "af-alive", &sb, err);
    if (st == SBX_OK) {
        CU_ASSERT_PTR_NOT_NULL(sb);
        if (sb != NULL)
            CU_ASSERT_STRING_EQUAL(sb->sandbox_url, "http://127.0.0.1:9");
    }
    sbx_backend_free_sandboxes(*backend, sb, st == SBX_OK ? 1 : 0);
    return st;
}

static sbx_status op_list(sbx_host *host, sbx_backend **backend, sbx_error *err)
{
    (void)host;
    sbx_sandbox *list = NULL;
    size_t count = 0;
    sbx_status st = sbx_backend_list_running(*backend, &list, &count, err);
    if (st == SBX_OK)
        CU_ASSERT(count >= 2);
    sbx_backend_free_sandboxes(*backend, list, count);
    return st;
}

static sbx_status op_destroy(sbx_host *host, sbx_backend **backend, sbx_error *err)
{
    (void)host;
    return sbx_backend_destroy(*backend, "af-other", err);
}

static sbx_status op_capabilities(sbx_host *host, sbx_backend **backend, sbx_error *err)
{
    (void)host;
    sbx_capabilities caps;
    sbx_status st = sbx_backend_capabilities(*backend, &caps, err);
    if (st == SBX_OK && caps.known)
        CU_ASSERT_EQUAL(caps.mount_contract_version, 2);
    return st;
}

static sbx_status op_reconcile(sbx_host *host, sbx_backend **backend, sbx_error *err)
{
    (void)host;
    sbx_reconciliation rec;
    memset(&rec, 0, sizeof rec);
    sbx_status st = sbx_backend_reconcile(*backend, "af-alive", &rec, err);
    if (st == SBX_OK && rec.status == SBX_RECONCILE_FOUND)
        CU_ASSERT_PTR_NOT_NULL(rec.sandbox);
    sbx_backend_clear_reconciliation(*backend, &rec);
    return st;
}

/* Run `op` failing the 1st, 2nd, ... sbx allocation; `opens_itself`: the
 * operation is open, so no backend is opened before arming. */
static void torture(const char *name, operation_fn op, int opens_itself)
{
    tally t;
    memset(&t, 0, sizeof t);
    unsigned long n = 1, asked = 0;
    for (; n <= MAX_FAILURE_POINT; n++) {
        sbx_host *host = NULL;
        sbx_backend *backend = NULL;
        sbx_error err;
        if (sbx_host_new(NULL, &host, &err) != SBX_OK) {
            CU_FAIL_FATAL("sbx_host_new failed without injection");
        }
        if (!opens_itself) {
            backend = sbx_test_open_remote(&host, sbx_test_emu_url(emu), NULL, NULL, 0, &err);
            CU_ASSERT_PTR_NOT_NULL_FATAL(backend);
        }
        sbx_error_clear(&err);
        if (op == op_create || op == op_create_record)
            sbx_test_emu_control(emu, "DELETE", "/api/sandboxes/af-created", NULL, NULL);
        sbx_fail_alloc_arm(n);
        sbx_status st = op(host, &backend, &err);
        asked = sbx_fail_alloc_disarm();

        if (st != SBX_OK) {
            CU_ASSERT_EQUAL(err.kind, st);
            CU_ASSERT_PTR_NOT_NULL(memchr(err.message, '\0', sizeof err.message));
            CU_ASSERT(err.message[0] != '\0');
            CU_ASSERT(st > 0 && st <= SBX_ERR_INTERNAL);
        }
        if (asked >= n) { /* a failure was injected in this run */
            /* Running out of memory here is ours to report, never a
             * verdict on the provisioner or the caller (refused, ...). */
            if (st != SBX_OK)
                CU_ASSERT_EQUAL(st, SBX_ERR_INTERNAL);
            if (st == SBX_OK)
                t.ok++;
            else if (st > 0 && st <= SBX_ERR_INTERNAL)
                t.by_kind[st]++;
        }
        if (opens_itself)
            CU_ASSERT((st == SBX_OK) == (backend != NULL));
        sbx_backend_close(backend);
        sbx_host_free(host);
        if (asked < n) {
            /* Nothing failed in this run: every earlier point has been tried. */
            CU_ASSERT_EQUAL(st, SBX_OK);
            break;
        }
        /* The sandboxes the next run needs are as they were. */
        if (op == op_destroy)
            CU_ASSERT_EQUAL(seed_running("af-other"), 200);
        if (op == op_create || op == op_create_record) {
            /* A sandbox the failed create made is named in its message. */
            int made = sbx_test_emu_control(emu, "GET", "/api/sandboxes/af-created", NULL,
                                            NULL) == 200;
            if (st != SBX_OK && made) {
                CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "left for destroy"));
                if (strstr(err.message, "left for destroy") == NULL)
                    printf("\n  %s N=%lu left a sandbox: %s", name, n, err.message);
            }
        }
    }
    CU_ASSERT(n <= MAX_FAILURE_POINT);
    printf("\n  %s: %lu allocation points failed in turn; still ok %lu", name, n - 1, t.ok);
    for (int k = 1; k <= SBX_ERR_INTERNAL; k++)
        if (t.by_kind[k] > 0)
            printf(", %s %lu", sbx_status_name((sbx_status)k), t.by_kind[k]);
    printf("\n");
}

static void test_open(void) { torture("open", op_open, 1); }
static void test_create(void) { torture("create", op_create, 0); }
static void test_is_alive(void) { torture("is_alive", op_is_alive, 0); }
static void test_discover(void) { torture("discover", op_discover, 0); }
static void test_list(void) { torture("list_running", op_list, 0); }
static void test_destroy(void) { torture("destroy", op_destroy, 0); }
static void test_capabilities(void) { torture("capabilities", op_capabilities, 0); }
static void test_reconcile(void) { torture("reconcile", op_reconcile, 0); }
static void test_create_record(void) { torture("create_record", op_create_record, 0); }
static void test_discover_record(void) { torture("discover_record", op_discover_record, 0); }
static void test_list_records(void) { torture("list_records", op_list_records, 0); }

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"every allocation of open fails in turn", test_open},
        {"every allocation of create fails in turn", test_create},
        {"every allocation of is_alive fails in turn", test_is_alive},
        {"every allocation of discover fails in turn", test_discover},
        {"every allocation of list_running fails in turn", test_list},
        {"every allocation of destroy fails in turn", test_destroy},
        {"every allocation of capabilities fails in turn", test_capabilities},
        {"every allocation of reconcile fails in turn", test_reconcile},
        {"every allocation of create_record fails in turn", test_create_record},
        {"every allocation of discover_record fails in turn", test_discover_record},
        {"every allocation of list_records fails in turn", test_list_records},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote backend under allocation failures", setup_suite, cleanup_suite,
                       tests);
}
