/*
 * sbxctl acquire, manage and leases: the built program over the local
 * backend with a sqlite lease file (and a real redis-server) in a private
 * directory, as an operator runs them.  The 5 s store bounds: a store that
 * does not answer (a sqlite file another process holds locked, a stopped
 * redis-server) makes the command fail within the bound, naming the store.
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sbx/manager.h>

#include "tests/manager/redis_server.h"
#include "tests/sbxctl/run_sbxctl.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/subprocess.h"

static char dir[256];
static char config_path[300];

/* A private directory and a configuration with `manager_section` (JSON
 * members of "manager") over the local backend there. */
static void setup(const char *manager_section)
{
    const char *base = getenv("XDG_STATE_HOME");
    snprintf(dir, sizeof dir, "%s/sbxctl-manager-XXXXXX", base != NULL ? base : "/tmp");
    char parent[256];
    snprintf(parent, sizeof parent, "%s", base != NULL ? base : "/tmp");
    mkdir(parent, 0700);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(config_path, sizeof config_path, "%s/sbx.json", dir);
    FILE *f = fopen(config_path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    /* isolation=none: the manager's leases and reaping are under test, and
     * CI runs this suite under ThreadSanitizer, whose fork children run
     * its background thread, so the kernel refuses them a user namespace
     * (EINVAL); isolation has its own suites. */
    fprintf(f, "{\"backend\":\"local\",\"backends\":{\"local\":{\"state_dir\":\"%s/local\","
            "\"isolation\":\"none\"}},"
            "\"manager\":{\"lock_dir\":\"%s/locks\",", dir, dir);
    /* "@DIR@" in the section stands for the private directory. */
    for (const char *p = manager_section; *p != '\0'; p++) {
        if (strncmp(p, "@DIR@", 5) == 0) {
            fputs(dir, f);
            p += 4;
        } else {
            fputc(*p, f);
        }
    }
    fputs("}}", f);
    fclose(f);
}

/* Run sbxctl --config <ours> ARGS...; returns the run (caller clears). */
static sbx_test_run ctl(int timeout_ms, const char *a0, const char *a1, const char *a2,
                        const char *a3, const char *a4)
{
    const char *args[] = {"--config", config_path, a0, a1, a2, a3, a4, NULL};
    sbx_test_run run;
    memset(&run, 0, sizeof run);
    if (sbx_test_run_sbxctl(args, NULL, timeout_ms, &run) != 0)
        run.exit_code = -1;
    return run;
}

static int running_count(void)
{
    sbx_test_run run = ctl(10000, "list", "--json", NULL, NULL, NULL);
    json_object *doc = sbx_test_run_json(&run), *count = NULL;
    int n = doc != NULL && json_object_object_get_ex(doc, "count", &count)
                ? json_object_get_int(count) : -1;
    json_object_put(doc);
    sbx_test_run_clear(&run);
    return n;
}

static void test_acquire_hands_out_the_threads_sandbox_and_leaves_it_running(void)
{
    setup("\"ownership\":{\"store\":\"sqlite\",\"path\":\"@DIR@/leases.db\"}");
    char want[SBX_DERIVED_ID_SIZE];
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_sandbox_id_derive("alice", "t1", want, &err), SBX_OK);
    for (int round = 0; round < 2; round++) {
        sbx_test_run run;
        const char *args[] = {"--config", config_path, "acquire", "--json", "--thread", "t1",
                              "--user", "alice", NULL};
        CU_ASSERT_EQUAL(sbx_test_run_sbxctl(args, NULL, 20000, &run), 0);
        CU_ASSERT_EQUAL(run.exit_code, 0);
        json_object *doc = sbx_test_run_json(&run), *id = NULL;
        CU_ASSERT(doc != NULL && json_object_object_get_ex(doc, "sandbox_id", &id) &&
                  strcmp(json_object_get_string(id), want) == 0);
        json_object_put(doc);
        sbx_test_run_clear(&run);
    }
    CU_ASSERT_EQUAL(running_count(), 1);
}

