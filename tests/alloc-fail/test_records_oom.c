/*
 * Allocation-failure injection (fail_alloc.h) on the ABI 1.2 record
 * operations (create_record, discover_record, list_records) where no
 * server is needed:
 *   - the host's record adapters, through fixture modules of ABI 1.0
 *     (fixture-older-minor) and 1.1 (fixture-minor-1): the module answers
 *     its 1.0 operation (its own allocations, in a module not named sbx-*,
 *     are not counted) and every allocation the host makes to build the
 *     records fails in turn;
 *   - the local backend (directory sandboxes), which answers records
 *     itself: every allocation of the backend and the host fails in turn,
 *     for directory sandboxes and for command sandboxes (a real server on
 *     127.0.0.1: python3 or busybox httpd; skipped without either).
 * The remote backend's record operations run in test_alloc_failures,
 * against the emulator.
 * For each operation, run it once for every N = 1, 2, ... with the Nth
 * allocation failing, until a run asks for fewer than N.  A run that met a
 * failure ends with SBX_OK and a whole answer, or with SBX_ERR_INTERNAL, a
 * terminated message, NULL out and count 0 (never a partial chain).  A
 * create_record that failed leaves no sandbox behind, unless its message
 * says the sandbox is left for destroy (as create's failures after the
 * sandbox exists do: docs/local.md), and after destroy no file and no
 * process of it remains; a discover_record or list_records removes
 * nothing, and one that got over a failure answers what it would have
 * (the local backend's status, pid, incarnation and directory).  Leaks are checked by running this program under
 * valgrind (`make check-valgrind`), which also sees every record released.
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/alloc-fail/fail_alloc.h"
#include "tests/local-backend/local_fixture.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/proc_table.h"
#include "tests/support/scratch_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

/* More allocations than any one operation asks for. */
#define MAX_FAILURE_POINT 5000

static char fixture_dir[PATH_MAX];

/* The backend under test: a fixture module or the local backend in a
 * state directory of its own. */
typedef struct target {
    const char *module;     /* fixture module name, or "local" */
    const char *command;    /* local: the sandboxes' command, or NULL */
    char state_dir[PATH_MAX];
    sbx_host *host;
    sbx_backend *backend;
} target;

static void target_open(target *t)
{
    sbx_error err;
    if (strcmp(t->module, "local") == 0) {
        t->host = sbx_local_test_new_host(NULL, NULL);
        sbx_option opts[] = { { "state_dir", t->state_dir }, { "command", t->command },
                              { "ready_timeout_ms", SBX_TEST_READY_TIMEOUT_MS } };
        t->backend = sbx_local_test_open(t->host, opts, t->command != NULL ? 3 : 1);
        return;
    }
    CU_ASSERT_EQUAL_FATAL(sbx_host_new(NULL, &t->host, &err), SBX_OK);
    const char *dirs[] = { fixture_dir };
    CU_ASSERT_EQUAL_FATAL(sbx_host_set_module_path(t->host, dirs, 1, &err), SBX_OK);
    CU_ASSERT_EQUAL_FATAL(sbx_backend_open(t->host, t->module, NULL, 0, &t->backend, &err),
                          SBX_OK);
}

static void target_close(target *t)
{
    sbx_backend_close(t->backend);
    sbx_host_free(t->host);
    t->backend = NULL;
    t->host = NULL;
}

/* 1 when `id` exists on the backend (discover, not armed). */
static int exists(target *t, const char *id)
{
    sbx_sandbox *sb = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_discover(t->backend, id, &sb, &err);
    CU_ASSERT(st == SBX_OK || st == SBX_ERR_NOT_FOUND);
    sbx_backend_free_sandboxes(t->backend, sb, st == SBX_OK ? 1 : 0);
    return st == SBX_OK;
}

static void make(target *t, const char *id)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    sbx_sandbox *sb = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_create(t->backend, &req, &sb, &err);
    if (st != SBX_OK)
        fprintf(stderr, "create %s: %s\n", id, err.message);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    sbx_backend_free_sandboxes(t->backend, sb, 1);
}

static void destroy(target *t, const char *id)
{
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(t->backend, id, &err), SBX_OK);
}

/* The text processes_naming() counts, how many name it so far, and the
 * first of them. */
struct naming {
    const char *text;
    int found;
    long first;
};

/* Count `p` in the naming `ctx` when its command line holds the text. */
static int count_naming(const sbx_test_process *p, void *ctx)
{
    struct naming *count = ctx;
    if (p->args_len > 0 && strstr(p->line, count->text) != NULL && count->found++ == 0)
        count->first = p->pid;
    return 0;
}

/* How many processes have `text` in their command line (a command
 * sandbox's server names its directory there); *first is one of them. */
static int processes_naming(const char *text, long *first)
{
    struct naming count = {text, 0, 0};
    sbx_test_proc_each(count_naming, &count);
    if (first != NULL)
        *first = count.first;
    return count.found;
}

