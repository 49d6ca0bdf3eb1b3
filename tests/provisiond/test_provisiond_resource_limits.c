/* The resource limits of a sandbox created through the remote backend ->
 * sbx-provisiond -> the local backend (root with the memory, cpu and
 * pids cgroup controllers; SKIP otherwise), as a host of the remote
 * backend sees them: a command allocating past the memory limit is
 * killed and the sandbox and the daemon stay up; a fork bomb stops at
 * the pids limit; a busy loop under 500 millicores gets about half a
 * core; a sandbox made without limits runs the same commands unbounded.
 * The AIO exec answer has no member for an OOM kill, so what travels is
 * the kill itself (exit 137), not the local backend's oom_killed. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/backend_calls.h"
#include "tests/support/cgroup_probe.h"
#include "tests/support/cunit_main.h"

#define MEMORY_LIMIT (INT64_C(64) * 1024 * 1024)
#define PIDS_LIMIT 32
#define CPU_MILLICORES 500
/* The busy loop's run, in seconds: twenty CFS periods of 100 ms. */
#define CPU_SECONDS 2

static provd_local daemon_dir;
static sbx_host *host;
static sbx_backend *remote;

/* The daemon, the remote backend on it and sandbox "limited" with the
 * limits above, once, in the first case (CUnit asserts need a case). */
static int limited_up(void)
{
    if (remote != NULL)
        return 1;
    if (!provd_local_remote_up(&daemon_dir, &host, &remote))
        return 0;
    sbx_error err;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "limited";
    req.memory_bytes = MEMORY_LIMIT;
    req.pids_limit = PIDS_LIMIT;
    req.cpu_millicores = CPU_MILLICORES;
    sbx_sandbox *sb = NULL;
    sbx_status st = sbx_backend_create(remote, &req, &sb, &err);
    if (st != SBX_OK)
        fprintf(stderr, "create: %s\n", err.message);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    sbx_backend_free_sandboxes(remote, sb, 1);
    return 1;
}

static int suite_stop(void)
{
    sbx_error err;
    if (remote != NULL)
        sbx_backend_destroy(remote, "limited", &err);
    sbx_backend_close(remote);
    sbx_host_free(host);
    if (daemon_dir.proc != NULL)
        provd_local_stop(&daemon_dir, 0);
    return 0;
}

/* 1 when shell text prints `want` and exits 0 in `id`. */
static int prints(const char *id, const char *text, const char *want)
{
    sbx_exec_result *r = sbx_test_shell_ok(remote, id, text, 0);
    int same = r->outcome == SBX_EXEC_EXITED && r->exit_code == 0 &&
               strcmp(r->stdout_data, want) == 0;
    if (!same)
        fprintf(stderr, "%s: exit %d, out '%s', err '%s'\n", text, r->exit_code,
                r->stdout_data, r->stderr_data);
    sbx_backend_free_exec_result(remote, r);
    return same;
}

static void test_memory_past_the_limit_is_killed_sandbox_stays(void)
{
    if (!limited_up())
        return;
    /* tail keeps a line that never ends: it grows until the limit. */
    sbx_exec_result *r = sbx_test_shell_ok(remote, "limited", "tail /dev/zero", 0);
    CU_ASSERT((r->outcome == SBX_EXEC_SIGNALED && r->term_signal == SIGKILL) ||
              (r->outcome == SBX_EXEC_EXITED && r->exit_code == 128 + SIGKILL));
    if (r->outcome == SBX_EXEC_EXITED && r->exit_code == 0)
        fprintf(stderr, "tail: out '%.100s', err '%s'\n", r->stdout_data, r->stderr_data);
    sbx_backend_free_exec_result(remote, r);
    CU_ASSERT(prints("limited", "echo alive", "alive\n"));
    int alive = 0;
    sbx_error err;
    CU_ASSERT(sbx_backend_is_alive(remote, "limited", &alive, &err) == SBX_OK && alive);
}

/* The number the shell counted to before a fork failed: the last line
 * of `out`. */
static long last_count(const char *out)
{
    const char *last = out, *p;
    while ((p = strchr(last, '\n')) != NULL && p[1] != '\0')
        last = p + 1;
    return atol(last);
}

/* Shell text starting up to 200 subshells that live until the exec ends,
 * counting each; the shell ends at the first fork that fails. */
