/*
 * The sandbox manager over the in-process "mgrtest" backend with the memory
 * store: identity (rule 1), acquire order (rules 3-5), replica cap (rule 7),
 * release/get/destroy (rules 8-9), the idle reaper (rule 10),
 * reconciliation (rule 11) and shutdown (rule 15).  Time moves only when a
 * test moves the clock.
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tests/manager/mgr_fixture.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"

#define START() CU_ASSERT_FATAL(mf_start() == 0)

static sbx_manager *open_default(void)
{
    sbx_manager_config c = mf_config();
    return mf_open(&c);
}

/* Rule 1: DeerFlow's ids (values computed with Python's hashlib). */
static void test_derived_ids_match_rule_1(void)
{
    char id[SBX_DERIVED_ID_SIZE];
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_sandbox_id_derive(NULL, "t1", id, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(id, "eeb6544e5ffa968d");
    CU_ASSERT_EQUAL(sbx_sandbox_id_derive("default", "t1", id, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(id, "eeb6544e5ffa968d");
    CU_ASSERT_EQUAL(sbx_sandbox_id_derive("alice", "thread-42", id, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(id, "81fe92a7340db695");
    CU_ASSERT_EQUAL(sbx_sandbox_id_derive("alice", NULL, id, &err), SBX_ERR_USAGE);
}

static void test_acquire_reuses_the_active_sandbox(void)
{
    START();
    sbx_manager *m = open_default();
    char a[64], b[64], want[SBX_DERIVED_ID_SIZE];
    CU_ASSERT(mf_acquire(m, "alice", "t1", a));
    int alive_calls = mt_get_stats().is_alive_calls;
    CU_ASSERT(mf_acquire(m, "alice", "t1", b));
    mf_derive("alice", "t1", want);
    CU_ASSERT_STRING_EQUAL(a, want);
    CU_ASSERT_STRING_EQUAL(b, want);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 1);
    CU_ASSERT_EQUAL(mt_get_stats().is_alive_calls, alive_calls + 1);
    CU_ASSERT_EQUAL(mf_counters(m).active, 1);
    sbx_manager_free(m);
    mf_stop();
}

/* An active thread's acquire is served by identity: the same (user,
 * thread), with a missing user meaning "default" (rule 1), reuses it with
 * one is_alive; any other user, thread, or an invalid user is never served
 * that sandbox. */
static void test_active_sandbox_serves_only_its_identity(void)
{
    START();
    sbx_manager *m = open_default();
    char first[64], again[64], other_user[64], other_thread[64];
    CU_ASSERT(mf_acquire(m, NULL, "t1", first));
    int alive_calls = mt_get_stats().is_alive_calls;
    CU_ASSERT(mf_acquire(m, "default", "t1", again));
    CU_ASSERT_STRING_EQUAL(again, first);
    CU_ASSERT_EQUAL(mt_get_stats().is_alive_calls, alive_calls + 1);
    CU_ASSERT(mf_acquire(m, "defaul", "t1", other_user));
    CU_ASSERT(mf_acquire(m, "default", "t", other_thread));
    CU_ASSERT(strcmp(other_user, first) != 0 && strcmp(other_thread, first) != 0 &&
              strcmp(other_user, other_thread) != 0);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 3);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.user_id = "default ";
    req.thread_id = "t1";
    sbx_managed *got = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_acquire(m, &req, &got, &err), SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "user_id"));
    CU_ASSERT_PTR_NULL(got);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 3);
    CU_ASSERT_EQUAL(mf_counters(m).active, 3);
    sbx_manager_free(m);
    mf_stop();
}

static void test_each_user_and_thread_has_its_own_sandbox(void)
{
    START();
    sbx_manager *m = open_default();
    char a[64], b[64], c[64];
    CU_ASSERT(mf_acquire(m, "u1", "t1", a));
    CU_ASSERT(mf_acquire(m, "u2", "t1", b));
    CU_ASSERT(mf_acquire(m, "u1", "t2", c));
    CU_ASSERT(strcmp(a, b) != 0 && strcmp(a, c) != 0 && strcmp(b, c) != 0);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 3);
    CU_ASSERT_EQUAL(mf_counters(m).active, 3);
    sbx_manager_free(m);
    mf_stop();
}