/* No process of a sandbox under `state_dir` runs any more (destroy stops
 * them; init reaps them a little later): each one found is waited for
 * through its pidfd, until a deadline no loaded machine reaches. */
static void expect_no_sandbox_process(const char *state_dir)
{
    long deadline = sbx_test_now_ms() + 60000, pid;
    int left;
    while ((left = processes_naming(state_dir, &pid)) > 0 &&
           sbx_test_wait_process_end(pid, deadline))
        ;
    CU_ASSERT_EQUAL(left, 0);
}

/* One operation: its status; on SBX_OK *chain (which it asserts on) is
 * handed back for release, else the operation asserts it is empty. */
typedef sbx_status (*operation_fn)(target *t, sbx_error *err);

/* A chain of `count` whole records, the first with id `first_id` (NULL:
 * any). */
static void expect_chain(const sbx_sandbox_record *chain, size_t count, const char *first_id)
{
    size_t walked = 0;
    for (const sbx_sandbox_record *r = chain; r != NULL; r = r->next, walked++) {
        CU_ASSERT(r->struct_size >= SBX_RECORD_SIZE_1_2);
        CU_ASSERT_PTR_NOT_NULL(r->sandbox.sandbox_id);
        CU_ASSERT_PTR_NOT_NULL(r->sandbox.sandbox_url);
    }
    CU_ASSERT_EQUAL(walked, count);
    if (first_id != NULL && chain != NULL)
        CU_ASSERT_STRING_EQUAL(chain->sandbox.sandbox_id, first_id);
}

static sbx_status op_create_record(target *t, sbx_error *err)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "oom-new";
    req.thread_id = "oom-thread";
    sbx_sandbox_record *one = (sbx_sandbox_record *)&req; /* must be reset */
    sbx_status st = sbx_backend_create_record(t->backend, &req, &one, err);
    if (st == SBX_OK)
        expect_chain(one, 1, "oom-new");
    else
        CU_ASSERT_PTR_NULL(one);
    sbx_backend_free_records(t->backend, st == SBX_OK ? one : NULL);
    return st;
}

static sbx_status op_discover_record(target *t, sbx_error *err)
{
    sbx_sandbox_record *one = (sbx_sandbox_record *)t;
    sbx_status st = sbx_backend_discover_record(t->backend, "oom-seed-a", &one, err);
    if (st == SBX_OK) {
        expect_chain(one, 1, "oom-seed-a");
        /* A failure the backend gets over must not change the answer. */
        if (strcmp(t->module, "local") == 0) {
            CU_ASSERT_STRING_EQUAL(one->sandbox.status, "Running");
            CU_ASSERT((one->pid != 0) == (t->command != NULL));
            CU_ASSERT_PTR_NOT_NULL(one->incarnation_id);
            CU_ASSERT_PTR_NOT_NULL(one->directory);
        }
    } else
        CU_ASSERT_PTR_NULL(one);
    sbx_backend_free_records(t->backend, st == SBX_OK ? one : NULL);
    return st;
}

static sbx_status op_list_records(target *t, sbx_error *err)
{
    sbx_sandbox_record *chain = (sbx_sandbox_record *)t;
    size_t count = 99;
    sbx_status st = sbx_backend_list_records(t->backend, &chain, &count, err);
    if (st == SBX_OK) {
        CU_ASSERT_EQUAL(count, 3);
        expect_chain(chain, count, NULL);
    } else {
        CU_ASSERT_PTR_NULL(chain);
        CU_ASSERT_EQUAL(count, 0);
    }
    sbx_backend_free_records(t->backend, st == SBX_OK ? chain : NULL);
    return st;
}

static const char *const seeds[] = { "oom-seed-a", "oom-seed-b", "oom-seed-c" };

/* Run `op` on `module` (with `command` for the local backend) failing the
 * 1st, 2nd, ... sbx allocation. */