#define FORK_BOMB                                                                            \
    "i=0; while [ $i -lt 200 ]; do (sleep 600) & i=$((i+1)); echo $i; done; "              \
    "kill $(jobs -p) 2>/dev/null; true"

static void test_a_fork_bomb_stops_at_the_pids_limit(void)
{
    if (!limited_up())
        return;
    sbx_exec_result *r = sbx_test_shell_ok(remote, "limited", FORK_BOMB, 0);
    long started = last_count(r->stdout_data);
    CU_ASSERT(started > 0 && started < PIDS_LIMIT);
    CU_ASSERT(strstr(r->stderr_data, "fork") != NULL);
    if (!(started > 0 && started < PIDS_LIMIT))
        fprintf(stderr, "forks: %ld, err '%s'\n", started, r->stderr_data);
    sbx_backend_free_exec_result(remote, r);
    CU_ASSERT(prints("limited", "(echo forked)", "forked\n"));
}

/* The CPU time, in seconds, of a busy loop run for CPU_SECONDS in `id`
 * (`times` prints its waited-for children's on its second line); -1 when
 * the answer cannot be read. */
static double busy_loop_cpu(const char *id)
{
    char text[160];
    snprintf(text, sizeof text, "timeout %d sh -c 'while :; do :; done'; times", CPU_SECONDS);
    sbx_exec_result *r = sbx_test_shell_ok(remote, id, text, 0);
    const char *second = strchr(r->stdout_data, '\n');
    double user = -1, sys = -1;
    int um = 0, sm = 0;
    int read = second != NULL &&
               sscanf(second + 1, "%dm%lfs %dm%lfs", &um, &user, &sm, &sys) == 4;
    if (!read)
        fprintf(stderr, "times: out '%s', err '%s'\n", r->stdout_data, r->stderr_data);
    sbx_backend_free_exec_result(remote, r);
    return read ? um * 60 + user + sm * 60 + sys : -1;
}

static void test_a_busy_loop_gets_about_half_a_core(void)
{
    if (!limited_up())
        return;
    double share = busy_loop_cpu("limited") / CPU_SECONDS;
    fprintf(stderr, "cpu_millicores %d through the daemon: %.2f of a core over %d s\n",
            CPU_MILLICORES, share, CPU_SECONDS);
    /* Half a core at most, with a tick's accounting to spare; the lower
     * bound only says the loop ran, since a loaded machine may give it
     * less than its quota. */
    CU_ASSERT(share <= 0.6);
    CU_ASSERT(share > 0.05);
}

static void test_a_sandbox_without_limits_is_unbounded(void)
{
    if (!limited_up())
        return;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "free";
    sbx_sandbox *sb = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_create(remote, &req, &sb, &err), SBX_OK);
    sbx_backend_free_sandboxes(remote, sb, 1);
    sbx_exec_result *r = sbx_test_shell_ok(remote, "free", FORK_BOMB, 0);
    CU_ASSERT(last_count(r->stdout_data) == 200);
    sbx_backend_free_exec_result(remote, r);
    /* 100 MiB held at once, past the other sandbox's 64 MiB. */
    CU_ASSERT(prints("free", "head -c 104857600 /dev/zero | tail -c 1 | od -An -tx1",
                     " 00\n"));
    CU_ASSERT(sbx_backend_destroy(remote, "free", &err) == SBX_OK);
}

void sbx_test_register(void)
{
    if (!sbx_test_cgroup_limits_possible()) {
        fprintf(stderr, "test_provisiond_resource_limits: skipped: not root, or no memory, "
                        "cpu and pids cgroup controllers mounted\n");
        exit(77);
    }
    static const CU_TestInfo tests[] = {
        {"memory past the limit killed through the daemon; sandbox stays",
         test_memory_past_the_limit_is_killed_sandbox_stays},
        {"a fork bomb stops at the pids limit", test_a_fork_bomb_stops_at_the_pids_limit},
        {"a busy loop under 500 millicores gets about half a core",
         test_a_busy_loop_gets_about_half_a_core},
        {"a sandbox without limits is unbounded", test_a_sandbox_without_limits_is_unbounded},
        CU_TEST_INFO_NULL};
    sbx_test_add_suite("resource limits through sbx-provisiond", NULL, suite_stop, tests);
}
