/*
 * The manager's use of a shared lease store (rules 5, 9, 11, 12, 13): a
 * manager on a real sqlite file beside a peer (another owner on the same
 * file, as another process would be), and a manager whose store cannot
 * answer.  The backend is the in-process "mgrtest".
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <time.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host-api/src/manager/lease_store.h"
#include "tests/manager/mgr_fixture.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"

static char db_path[512];
static mgr_lease_store *peer;

static void begin(void)
{
    CU_ASSERT_FATAL(mf_start() == 0);
    const char *state = getenv("XDG_STATE_HOME");
    snprintf(db_path, sizeof db_path, "%s/manager-leases-%d.db",
             state != NULL && state[0] == '/' ? state : "/tmp", (int)getpid());
    unlink(db_path);
    sbx_error err;
    CU_ASSERT_FATAL(mgr_lease_store_sqlite_open(db_path, "peer:1", 60000, &peer, &err) == SBX_OK);
}

static void end(void)
{
    mgr_lease_store_close(peer);
    peer = NULL;
    unlink(db_path);
    mf_stop();
}

static sbx_manager *open_on_sqlite(int64_t renewal_ms)
{
    sbx_manager_config c = mf_config();
    c.store = SBX_MANAGER_STORE_SQLITE;
    c.store_path = db_path;
    c.renewal_interval_ms = renewal_ms;
    return mf_open(&c);
}

static const char *owner_of(const char *id)
{
    static char buf[200];
    char *o = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(peer->ops->owner(peer, id, &o, NULL, &err), SBX_OK);
    snprintf(buf, sizeof buf, "%s", o != NULL ? o : "");
    free(o);
    return buf;
}

/* Rule 5: the lease is published before the sandbox is handed out. */
static void test_acquire_publishes_the_lease(void)
{
    begin();
    sbx_manager *m = open_on_sqlite(3600000);
    char id[64];
    CU_ASSERT(mf_acquire(m, "u", "t1", id));
    CU_ASSERT_STRING_EQUAL(owner_of(id), sbx_manager_owner_id(m));
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_release(m, id, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(owner_of(id), sbx_manager_owner_id(m));
    CU_ASSERT_EQUAL(sbx_manager_destroy(m, id, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(owner_of(id), "");
    sbx_manager_free(m);
    end();
}

/* Rule 12 LOST: a peer took the thread over; this manager forgets the
 * sandbox without destroying it. */
static void test_lost_lease_is_forgotten_not_destroyed(void)
{
    begin();
    sbx_manager *m = open_on_sqlite(3600000);
    char id[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "u", "t1", id));
    int taken = 0;
    CU_ASSERT_EQUAL(peer->ops->take(peer, id, &taken, &err), SBX_OK);
    CU_ASSERT_EQUAL(taken, 1);
    CU_ASSERT_EQUAL(sbx_manager_renew_now(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(mf_counters(m).lease_losses, 1);
    CU_ASSERT_EQUAL(mf_counters(m).active, 0);
    CU_ASSERT_PTR_NULL(sbx_manager_get(m, id));
    CU_ASSERT(mt_exists(id));
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 0);
    CU_ASSERT_STRING_EQUAL(owner_of(id), "peer:1");
    sbx_manager_free(m);
    /* Shutdown does not destroy what it no longer tracks. */
    CU_ASSERT(mt_exists(id));
    end();
}

/* Rule 12 LAPSED: a store that lost its data (a flush) is re-established,
 * nothing is forgotten. */
static void test_lapsed_lease_is_reestablished(void)
{
    begin();
    sbx_manager *m = open_on_sqlite(3600000);
    char id[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "u", "t1", id));
    sqlite3 *db;
    CU_ASSERT_FATAL(sqlite3_open(db_path, &db) == SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_exec(db, "DELETE FROM sbx_leases", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    CU_ASSERT_STRING_EQUAL(owner_of(id), "");
    CU_ASSERT_EQUAL(sbx_manager_renew_now(m, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(owner_of(id), sbx_manager_owner_id(m));
    CU_ASSERT_EQUAL(mf_counters(m).lease_losses, 0);
    sbx_managed *got = sbx_manager_get(m, id);
    CU_ASSERT_PTR_NOT_NULL(got);
    sbx_managed_unref(got);
    sbx_manager_free(m);
    end();
}

/* Rule 5: a take refused because a peer tears the sandbox down means "do
 * not use it": the acquire fails, naming the teardown. */
static void test_acquire_refuses_a_sandbox_a_peer_is_destroying(void)
{
    begin();
    sbx_manager *m = open_on_sqlite(3600000);
    char want[SBX_DERIVED_ID_SIZE], id[64];
    mf_derive("u", "t1", want);
    mt_add_running(want, "u", "t1");
    int claimed = 0;
    sbx_error err;
    CU_ASSERT_EQUAL(peer->ops->claim(peer, want, 1, &claimed, &err), SBX_OK);
    CU_ASSERT_EQUAL(claimed, 1);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.user_id = "u";
    req.thread_id = "t1";
    sbx_managed *got = NULL;
    CU_ASSERT_EQUAL(sbx_manager_acquire(m, &req, &got, &err), SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "being destroyed by another instance"));
    CU_ASSERT_PTR_NULL(got);
    CU_ASSERT_EQUAL(mf_counters(m).active, 0);
    /* Once the peer's teardown is over, the thread gets a sandbox again. */
    CU_ASSERT_EQUAL(peer->ops->release(peer, want, &err), SBX_OK);
    CU_ASSERT(mf_acquire(m, "u", "t1", id));
    sbx_manager_free(m);
    end();
}

/* Rule 9: a sandbox a live peer is responsible for is not destroyed. */
static void test_destroy_is_refused_while_a_peer_holds_the_lease(void)
{
    begin();
    sbx_manager *m = open_on_sqlite(3600000);
    char id[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "u", "t1", id));
    int taken = 0;
    CU_ASSERT_EQUAL(peer->ops->take(peer, id, &taken, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_manager_destroy(m, id, &err), SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "another instance holds its lease"));
    CU_ASSERT(mt_exists(id));
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 0);
    sbx_manager_free(m);
    end();
}

/* Rule 11: with peers visible, an unowned sandbox is adopted only after it
 * stayed unowned for one full TTL; an owned one never. */
static void test_reconciliation_waits_one_ttl_before_adopting(void)
{
    begin();
    mt_add_running("orphan-1", NULL, NULL);
    mt_add_running("peers-1", NULL, NULL);
    int claimed = 0;
    sbx_error err;
    CU_ASSERT_EQUAL(peer->ops->claim(peer, "peers-1", 0, &claimed, &err), SBX_OK);
    sbx_manager *m = open_on_sqlite(1000); /* TTL 4000 ms on the test clock */
    CU_ASSERT_EQUAL(mf_counters(m).adopted, 0);
    mf_advance(3999);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(mf_counters(m).adopted, 0);
    mf_advance(1);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(mf_counters(m).adopted, 1);
    CU_ASSERT_STRING_EQUAL(owner_of("orphan-1"), sbx_manager_owner_id(m));
    CU_ASSERT_STRING_EQUAL(owner_of("peers-1"), "peer:1");
    mf_advance(100000);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT(mt_exists("peers-1"));
    sbx_manager_free(m);
    CU_ASSERT(mt_exists("peers-1"));
    CU_ASSERT(!mt_exists("orphan-1"));
    end();
}

/* Rule 11: a lease that reappears restarts the grace (a live owner
 * republished after a store lost its keys). */
static void test_a_republished_lease_restarts_the_grace(void)
{
    begin();
    mt_add_running("s1", NULL, NULL);
    sbx_manager *m = open_on_sqlite(1000);
    sbx_error err;
    int claimed = 0;
    mf_advance(3000);
    CU_ASSERT_EQUAL(peer->ops->claim(peer, "s1", 0, &claimed, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(peer->ops->release(peer, "s1", &err), SBX_OK);
    /* Without the restart it would be adoptable now (6000 ms unowned). */
    mf_advance(3000);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(mf_counters(m).adopted, 0);
    mf_advance(3999);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(mf_counters(m).adopted, 0);
    mf_advance(1);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(mf_counters(m).adopted, 1);
    sbx_manager_free(m);
    end();
}

/* Rules 5, 11 and 13: a store that cannot answer fails closed everywhere:
 * nothing is handed out unpublished (the new sandbox is destroyed, not
 * leaked), nothing is adopted, nothing is destroyed. */
static void test_a_store_that_cannot_answer_fails_closed(void)
{
    begin();
    mt_add_running("orphan-1", NULL, NULL);
    sbx_manager_config c = mf_config();
    c.store = SBX_MANAGER_STORE_REDIS;
    c.redis_url = "unix:///nonexistent-dir/redis.sock";
    c.idle_timeout_ms = 1000;
    sbx_manager *m = mf_open(&c);
    CU_ASSERT_EQUAL(mf_counters(m).adopted, 0);
    CU_ASSERT(sbx_test_log_contains(mf_logs, "cannot be read (deferred)"));
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.thread_id = "t1";
    sbx_managed *got = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_acquire(m, &req, &got, &err), SBX_ERR_TRANSPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "lease cannot be published"));
    CU_ASSERT_PTR_NULL(got);
    CU_ASSERT_EQUAL(mt_get_stats().creates, 1);
    CU_ASSERT_EQUAL(mt_count(), 1); /* the orphan only: the new one was destroyed */
    CU_ASSERT_EQUAL(mf_counters(m).active, 0);
    mf_advance(5000);
    CU_ASSERT_EQUAL(sbx_manager_reap_now(m, &err), SBX_OK);
    CU_ASSERT(mt_exists("orphan-1"));
    sbx_manager_free(m);
    CU_ASSERT(mt_exists("orphan-1"));
    end();
}

typedef struct destroy_job {
    sbx_manager *m;
    const char *id;
    sbx_status st;
} destroy_job;

static void *run_destroy(void *arg)
{
    destroy_job *job = arg;
    sbx_error err;
    job->st = sbx_manager_destroy(job->m, job->id, &err);
    return NULL;
}

/* Rule 9: the teardown lease is renewed while the backend's destroy runs,
 * so a destroy that outlives the TTL still keeps takes out; it is released
 * after the destroy. */
static void test_teardown_lease_outlives_its_ttl_while_destroy_runs(void)
{
    begin();
    sbx_manager *m = open_on_sqlite(30); /* TTL 120 ms of real time in the file */
    char id[64];
    sbx_error err;
    CU_ASSERT(mf_acquire(m, "u", "t1", id));
    mt_hold(MT_DESTROY, 1);
    destroy_job job = {m, id, SBX_ERR_INTERNAL};
    pthread_t t;
    CU_ASSERT_FATAL(pthread_create(&t, NULL, run_destroy, &job) == 0);
    CU_ASSERT(mt_wait_held(MT_DESTROY, 60000));
    long until = sbx_test_now_ms() + 400;
    int refused_throughout = 1;
    while (sbx_test_now_ms() < until) {
        int taken = 1;
        CU_ASSERT_EQUAL(peer->ops->take(peer, id, &taken, &err), SBX_OK);
        refused_throughout &= taken == 0;
        struct timespec pause = {0, 20 * 1000000};
        nanosleep(&pause, NULL); /* paces the probes over three TTLs */
    }
    CU_ASSERT(refused_throughout);
    CU_ASSERT_STRING_EQUAL(owner_of(id), sbx_manager_owner_id(m));
    mt_hold(MT_DESTROY, 0);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(job.st, SBX_OK);
    CU_ASSERT_STRING_EQUAL(owner_of(id), "");
    int taken = 0;
    CU_ASSERT_EQUAL(peer->ops->take(peer, id, &taken, &err), SBX_OK);
    CU_ASSERT_EQUAL(taken, 1);
    sbx_manager_free(m);
    end();
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"acquire publishes the lease", test_acquire_publishes_the_lease},
        {"a lost lease is forgotten, not destroyed", test_lost_lease_is_forgotten_not_destroyed},
        {"a lapsed lease is re-established", test_lapsed_lease_is_reestablished},
        {"acquire refuses a sandbox a peer is destroying",
         test_acquire_refuses_a_sandbox_a_peer_is_destroying},
        {"destroy is refused while a peer holds the lease",
         test_destroy_is_refused_while_a_peer_holds_the_lease},
        {"reconciliation waits one TTL before adopting",
         test_reconciliation_waits_one_ttl_before_adopting},
        {"a republished lease restarts the grace", test_a_republished_lease_restarts_the_grace},
        {"a store that cannot answer fails closed", test_a_store_that_cannot_answer_fails_closed},
        {"the teardown lease outlives its TTL while destroy runs",
         test_teardown_lease_outlives_its_ttl_while_destroy_runs},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("manager leases (sqlite)", NULL, NULL, tests);
}