static void torture_with(const char *module, const char *command, const char *name,
                         operation_fn op)
{
    target t = { .module = module, .command = command };
    if (strcmp(module, "local") == 0)
        sbx_local_test_make_dir(t.state_dir, sizeof t.state_dir, "records-oom");
    unsigned long n = 1, asked = 0, ok = 0, failed = 0, left = 0;
    for (; n <= MAX_FAILURE_POINT; n++) {
        target_open(&t);
        for (size_t i = 0; op != op_create_record && i < sizeof seeds / sizeof *seeds; i++)
            make(&t, seeds[i]);
        sbx_error err;
        sbx_error_clear(&err);
        sbx_fail_alloc_arm(n);
        sbx_status st = op(&t, &err);
        asked = sbx_fail_alloc_disarm();

        if (st != SBX_OK) {
            CU_ASSERT_EQUAL(err.kind, st);
            CU_ASSERT_PTR_NOT_NULL(memchr(err.message, '\0', sizeof err.message));
            CU_ASSERT(err.message[0] != '\0');
            /* Out of memory is ours to report, never a verdict on the
             * sandbox (not_found) or the request (refused). */
            CU_ASSERT_EQUAL(st, SBX_ERR_INTERNAL);
            if (st != SBX_ERR_INTERNAL)
                printf("\n  %s %s N=%lu: %s %s", module, name, n, sbx_status_name(st),
                       err.message);
            failed++;
        } else if (asked >= n) {
            ok++;
        }
        if (op == op_create_record) {
            if (st != SBX_OK && exists(&t, "oom-new")) {
                /* What a user cannot see must not stay behind. */
                CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "left for destroy"));
                if (strstr(err.message, "left for destroy") == NULL)
                    printf("\n  %s create_record N=%lu left a sandbox: %s", module, n,
                           err.message);
                left++;
            }
            destroy(&t, "oom-new");
        } else {
            /* The seeds' servers still run (and the process check sees them). */
            if (t.command != NULL)
                CU_ASSERT(processes_naming(t.state_dir, NULL) >= 3);
            for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
                CU_ASSERT(exists(&t, seeds[i]));
                destroy(&t, seeds[i]);
            }
        }
        if (t.state_dir[0] != '\0')
            CU_ASSERT_EQUAL(sbx_local_test_count_entries(t.state_dir), 0);
        if (t.command != NULL)
            expect_no_sandbox_process(t.state_dir);
        target_close(&t);
        if (asked < n) {
            /* Nothing failed in this run: every earlier point was tried. */
            CU_ASSERT_EQUAL(st, SBX_OK);
            break;
        }
    }
    CU_ASSERT(n <= MAX_FAILURE_POINT);
    if (t.state_dir[0] != '\0')
        sbx_test_remove_tree(t.state_dir);
    printf("\n  %s%s %s: %lu allocation points failed in turn; still ok %lu, internal %lu "
           "(sandbox left for destroy %lu)\n", module, command != NULL ? " (command)" : "", name,
           n - 1, ok, failed, left);
}

static void torture(const char *module, const char *name, operation_fn op)
{
    torture_with(module, NULL, name, op);
}

/* The local backend's command sandboxes: a real server on 127.0.0.1. */
static void torture_command(const char *name, operation_fn op)
{
    const char *command = sbx_local_test_server_command();
    if (command == NULL) {
        printf("\n  SKIP: neither python3 nor busybox to serve a command sandbox\n");
        return;
    }
    torture_with("local", command, name, op);
}

static void test_adapter_1_0_create(void) { torture("fixture-older-minor", "create_record", op_create_record); }
static void test_adapter_1_0_discover(void) { torture("fixture-older-minor", "discover_record", op_discover_record); }
static void test_adapter_1_0_list(void) { torture("fixture-older-minor", "list_records", op_list_records); }
static void test_adapter_1_1_create(void) { torture("fixture-minor-1", "create_record", op_create_record); }
static void test_adapter_1_1_discover(void) { torture("fixture-minor-1", "discover_record", op_discover_record); }
static void test_adapter_1_1_list(void) { torture("fixture-minor-1", "list_records", op_list_records); }
static void test_local_create(void) { torture("local", "create_record", op_create_record); }
static void test_local_discover(void) { torture("local", "discover_record", op_discover_record); }
static void test_local_list(void) { torture("local", "list_records", op_list_records); }
static void test_command_create(void) { torture_command("create_record", op_create_record); }
static void test_command_discover(void) { torture_command("discover_record", op_discover_record); }
static void test_command_list(void) { torture_command("list_records", op_list_records); }

void sbx_test_register(void)
{
    const char *build = getenv("SBX_TEST_BUILDDIR");
    snprintf(fixture_dir, sizeof fixture_dir, "%s/tests/host/fixtures/.libs",
             build != NULL ? build : ".");
    static const CU_TestInfo adapters[] = {
        {"1.0 module: every host allocation of create_record fails in turn", test_adapter_1_0_create},
        {"1.0 module: every host allocation of discover_record fails in turn", test_adapter_1_0_discover},
        {"1.0 module: every host allocation of list_records fails in turn", test_adapter_1_0_list},
        {"1.1 module: every host allocation of create_record fails in turn", test_adapter_1_1_create},
        {"1.1 module: every host allocation of discover_record fails in turn", test_adapter_1_1_discover},
        {"1.1 module: every host allocation of list_records fails in turn", test_adapter_1_1_list},
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo local[] = {
        {"every allocation of create_record fails in turn", test_local_create},
        {"every allocation of discover_record fails in turn", test_local_discover},
        {"every allocation of list_records fails in turn", test_local_list},
        {"command sandboxes: every allocation of create_record fails in turn", test_command_create},
        {"command sandboxes: every allocation of discover_record fails in turn",
         test_command_discover},
        {"command sandboxes: every allocation of list_records fails in turn", test_command_list},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("host record adapters under allocation failures", NULL, NULL, adapters);
    sbx_test_add_suite("local backend records under allocation failures", NULL, NULL, local);
}
