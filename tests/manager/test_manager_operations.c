/*
 * The sandbox operations on a managed sandbox (sbx_manager_exec and the
 * file calls, open_file included), over the real local backend and the
 * manager's test clock: they run on an active sandbox only, count as use,
 * and the idle reaper never takes a sandbox while a command runs in it.
 */
#include <config.h>

#include "tests/manager/mgr_fixture.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"

#include <errno.h>
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

/* Read `fd` to its end (at most `cap` bytes) into `buf`, then close it:
 * the bytes read, or -1 when a read fails. */
static ssize_t read_to_end(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    for (;;) {
        ssize_t got = n < cap ? read(fd, buf + n, cap - n) : 0;
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            close(fd);
            return got < 0 ? -1 : (ssize_t)n;
        }
        n += (size_t)got;
    }
}

/* A sentinel no call returns: a failure that leaves *fd untouched shows. */
enum { UNTOUCHED_FD = 4242 };

/* open_file on an active sandbox hands over the file itself (its bytes and
 * size; the fd is the caller's); a directory, a released sandbox and one
 * never acquired are refused with *fd -1, naming the call. */
static void test_open_file_hands_over_the_file(void)
{
    sbx_manager *m = open_manager(600000);
    char id[64];
    CU_ASSERT_FATAL(mf_acquire(m, "ann", "t-open", id));
    char data[100000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)(i * 7 + i / 251);
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_manager_write_file(m, id, "data.bin", data, sizeof data, 0, 0,
                                                 &err),
                          SBX_OK);
    int fd = UNTOUCHED_FD;
    uint64_t size = 0;
    CU_ASSERT_EQUAL_FATAL(sbx_manager_open_file(m, id, "data.bin", &fd, &size, &err), SBX_OK);
    CU_ASSERT(fd >= 0 && fd != UNTOUCHED_FD);
    CU_ASSERT_EQUAL(size, sizeof data);
    static char read_back[sizeof data + 1]; /* room to see a byte too many */
    CU_ASSERT_EQUAL(read_to_end(fd, read_back, sizeof read_back), (ssize_t)sizeof data);
    CU_ASSERT(memcmp(read_back, data, sizeof data) == 0);

    sbx_status st;
    sbx_exec_result *r = run(m, id, "mkdir d", &st);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    sbx_backend_free_exec_result(local, r);
    fd = UNTOUCHED_FD;
    CU_ASSERT_EQUAL(sbx_manager_open_file(m, id, "d", &fd, &size, &err),
                    SBX_ERR_IS_A_DIRECTORY);
    CU_ASSERT_EQUAL(fd, -1);

    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    fd = UNTOUCHED_FD;
    size = 1;
    CU_ASSERT_EQUAL(sbx_manager_open_file(m, id, "data.bin", &fd, &size, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(fd, -1);
    CU_ASSERT_EQUAL(size, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "open_file"));
    fd = UNTOUCHED_FD;
    CU_ASSERT_EQUAL(sbx_manager_open_file(m, "0123456789abcdef", "data.bin", &fd, &size, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(fd, -1);
    sbx_manager_free(m);
}

/* open_file is use: a sandbox opened from just before its idle timeout is
 * kept by a reaper pass past the timeout counted from its acquire. */
static void test_open_file_counts_as_use(void)
{
    sbx_manager *m = open_manager(1000);
    char id[64];
    CU_ASSERT_FATAL(mf_acquire(m, "ann", "t-open-use", id));
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_manager_write_file(m, id, "f", "x", 1, 0, 0, &err), SBX_OK);
    mf_advance(900);
    int fd = UNTOUCHED_FD;
    uint64_t size = 0;
    CU_ASSERT_EQUAL_FATAL(sbx_manager_open_file(m, id, "f", &fd, &size, &err), SBX_OK);
    close(fd);
    mf_advance(900);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    sbx_managed *still = sbx_manager_get(m, id);
    CU_ASSERT_PTR_NOT_NULL(still);
    sbx_managed_unref(still);
    /* The same reaper takes it once idle past the timeout (get was use). */
    mf_advance(1100);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT_PTR_NULL(sbx_manager_get(m, id));
    sbx_manager_free(m);
}

/* A backend without open_file (the manager's test backend): unsupported,
 * naming the call, *fd -1, on an active sandbox. */
static void test_open_file_unsupported_passes_through(void)
{
    sbx_manager_config c = mf_config();
    sbx_manager *m = mf_open(&c);
    char id[64];
    CU_ASSERT_FATAL(mf_acquire(m, "ann", "t-open-unsupported", id));
    sbx_error err;
    int fd = UNTOUCHED_FD;
    uint64_t size = 1;
    CU_ASSERT_EQUAL(sbx_manager_open_file(m, id, "f", &fd, &size, &err), SBX_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "does not support open_file"));
    CU_ASSERT_EQUAL(fd, -1);
    CU_ASSERT_EQUAL(size, 0);
    sbx_manager_free(m);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"operations need an active sandbox", test_operations_need_an_active_sandbox},
        {"a running command keeps its sandbox from the idle reaper",
         test_a_running_command_keeps_its_sandbox},
        {"open_file hands over the file; refuses a directory and a sandbox not active",
         test_open_file_hands_over_the_file},
        {"open_file counts as use", test_open_file_counts_as_use},
        {"open_file of a backend without it is unsupported",
         test_open_file_unsupported_passes_through},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("manager operations (local)", open_local, close_local, tests);
}