static void test_anonymous_acquires_get_random_ids(void)
{
    START();
    sbx_manager *m = open_default();
    char a[64], b[64];
    CU_ASSERT(mf_acquire(m, NULL, NULL, a));
    CU_ASSERT(mf_acquire(m, NULL, NULL, b));
    CU_ASSERT_STRING_NOT_EQUAL(a, b);
    CU_ASSERT_EQUAL(strlen(a), 16);
    CU_ASSERT_EQUAL(strspn(a, "0123456789abcdef"), 16);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 2);
    sbx_manager_free(m);
    mf_stop();
}

static void test_acquire_refuses_bad_requests(void)
{
    START();
    sbx_manager *m = open_default();
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    sbx_managed *got = NULL;
    sbx_error err;
    req.sandbox_id = "chosen";
    req.thread_id = "t1";
    CU_ASSERT_EQUAL(sbx_manager_acquire(m, &req, &got, &err), SBX_ERR_USAGE);
    req.sandbox_id = NULL;
    req.thread_id = "../etc";
    CU_ASSERT_EQUAL(sbx_manager_acquire(m, &req, &got, &err), SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "thread_id"));
    CU_ASSERT_PTR_NULL(got);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 0);
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 8: get is the hot path: no backend call, no store call. */
static void test_get_makes_no_backend_call(void)
{
    START();
    sbx_manager *m = open_default();
    char id[64];
    CU_ASSERT(mf_acquire(m, "alice", "t1", id));
    mt_stats before = mt_get_stats();
    for (int i = 0; i < 100; i++) {
        sbx_managed *got = sbx_manager_get(m, id);
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        CU_ASSERT_STRING_EQUAL(sbx_managed_sandbox(got)->sandbox_id, id);
        CU_ASSERT_STRING_EQUAL(sbx_managed_sandbox(got)->user_id, "alice");
        sbx_managed_unref(got);
    }
    mt_stats after = mt_get_stats();
    CU_ASSERT_EQUAL(memcmp(&before, &after, sizeof before), 0);
    CU_ASSERT_PTR_NULL(sbx_manager_get(m, "no-such-id"));
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 8: release parks the sandbox warm; the next acquire reclaims it. */
static void test_release_parks_warm_and_acquire_reclaims(void)
{
    START();
    sbx_manager *m = open_default();
    char id[64], again[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "alice", "t1", id));
    int discovers = mt_get_stats().discovers;
    sbx_managed *held = sbx_manager_get(m, id);
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    CU_ASSERT_EQUAL(mf_counters(m).active, 0);
    CU_ASSERT_EQUAL(mf_counters(m).warm, 1);
    CU_ASSERT_PTR_NULL(sbx_manager_get(m, id));
    /* A reference taken before stays readable. */
    CU_ASSERT_STRING_EQUAL(sbx_managed_sandbox(held)->sandbox_id, id);
    sbx_managed_unref(held);
    CU_ASSERT(mt_exists(id));
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT(mf_acquire(m, "alice", "t1", again));
    CU_ASSERT_STRING_EQUAL(again, id);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 1);
    CU_ASSERT_EQUAL(mt_get_stats().discovers, discovers);
    CU_ASSERT_EQUAL(mf_counters(m).active, 1);
    CU_ASSERT_EQUAL(mf_counters(m).warm, 0);
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 4: a check that cannot tell keeps the entry. */
static void test_alive_check_that_cannot_tell_keeps_the_sandbox(void)
{
    START();
    sbx_manager *m = open_default();
    char id[64], again[64];
    CU_ASSERT(mf_acquire(m, "alice", "t1", id));
    mt_set_failing(MT_IS_ALIVE, 1);
    CU_ASSERT(mf_acquire(m, "alice", "t1", again));
    CU_ASSERT_STRING_EQUAL(again, id);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 1);
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 0);
    mt_set_failing(MT_IS_ALIVE, 0);
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 4: a definite "not alive" drops the entry (destroyed under a
 * teardown lease) and the acquire goes on to a new sandbox. */
static void check_dead_sandbox_is_replaced(int warm)
{
    START();
    sbx_manager *m = open_default();
    char id[64], again[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "alice", "t1", id));
    if (warm)
        CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    mt_set_alive(id, 0);
    CU_ASSERT(mf_acquire(m, "alice", "t1", again));
    CU_ASSERT_STRING_EQUAL(again, id);
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 1);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 2);
    CU_ASSERT_EQUAL(mf_counters(m).active, 1);
    CU_ASSERT_EQUAL(mf_counters(m).warm, 0);
    sbx_manager_free(m);
    mf_stop();
}

static void test_dead_active_sandbox_is_replaced(void)
{
    check_dead_sandbox_is_replaced(0);
}