static void test_acquire_keeps_the_lease_only_when_asked(void)
{
    setup("\"ownership\":{\"store\":\"sqlite\",\"path\":\"@DIR@/leases.db\","
          "\"renewal_interval_s\":10}");
    sbx_test_run run = ctl(20000, "acquire", "--thread", "t1", NULL, NULL);
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    run = ctl(10000, "leases", "--json", NULL, NULL, NULL);
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "\"count\":0"));
    sbx_test_run_clear(&run);

    run = ctl(20000, "acquire", "--thread", "t2", "--keep-lease", NULL);
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    char want[SBX_DERIVED_ID_SIZE];
    sbx_error err;
    sbx_sandbox_id_derive(NULL, "t2", want, &err);
    run = ctl(10000, "leases", "--json", NULL, NULL, NULL);
    CU_ASSERT_EQUAL(run.exit_code, 0);
    json_object *doc = sbx_test_run_json(&run), *leases = NULL;
    CU_ASSERT_FATAL(doc != NULL && json_object_object_get_ex(doc, "leases", &leases) &&
                    json_object_array_length(leases) == 1);
    json_object *lease = json_object_array_get_idx(leases, 0), *v = NULL;
    CU_ASSERT(json_object_object_get_ex(lease, "sandbox_id", &v) &&
              strcmp(json_object_get_string(v), want) == 0);
    CU_ASSERT(json_object_object_get_ex(lease, "state", &v) &&
              strcmp(json_object_get_string(v), "own") == 0);
    CU_ASSERT(json_object_object_get_ex(lease, "ttl_ms", &v) && json_object_get_int64(v) > 0 &&
              json_object_get_int64(v) <= 40000);
    json_object_put(doc);
    sbx_test_run_clear(&run);
    /* The human table names the same lease. */
    run = ctl(10000, "leases", NULL, NULL, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "SANDBOX"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, want));
    sbx_test_run_clear(&run);
}

/* `sbxctl manage` as a child with its stdout on a pipe. */
typedef struct manage_proc {
    pid_t pid;
    int out;
    char seen[8192];
    size_t len;
} manage_proc;