static void test_dead_warm_sandbox_is_replaced(void)
{
    check_dead_sandbox_is_replaced(1);
}

/* Rule 4: a sandbox another process made is discovered, not created. */
static void test_running_sandbox_is_discovered_not_created(void)
{
    START();
    sbx_manager *m = open_default();
    char want[SBX_DERIVED_ID_SIZE], id[64];
    mf_derive("alice", "t1", want);
    mt_add_running(want, "alice", "t1");
    CU_ASSERT(mf_acquire(m, "alice", "t1", id));
    CU_ASSERT_STRING_EQUAL(id, want);
    CU_ASSERT_EQUAL(mt_get_stats().discovers, 1);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 0);
    sbx_manager_free(m);
    mf_stop();
}

static void test_discovered_stopped_sandbox_is_replaced(void)
{
    START();
    sbx_manager *m = open_default();
    char want[SBX_DERIVED_ID_SIZE], id[64];
    mf_derive("alice", "t1", want);
    mt_add_running(want, "alice", "t1");
    mt_set_alive(want, 0);
    CU_ASSERT(mf_acquire(m, "alice", "t1", id));
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 1);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 1);
    sbx_manager_free(m);
    mf_stop();
}

/* A discover that fails for another reason than "none" fails the acquire:
 * creating then could race a sandbox that exists. */
static void test_failed_discover_fails_the_acquire(void)
{
    START();
    sbx_manager *m = open_default();
    char id[64];
    mt_set_failing(MT_DISCOVER, 1);
    CU_ASSERT(!mf_acquire(m, "alice", "t1", id));
    CU_ASSERT_EQUAL(mt_get_stats().creates, 0);
    mt_set_failing(MT_DISCOVER, 0);
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 9: destroy. */
static void test_destroy_stops_and_untracks(void)
{
    START();
    sbx_manager *m = open_default();
    char id[64], again[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "alice", "t1", id));
    CU_ASSERT_EQUAL(sbx_manager_destroy(m, id, &err), SBX_OK);
    CU_ASSERT(!mt_exists(id));
    CU_ASSERT_PTR_NULL(sbx_manager_get(m, id));
    CU_ASSERT_EQUAL(mf_counters(m).active, 0);
    CU_ASSERT_EQUAL(sbx_manager_destroy(m, id, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT(mf_acquire(m, "alice", "t1", again));
    CU_ASSERT_EQUAL(mt_get_stats().creates, 2);
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 10's "leaves only after its destroy succeeded", for destroy too. */
static void test_failed_destroy_keeps_the_sandbox_tracked(void)
{
    START();
    sbx_manager *m = open_default();
    char id[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "alice", "t1", id));
    mt_set_failing(MT_DESTROY, 1);
    CU_ASSERT_EQUAL(sbx_manager_destroy(m, id, &err), SBX_ERR_TRANSPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "injected"));
    sbx_managed *got = sbx_manager_get(m, id);
    CU_ASSERT_PTR_NOT_NULL(got);
    sbx_managed_unref(got);
    mt_set_failing(MT_DESTROY, 0);
    CU_ASSERT_EQUAL(sbx_manager_destroy(m, id, &err), SBX_OK);
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 7: the oldest warm entry makes room. */
static void test_replica_cap_evicts_the_oldest_warm_sandbox(void)
{
    START();
    sbx_manager_config c = mf_config();
    c.replicas = 2;
    sbx_manager *m = mf_open(&c);
    char t1[64], t2[64], t3[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "u", "t1", t1));
    CU_ASSERT(mf_acquire(m, "u", "t2", t2));
    CU_ASSERT_EQUAL(sbx_manager_release(m, t1, &err), SBX_OK);
    mf_advance(10);
    CU_ASSERT_EQUAL(sbx_manager_release(m, t2, &err), SBX_OK);
    CU_ASSERT(mf_acquire(m, "u", "t3", t3));
    CU_ASSERT(!mt_exists(t1));
    CU_ASSERT(mt_exists(t2));
    CU_ASSERT_EQUAL(mf_counters(m).evicted, 1);
    CU_ASSERT_EQUAL(mf_counters(m).warm, 1);
    CU_ASSERT_EQUAL(mf_counters(m).active, 1);
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 7: active sandboxes are never evicted; the cap is soft. */
static void test_replica_cap_is_soft_when_all_are_active(void)
{
    START();
    sbx_manager_config c = mf_config();
    c.replicas = 1;
    sbx_manager *m = mf_open(&c);
    char t1[64], t2[64];
    CU_ASSERT(mf_acquire(m, "u", "t1", t1));
    CU_ASSERT(mf_acquire(m, "u", "t2", t2));
    CU_ASSERT(mt_exists(t1) && mt_exists(t2));
    CU_ASSERT_EQUAL(mf_counters(m).evicted, 0);
    CU_ASSERT(sbx_test_log_contains(mf_logs, "beyond the soft cap"));
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 10: warm entries are destroyed once idle past idle_timeout. */
static void test_idle_warm_sandbox_is_reaped(void)
{
    START();
    sbx_manager_config c = mf_config();
    c.idle_timeout_ms = 1000;
    sbx_manager *m = mf_open(&c);
    char id[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "u", "t1", id));
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    mf_advance(1000);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT(mt_exists(id));
    mf_advance(1);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT(!mt_exists(id));
    CU_ASSERT_EQUAL(mf_counters(m).reaped, 1);
    CU_ASSERT_EQUAL(mf_counters(m).warm, 0);
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 10: an active sandbox idle past the timeout is reaped; get() counts
 * as use. */
static void test_idle_active_sandbox_is_reaped_and_get_keeps_it(void)
{
    START();
    sbx_manager_config c = mf_config();
    c.idle_timeout_ms = 1000;
    sbx_manager *m = mf_open(&c);
    char used[64], idle[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "u", "used", used));
    CU_ASSERT(mf_acquire(m, "u", "idle", idle));
    mf_advance(600);
    sbx_managed_unref(sbx_manager_get(m, used));
    mf_advance(600);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT(mt_exists(used));
    CU_ASSERT(!mt_exists(idle));
    CU_ASSERT_EQUAL(mf_counters(m).reaped, 1);
    CU_ASSERT_EQUAL(mf_counters(m).active, 1);
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 10: the warm entry stays in the pool while its destroy fails. */
static void test_warm_entry_stays_until_its_destroy_succeeds(void)
{
    START();
    sbx_manager_config c = mf_config();
    c.idle_timeout_ms = 1000;
    sbx_manager *m = mf_open(&c);
    char id[64], again[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "u", "t1", id));
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    mf_advance(2000);
    mt_set_failing(MT_DESTROY, 1);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(mf_counters(m).warm, 1);
    CU_ASSERT_EQUAL(mf_counters(m).reaped, 0);
    mt_set_failing(MT_DESTROY, 0);
    CU_ASSERT(mf_acquire(m, "u", "t1", again));
    CU_ASSERT_STRING_EQUAL(again, id);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 1);
    sbx_manager_free(m);
    mf_stop();
}

static void test_idle_timeout_zero_never_reaps(void)
{
    START();
    sbx_manager_config c = mf_config();
    c.idle_timeout_ms = 0;
    sbx_manager *m = mf_open(&c);
    char id[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "u", "t1", id));
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    mf_advance(INT64_C(1) << 40);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT(mt_exists(id));
    CU_ASSERT_EQUAL(mf_counters(m).warm, 1);
    sbx_manager_free(m);
    mf_stop();
}

/* The reaper thread runs when its interval has elapsed on the clock. */
static void test_reaper_thread_runs_when_the_clock_says_so(void)
{
    START();
    sbx_manager_config c = mf_config();
    c.idle_timeout_ms = 500;
    c.check_interval_ms = 1000;
    sbx_manager *m = mf_open(&c);
    char id[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "u", "t1", id));
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    mf_advance(600);
    sbx_manager_wake(m);
    /* The pass is not due yet: nothing happens while the clock stands. */
    CU_ASSERT(!sbx_test_log_wait(mf_logs, "reaped idle", 100));
    CU_ASSERT(mt_exists(id));
    mf_advance(500);
    sbx_manager_wake(m);
    CU_ASSERT(sbx_test_log_wait(mf_logs, "reaped idle", 5000));
    CU_ASSERT(!mt_exists(id));
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 11: orphans found running at open are adopted warm, then reaped by
 * the idle reaper when nobody acquires them. */
static void test_orphans_are_adopted_at_open_and_reaped_when_idle(void)
{
    START();
    mt_add_running("orphan-1", "bob", "old");
    sbx_manager_config c = mf_config();
    c.idle_timeout_ms = 1000;
    sbx_manager *m = mf_open(&c);
    CU_ASSERT_EQUAL(mf_counters(m).adopted, 1);
    CU_ASSERT_EQUAL(mf_counters(m).warm, 1);
    CU_ASSERT(sbx_test_log_contains(mf_logs, "adopted sandbox orphan-1"));
    sbx_error err;
    mf_advance(1001);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT(!mt_exists("orphan-1"));
    CU_ASSERT_EQUAL(mf_counters(m).reaped, 1);
    sbx_manager_free(m);
    mf_stop();
}