static int manage_start(manage_proc *p)
{
    memset(p, 0, sizeof *p);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    const char *bin = getenv("SBXCTL_BIN");
    p->pid = fork();
    if (p->pid == 0) {
        dup2(fds[1], 1);
        execl(bin, bin, "--config", config_path, "manage", "--json", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    p->out = fds[0];
    return p->pid > 0 ? 0 : -1;
}

static int manage_wait_for(manage_proc *p, const char *needle, long timeout_ms)
{
    long deadline = sbx_test_now_ms() + timeout_ms;
    for (;;) {
        p->seen[p->len] = '\0';
        if (strstr(p->seen, needle) != NULL)
            return 1;
        if (p->len >= sizeof p->seen - 1 || sbx_test_wait_readable(p->out, deadline) != 1)
            return 0;
        ssize_t n = read(p->out, p->seen + p->len, sizeof p->seen - 1 - p->len);
        if (n <= 0)
            return 0;
        p->len += (size_t)n;
    }
}

/* Signal it, read to its end and reap it: its exit status, or -1. */
static int manage_stop(manage_proc *p, int sig)
{
    kill(p->pid, sig);
    int ok = manage_wait_for(p, "{\"event\":\"stopped\"}\n", 20000);
    int status = -1;
    waitpid(p->pid, &status, 0);
    close(p->out);
    return ok && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_manage_adopts_reaps_and_stops_on_sigterm(void)
{
    setup("\"idle_timeout_s\":0.2,\"check_interval_s\":0.05,"
          "\"ownership\":{\"store\":\"sqlite\",\"path\":\"@DIR@/leases.db\",\"renewal_interval_s\":0.05}");
    sbx_test_run run = ctl(20000, "create", "--thread", "t9", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    char id[SBX_DERIVED_ID_SIZE], adopted[80], reaped[80];
    sbx_error err;
    sbx_sandbox_id_derive(NULL, "t9", id, &err);
    snprintf(adopted, sizeof adopted, "{\"event\":\"adopted\",\"sandbox_id\":\"%s\"}\n", id);
    snprintf(reaped, sizeof reaped, "{\"event\":\"reaped\",\"sandbox_id\":\"%s\"}\n", id);
    manage_proc p;
    CU_ASSERT_FATAL(manage_start(&p) == 0);
    CU_ASSERT(manage_wait_for(&p, "{\"event\":\"started\",\"owner\":", 10000));
    CU_ASSERT(manage_wait_for(&p, adopted, 10000));
    CU_ASSERT(manage_wait_for(&p, reaped, 10000));
    CU_ASSERT_EQUAL(manage_stop(&p, SIGTERM), 0);
    CU_ASSERT_EQUAL(running_count(), 0);
}

/* A sandbox of `thread` made by `sbxctl create`, for a manager to adopt. */
static void create_for(const char *thread)
{
    sbx_test_run run = ctl(20000, "create", "--thread", thread, NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
}

/* Start `sbxctl manage`; 1 once it adopted a sandbox within timeout_ms. */
static int manage_adopting(manage_proc *p, long timeout_ms)
{
    CU_ASSERT_FATAL(manage_start(p) == 0);
    return manage_wait_for(p, "\"event\":\"adopted\"", timeout_ms);
}

static void test_manage_with_shutdown_keep_leaves_sandboxes_on_sigint(void)
{
    setup("\"idle_timeout_s\":0,\"check_interval_s\":0.05,\"shutdown\":\"keep\","
          "\"ownership\":{\"store\":\"sqlite\",\"path\":\"@DIR@/leases.db\",\"renewal_interval_s\":0.05}");
    create_for("t8");
    manage_proc p;
    CU_ASSERT(manage_adopting(&p, 10000));
    CU_ASSERT_EQUAL(manage_stop(&p, SIGINT), 0);
    CU_ASSERT_EQUAL(running_count(), 1);
    /* Nothing holds its lease any more: a successor may adopt it. */
    sbx_test_run run = ctl(10000, "leases", "--json", NULL, NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "\"count\":0"));
    sbx_test_run_clear(&run);
}

/* A peer takes the lease of a sandbox `manage` tracks over (an acquire
 * elsewhere, which keeps it): the renewal notices first and forgets the
 * sandbox; SIGTERM then exits 0. */
static void test_manage_exits_0_when_a_peer_took_a_lease_over_renewal_first(void)
{
    setup("\"idle_timeout_s\":0,\"check_interval_s\":0.05,"
          "\"ownership\":{\"store\":\"sqlite\",\"path\":\"@DIR@/leases.db\",\"renewal_interval_s\":0.05}");
    create_for("t6");
    manage_proc p;
    CU_ASSERT(manage_adopting(&p, 10000));
    sbx_test_run run = ctl(20000, "acquire", "--thread", "t6", "--keep-lease", NULL);
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    CU_ASSERT(manage_wait_for(&p, "\"event\":\"lease_lost\"", 10000));
    CU_ASSERT_EQUAL(manage_stop(&p, SIGTERM), 0);
}

/* The same takeover met by the shutdown before any renewal: `manage` is
 * stopped (SIGSTOP) while the peer takes the lease, then SIGTERM and
 * SIGCONT, so that the shutdown's claim finds the peer's lease.  Exit 0:
 * the sandbox is the peer's.  A renewal that still gets there first (its
 * interval is 1 s) makes the run the other order: tried again. */
static void test_manage_exits_0_when_a_peer_took_a_lease_over_shutdown_first(void)
{
    setup("\"idle_timeout_s\":0,\"check_interval_s\":0.1,"
          "\"ownership\":{\"store\":\"sqlite\",\"path\":\"@DIR@/leases.db\","
          "\"renewal_interval_s\":1,\"ttl_multiplier\":2}");
    create_for("t5");
    int shutdown_first = 0;
    for (int attempt = 0; attempt < 5 && !shutdown_first; attempt++) {
        manage_proc p;
        /* Adopted once the peer's lease of the attempt before expired. */
        CU_ASSERT(manage_adopting(&p, 30000));
        kill(p.pid, SIGSTOP);
        sbx_test_run run = ctl(20000, "acquire", "--thread", "t5", "--keep-lease", NULL);
        int taken = run.exit_code == 0;
        sbx_test_run_clear(&run);
        if (taken)
            kill(p.pid, SIGTERM);
        CU_ASSERT_EQUAL(manage_stop(&p, taken ? SIGCONT : SIGKILL), taken ? 0 : -1);
        /* Not taken: stopped inside a transaction, manage held the file. */
        shutdown_first = taken && strstr(p.seen, "lease_lost") == NULL;
        if (!taken)
            fprintf(stderr, "the peer's acquire met a locked store: again\n");
    }
    CU_ASSERT(shutdown_first);
    CU_ASSERT_EQUAL(running_count(), 1);
}

static void test_usage_and_configuration_errors(void)
{
    setup("\"replicas\":2");
    sbx_test_run run = ctl(10000, "acquire", NULL, NULL, NULL, NULL);
    CU_ASSERT_EQUAL(run.exit_code, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "command 'acquire' needs --thread"));
    sbx_test_run_clear(&run);
    run = ctl(10000, "create", "--thread", "t", "--keep-lease", NULL);
    CU_ASSERT_EQUAL(run.exit_code, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "option '--keep-lease' is not valid for command 'create'"));
    sbx_test_run_clear(&run);
    run = ctl(10000, "acquire", "--thread", "t", "--id", "x");
    CU_ASSERT_EQUAL(run.exit_code, 2);
    sbx_test_run_clear(&run);
    /* The memory store's leases live in one process. */
    run = ctl(10000, "leases", NULL, NULL, NULL, NULL);
    CU_ASSERT_EQUAL(run.exit_code, 10);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "memory lease store"));
    sbx_test_run_clear(&run);
    setup("\"replica\":2");
    run = ctl(10000, "manage", NULL, NULL, NULL, NULL);
    CU_ASSERT_EQUAL(run.exit_code, 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "unknown key 'manager.replica'"));
    sbx_test_run_clear(&run);
}

/* Rule 14's bound: the sqlite file held by another process. */
static void test_a_locked_sqlite_store_fails_within_the_bound(void)
{
    setup("\"ownership\":{\"store\":\"sqlite\",\"path\":\"@DIR@/leases.db\"}");
    char db[320];
    snprintf(db, sizeof db, "%s/leases.db", dir);
    /* Made by a first acquire, then locked by another process. */
    sbx_test_run run = ctl(20000, "acquire", "--thread", "t0", NULL, NULL);
    CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    int in[2], out[2];
    CU_ASSERT_FATAL(pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0);
    char bin[512];
    snprintf(bin, sizeof bin, "%s/tests/manager/sqlite_locker", getenv("SBX_TEST_BUILDDIR"));
    pid_t locker = fork();
    if (locker == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        execl(bin, bin, db, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    char said[16] = "";
    CU_ASSERT_FATAL(sbx_test_wait_readable(out[0], sbx_test_now_ms() + 10000) == 1 &&
                    read(out[0], said, sizeof said - 1) > 0 && strncmp(said, "locked", 6) == 0);
    long started = sbx_test_now_ms();
    run = ctl(30000, "acquire", "--thread", "t1", NULL, NULL);
    long took = sbx_test_now_ms() - started;
    CU_ASSERT_EQUAL(run.exit_code, 3);
    CU_ASSERT(took >= 5000 && took < 15000);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "sqlite lease store"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, db));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "locked"));
    fprintf(stderr, "locked sqlite: acquire failed after %ld ms: %s", took, run.err);
    sbx_test_run_clear(&run);
    /* Nothing was handed out, nor left running (t0's stays). */
    CU_ASSERT_EQUAL(running_count(), 1);
    close(in[1]);
    waitpid(locker, NULL, 0);
    close(out[0]);
}

/* Rule 14's bound: a redis-server that stopped answering (SIGSTOP). */
static void test_a_stopped_redis_store_fails_within_the_bound(void)
{
    if (!redis_server_available()) {
        fprintf(stderr, "skipped: redis-server is not installed\n");
        return;
    }
    redis_server server;
    CU_ASSERT_FATAL(redis_server_start(&server) == 0);
    char section[512];
    snprintf(section, sizeof section, "\"ownership\":{\"store\":\"redis\",\"redis_url\":\"%s\"}",
             server.url);
    setup(section);
    kill(server.pid, SIGSTOP);
    for (int i = 0; i < 2; i++) {
        long started = sbx_test_now_ms();
        sbx_test_run run = i == 0 ? ctl(30000, "leases", NULL, NULL, NULL, NULL)
                                  : ctl(30000, "acquire", "--thread", "t1", NULL, NULL);
        long took = sbx_test_now_ms() - started;
        CU_ASSERT_EQUAL(run.exit_code, 3);
        CU_ASSERT(took >= 5000 && took < 20000);
        CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "redis lease store"));
        CU_ASSERT_PTR_NOT_NULL(strstr(run.err, server.socket));
        fprintf(stderr, "stopped redis: %s failed after %ld ms: %s", i == 0 ? "leases" : "acquire",
                took, run.err);
        sbx_test_run_clear(&run);
    }
    CU_ASSERT_EQUAL(running_count(), 0);
    kill(server.pid, SIGCONT);
    redis_server_stop(&server, 0);
}