/* Rules 2 and 11: an adopted sandbox has no known identity until its
 * thread acquires it, which reclaims it without a create. */
static void test_adopted_sandbox_is_reclaimed_by_its_thread(void)
{
    START();
    char want[SBX_DERIVED_ID_SIZE], id[64];
    mf_derive("alice", "t1", want);
    mt_add_running(want, "alice", "t1");
    sbx_manager *m = open_default();
    CU_ASSERT_EQUAL(mf_counters(m).adopted, 1);
    /* Adoption checked that it still exists; the acquire needs no look. */
    CU_ASSERT_EQUAL(mt_get_stats().discovers, 1);
    CU_ASSERT(mf_acquire(m, "alice", "t1", id));
    CU_ASSERT_STRING_EQUAL(id, want);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 0);
    CU_ASSERT_EQUAL(mt_get_stats().discovers, 1);
    CU_ASSERT_EQUAL(mf_counters(m).active, 1);
    CU_ASSERT_EQUAL(mf_counters(m).warm, 0);
    sbx_manager_free(m);
    mf_stop();
}

typedef struct acquire_job {
    sbx_manager *m;
    const char *thread;            /* of user "u" */
    sbx_status st;
    char id[64];                   /* SBX_OK: what it acquired */
} acquire_job;

static void *run_acquire(void *arg)
{
    acquire_job *job = arg;
    job->st = mf_acquire(job->m, "u", job->thread, job->id) ? SBX_OK : SBX_ERR_INTERNAL;
    return NULL;
}

static void *run_reap_now(void *arg)
{
    sbx_error err;
    sbx_manager_reap_now(arg, &err);
    return NULL;
}

/* Rule 11: a sandbox listed running but destroyed before reconciliation
 * claims it (by a teardown that finished after the list) is not adopted:
 * no warm entry, lease or reap for something that is gone. */
static void test_reconciliation_adopts_nothing_gone_since_the_list(void)
{
    START();
    sbx_manager *m = open_default();
    mt_add_running("gone-1", "alice", "t9");
    mt_hold(MT_LIST, 1);
    pthread_t reaper;
    CU_ASSERT_FATAL(pthread_create(&reaper, NULL, run_reap_now, m) == 0);
    CU_ASSERT(mt_wait_held(MT_LIST, 60000));
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(mf_backend, "gone-1", &err), SBX_OK);
    mt_hold(MT_LIST, 0);
    pthread_join(reaper, NULL);
    sbx_manager_counters n = mf_counters(m);
    CU_ASSERT_EQUAL(n.adopted, 0);
    CU_ASSERT_EQUAL(n.warm, 0);
    CU_ASSERT_PTR_NULL(sbx_manager_get(m, "gone-1"));
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 11: a sandbox that an acquire of this process has discovered and is
 * about to register is not an orphan: reconciliation leaves it to the
 * acquire (adopted, it would be the idle reaper's to take meanwhile). */
static void test_reconciliation_leaves_a_sandbox_being_acquired(void)
{
    START();
    sbx_manager *m = open_default();
    char want[SBX_DERIVED_ID_SIZE];
    mf_derive("u", "found", want);
    mt_add_running(want, "u", "found");
    mt_hold(MT_IS_ALIVE, 1);
    acquire_job job = {m, "found", SBX_ERR_INTERNAL, ""};
    pthread_t acquirer;
    CU_ASSERT_FATAL(pthread_create(&acquirer, NULL, run_acquire, &job) == 0);
    CU_ASSERT(mt_wait_held(MT_IS_ALIVE, 60000));
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(mf_counters(m).adopted, 0);
    mt_hold(MT_IS_ALIVE, 0);
    pthread_join(acquirer, NULL);
    CU_ASSERT_EQUAL(job.st, SBX_OK);
    CU_ASSERT_STRING_EQUAL(job.id, want);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 0);
    sbx_manager_counters n = mf_counters(m);
    CU_ASSERT(n.active == 1 && n.warm == 0 && n.adopted == 0);
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 11: a failed list_running skips the round; it never means
 * "nothing runs". */
static void test_failed_listing_skips_reconciliation(void)
{
    START();
    mt_add_running("orphan-1", NULL, NULL);
    mt_set_failing(MT_LIST, 1);
    sbx_manager_config c = mf_config();
    c.idle_timeout_ms = 1000;
    sbx_manager *m = mf_open(&c);
    sbx_error err;
    CU_ASSERT_EQUAL(mf_counters(m).adopted, 0);
    CU_ASSERT(sbx_test_log_contains(mf_logs, "reconciliation skipped"));
    mf_advance(5000);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT(mt_exists("orphan-1"));
    mt_set_failing(MT_LIST, 0);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(mf_counters(m).adopted, 1);
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 15: shutdown destroys active and warm sandboxes, once. */
static void test_shutdown_destroys_everything_once(void)
{
    START();
    sbx_manager *m = open_default();
    char a[64], b[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "u", "t1", a));
    CU_ASSERT(mf_acquire(m, "u", "t2", b));
    CU_ASSERT_EQUAL(sbx_manager_release(m, b, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_manager_shutdown(m, &err), SBX_OK);
    CU_ASSERT(!mt_exists(a) && !mt_exists(b));
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 2);
    CU_ASSERT_EQUAL(sbx_manager_shutdown(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 2);
    char c[64];
    CU_ASSERT(!mf_acquire(m, "u", "t3", c));
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_ERR_USAGE);
    sbx_manager_free(m);
    mf_stop();
}

/* Rule 15: keep mode leaves the sandboxes running for a successor, which
 * adopts them. */
static void test_shutdown_keep_hands_sandboxes_to_a_successor(void)
{
    START();
    sbx_manager_config c = mf_config();
    c.shutdown = SBX_MANAGER_SHUTDOWN_KEEP;
    sbx_manager *m = mf_open(&c);
    char a[64], b[64], again[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "u", "t1", a));
    CU_ASSERT(mf_acquire(m, "u", "t2", b));
    CU_ASSERT_EQUAL(sbx_manager_release(m, b, &err), SBX_OK);
    sbx_manager_free(m);
    CU_ASSERT(mt_exists(a) && mt_exists(b));
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 0);
    sbx_manager *next = open_default();
    CU_ASSERT_EQUAL(mf_counters(next).adopted, 2);
    CU_ASSERT(mf_acquire(next, "u", "t1", again));
    CU_ASSERT_STRING_EQUAL(again, a);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 2);
    sbx_manager_free(next);
    mf_stop();
}

/* An acquire of the active thread "busy", held in its is_alive while
 * `meddle` changes the sandbox; returns the acquire's outcome in *job. */
static void acquire_while(sbx_manager *m, void (*meddle)(sbx_manager *m, const char *id),
                          const char *id, acquire_job *job)
{
    *job = (acquire_job){m, "busy", SBX_ERR_INTERNAL, ""};
    mt_hold(MT_IS_ALIVE, 1);
    pthread_t acquirer;
    CU_ASSERT_FATAL(pthread_create(&acquirer, NULL, run_acquire, job) == 0);
    CU_ASSERT(mt_wait_held(MT_IS_ALIVE, 60000));
    meddle(m, id);
    mt_hold(MT_IS_ALIVE, 0);
    pthread_join(acquirer, NULL);
}

static void release_it(sbx_manager *m, const char *id)
{
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
}

static void destroy_it(sbx_manager *m, const char *id)
{
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_destroy(m, id, &err), SBX_OK);
    CU_ASSERT(!mt_exists(id));
}

/* A release during the is_alive of an active thread's acquire: the acquire
 * reclaims the sandbox from the warm pool (one more is_alive), it does not
 * hand out the warm entry as if it were still active. */
static void test_acquire_racing_a_release_reclaims_the_sandbox(void)
{
    START();
    sbx_manager *m = open_default();
    char id[64];
    CU_ASSERT(mf_acquire(m, "u", "busy", id));
    int alive_calls = mt_get_stats().is_alive_calls;
    acquire_job job;
    acquire_while(m, release_it, id, &job);
    CU_ASSERT_EQUAL(job.st, SBX_OK);
    CU_ASSERT_STRING_EQUAL(job.id, id);
    CU_ASSERT_EQUAL(mt_get_stats().is_alive_calls, alive_calls + 2);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 1);
    sbx_manager_counters n = mf_counters(m);
    CU_ASSERT(n.active == 1 && n.warm == 0);
    sbx_manager_free(m);
    mf_stop();
}

/* A destroy during the is_alive of an active thread's acquire: the acquire
 * never hands out the destroyed sandbox; it makes the thread a new one. */