/* `manage` tracking 3 sandboxes shuts down while redis-server is stopped
 * (SIGSTOP): one 5 s bound for the whole shutdown (it was 5 s per
 * sandbox), exit 3 naming the store; after SIGCONT every thread is
 * acquired at once, no late claim of the dead manager in the way. */
static void test_manage_shutdown_against_a_stopped_redis_has_one_bound(void)
{
    if (!redis_server_available()) {
        fprintf(stderr, "skipped: redis-server is not installed\n");
        return;
    }
    redis_server server;
    CU_ASSERT_FATAL(redis_server_start(&server) == 0);
    char section[600];
    snprintf(section, sizeof section, "\"idle_timeout_s\":0,\"check_interval_s\":0.05,"
             "\"ownership\":{\"store\":\"redis\",\"redis_url\":\"%s\","
             "\"renewal_interval_s\":0.05}", server.url);
    setup(section);
    const char *threads[] = {"t1", "t2", "t3"};
    for (int i = 0; i < 3; i++)
        create_for(threads[i]);
    manage_proc p;
    CU_ASSERT_FATAL(manage_start(&p) == 0);
    for (int i = 0; i < 3; i++) {
        char id[SBX_DERIVED_ID_SIZE], adopted[80];
        sbx_error err;
        sbx_sandbox_id_derive(NULL, threads[i], id, &err);
        snprintf(adopted, sizeof adopted, "{\"event\":\"adopted\",\"sandbox_id\":\"%s\"}", id);
        CU_ASSERT(manage_wait_for(&p, adopted, 20000));
    }
    kill(server.pid, SIGSTOP);
    long started = sbx_test_now_ms();
    CU_ASSERT_EQUAL(manage_stop(&p, SIGTERM), 3);
    long took = sbx_test_now_ms() - started;
    fprintf(stderr, "manage shutdown of 3 sandboxes against a stopped redis: %ld ms\n", took);
    CU_ASSERT(took < 9000);
    kill(server.pid, SIGCONT);
    for (int i = 0; i < 3; i++) {
        sbx_test_run run = ctl(20000, "acquire", "--thread", threads[i], NULL, NULL);
        CU_ASSERT_EQUAL(run.exit_code, 0);
        sbx_test_run_clear(&run);
    }
    CU_ASSERT_EQUAL(running_count(), 3);
    redis_server_stop(&server, 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"acquire hands out the thread's sandbox and leaves it running",
         test_acquire_hands_out_the_threads_sandbox_and_leaves_it_running},
        {"acquire keeps the lease only when asked", test_acquire_keeps_the_lease_only_when_asked},
        {"manage adopts, reaps and stops on SIGTERM", test_manage_adopts_reaps_and_stops_on_sigterm},
        {"manage with shutdown keep leaves sandboxes on SIGINT",
         test_manage_with_shutdown_keep_leaves_sandboxes_on_sigint},
        {"manage exits 0 when a peer took a lease over, renewal first",
         test_manage_exits_0_when_a_peer_took_a_lease_over_renewal_first},
        {"manage exits 0 when a peer took a lease over, shutdown first",
         test_manage_exits_0_when_a_peer_took_a_lease_over_shutdown_first},
        {"usage and configuration errors", test_usage_and_configuration_errors},
        {"a locked sqlite store fails within the bound",
         test_a_locked_sqlite_store_fails_within_the_bound},
        {"a stopped redis store fails within the bound",
         test_a_stopped_redis_store_fails_within_the_bound},
        {"manage shutdown against a stopped redis has one bound",
         test_manage_shutdown_against_a_stopped_redis_has_one_bound},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbxctl acquire, manage, leases", NULL, NULL, tests);
}