static void test_acquire_racing_a_destroy_makes_a_new_sandbox(void)
{
    START();
    sbx_manager *m = open_default();
    char id[64];
    CU_ASSERT(mf_acquire(m, "u", "busy", id));
    acquire_job job;
    acquire_while(m, destroy_it, id, &job);
    CU_ASSERT_EQUAL(job.st, SBX_OK);
    CU_ASSERT_STRING_EQUAL(job.id, id);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 2);
    CU_ASSERT(mt_exists(id));
    sbx_managed *got = sbx_manager_get(m, id);
    CU_ASSERT_PTR_NOT_NULL(got);
    sbx_managed_unref(got);
    CU_ASSERT_EQUAL(mf_counters(m).active, 1);
    sbx_manager_free(m);
    CU_ASSERT_EQUAL(mt_count(), 0);
    mf_stop();
}

static void *run_shutdown(void *arg)
{
    sbx_error err;
    sbx_manager_shutdown(arg, &err);
    return NULL;
}

/* Rule 15: a shutdown that starts while an acquire is creating waits for
 * it and then tears that sandbox down too: nothing is left behind. */
static void test_shutdown_waits_for_an_acquire_in_progress(void)
{
    START();
    sbx_manager *m = open_default();
    /* An active sandbox to probe with: re-acquiring it creates nothing. */
    char probe[64];
    CU_ASSERT(mf_acquire(m, "u", "probe", probe));
    mt_hold(MT_CREATE, 1);
    acquire_job job = {m, "late", SBX_ERR_INTERNAL, ""};
    pthread_t acquirer, stopper;
    CU_ASSERT_FATAL(pthread_create(&acquirer, NULL, run_acquire, &job) == 0);
    CU_ASSERT(mt_wait_held(MT_CREATE, 60000));
    CU_ASSERT_FATAL(pthread_create(&stopper, NULL, run_shutdown, m) == 0);
    /* Later acquires are refused as soon as shutdown has begun. */
    long deadline = sbx_test_now_ms() + 60000;
    int refused = 0;
    while (!refused && sbx_test_now_ms() < deadline) {
        sbx_create_request req = SBX_CREATE_REQUEST_INIT;
        req.user_id = "u";
        req.thread_id = "probe";
        sbx_managed *got = NULL;
        sbx_error err;
        refused = sbx_manager_acquire(m, &req, &got, &err) == SBX_ERR_USAGE;
        sbx_managed_unref(got);
    }
    CU_ASSERT(refused);
    mt_hold(MT_CREATE, 0);
    pthread_join(acquirer, NULL);
    pthread_join(stopper, NULL);
    CU_ASSERT_EQUAL(job.st, SBX_OK);
    CU_ASSERT_EQUAL(mt_count(), 0);
    sbx_manager_free(m);
    mf_stop();
}

static void test_open_checks_the_configuration(void)
{
    START();
    sbx_manager_config c = mf_config();
    sbx_manager *m = NULL;
    sbx_error err;
    c.replicas = 0;
    CU_ASSERT_EQUAL(sbx_manager_open(mf_backend, &c, &m, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "replicas"));
    c = mf_config();
    c.ttl_multiplier = 1;
    CU_ASSERT_EQUAL(sbx_manager_open(mf_backend, &c, &m, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "ttl_multiplier"));
    c = mf_config();
    c.check_interval_ms = 0;
    CU_ASSERT_EQUAL(sbx_manager_open(mf_backend, &c, &m, &err), SBX_ERR_CONFIG);
    c = mf_config();
    c.idle_timeout_ms = -1;
    CU_ASSERT_EQUAL(sbx_manager_open(mf_backend, &c, &m, &err), SBX_ERR_CONFIG);
    c = mf_config();
    c.renewal_interval_ms = 0;
    CU_ASSERT_EQUAL(sbx_manager_open(mf_backend, &c, &m, &err), SBX_ERR_CONFIG);
    c = mf_config();
    c.ready_path = "v1";
    CU_ASSERT_EQUAL(sbx_manager_open(mf_backend, &c, &m, &err), SBX_ERR_CONFIG);
    c = mf_config();
    c.redis_url = "http://x";
    c.store = SBX_MANAGER_STORE_REDIS;
    CU_ASSERT_EQUAL(sbx_manager_open(mf_backend, &c, &m, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NULL(m);
    /* An owner id is what a store accepts back (rule 13). */
    char long_owner[300];
    memset(long_owner, 'o', sizeof long_owner - 1);
    long_owner[sizeof long_owner - 1] = '\0';
    const char *bad_owners[] = {"", "a b", "a\nb", long_owner};
    for (size_t i = 0; i < sizeof bad_owners / sizeof bad_owners[0]; i++) {
        c = mf_config();
        c.owner_id = bad_owners[i];
        CU_ASSERT_EQUAL(sbx_manager_open(mf_backend, &c, &m, &err), SBX_ERR_CONFIG);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "owner_id"));
    }
    /* An older, smaller configuration gets the defaults for the rest. */
    c = mf_config();
    c.struct_size = offsetof(sbx_manager_config, ready_path);
    CU_ASSERT_EQUAL(sbx_manager_open(mf_backend, &c, &m, &err), SBX_OK);
    CU_ASSERT_PTR_NOT_NULL(strchr(sbx_manager_owner_id(m), ':'));
    sbx_manager_free(m);
    mf_stop();
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"derived ids match rule 1", test_derived_ids_match_rule_1},
        {"acquire reuses the active sandbox", test_acquire_reuses_the_active_sandbox},
        {"an active sandbox serves only its identity",
         test_active_sandbox_serves_only_its_identity},
        {"an acquire racing a release reclaims the sandbox",
         test_acquire_racing_a_release_reclaims_the_sandbox},
        {"an acquire racing a destroy makes a new sandbox",
         test_acquire_racing_a_destroy_makes_a_new_sandbox},
        {"each user and thread has its own sandbox", test_each_user_and_thread_has_its_own_sandbox},
        {"anonymous acquires get random ids", test_anonymous_acquires_get_random_ids},
        {"acquire refuses bad requests", test_acquire_refuses_bad_requests},
        {"get makes no backend call", test_get_makes_no_backend_call},
        {"release parks warm and acquire reclaims", test_release_parks_warm_and_acquire_reclaims},
        {"an alive check that cannot tell keeps the sandbox",
         test_alive_check_that_cannot_tell_keeps_the_sandbox},
        {"a dead active sandbox is replaced", test_dead_active_sandbox_is_replaced},
        {"a dead warm sandbox is replaced", test_dead_warm_sandbox_is_replaced},
        {"a running sandbox is discovered, not created",
         test_running_sandbox_is_discovered_not_created},
        {"a discovered stopped sandbox is replaced", test_discovered_stopped_sandbox_is_replaced},
        {"a failed discover fails the acquire", test_failed_discover_fails_the_acquire},
        {"destroy stops and untracks", test_destroy_stops_and_untracks},
        {"a failed destroy keeps the sandbox tracked", test_failed_destroy_keeps_the_sandbox_tracked},
        {"the replica cap evicts the oldest warm sandbox",
         test_replica_cap_evicts_the_oldest_warm_sandbox},
        {"the replica cap is soft when all are active", test_replica_cap_is_soft_when_all_are_active},
        {"an idle warm sandbox is reaped", test_idle_warm_sandbox_is_reaped},
        {"an idle active sandbox is reaped, get keeps it",
         test_idle_active_sandbox_is_reaped_and_get_keeps_it},
        {"a warm entry stays until its destroy succeeds",
         test_warm_entry_stays_until_its_destroy_succeeds},
        {"idle_timeout 0 never reaps", test_idle_timeout_zero_never_reaps},
        {"the reaper thread runs when the clock says so",
         test_reaper_thread_runs_when_the_clock_says_so},
        {"orphans are adopted at open and reaped when idle",
         test_orphans_are_adopted_at_open_and_reaped_when_idle},
        {"an adopted sandbox is reclaimed by its thread",
         test_adopted_sandbox_is_reclaimed_by_its_thread},
        {"reconciliation adopts nothing gone since the list",
         test_reconciliation_adopts_nothing_gone_since_the_list},
        {"reconciliation leaves a sandbox being acquired",
         test_reconciliation_leaves_a_sandbox_being_acquired},
        {"a failed listing skips reconciliation", test_failed_listing_skips_reconciliation},
        {"shutdown destroys everything once", test_shutdown_destroys_everything_once},
        {"shutdown keep hands sandboxes to a successor",
         test_shutdown_keep_hands_sandboxes_to_a_successor},
        {"shutdown waits for an acquire in progress",
         test_shutdown_waits_for_an_acquire_in_progress},
        {"open checks the configuration", test_open_checks_the_configuration},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("manager core (memory store)", NULL, NULL, tests);
}
