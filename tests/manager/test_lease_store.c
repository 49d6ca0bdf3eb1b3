/*
 * The ownership-lease contract (docs/manager.md rule 13) against every store
 * through one fixture: the same tests run on the memory store, on a real
 * sqlite file and on a real redis-server the suite starts (skipped, saying
 * why, when redis-server is not installed).  Two store objects with
 * different owner ids on one keyspace are two manager instances.
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host-api/src/manager/lease_store.h"
#include "tests/manager/redis_server.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"

#define LONG_TTL 60000
#define SHORT_TTL 150

typedef enum kind { K_MEMORY, K_SQLITE, K_REDIS } kind;

static kind current;
static redis_server redis;
static char sqlite_path[512];
static char prefix[64];
static int prefix_serial;

#define MAX_STORES 16
static mgr_lease_store *made[MAX_STORES];
static int made_count;

static int64_t real_clock(void *ctx)
{
    (void)ctx;
    return sbx_test_now_ms();
}

/* A store of the current kind for `owner` (NULL-safe test failure). */
static mgr_lease_store *make(const char *owner, int64_t ttl)
{
    mgr_lease_store *s = NULL;
    sbx_error err;
    sbx_status st;
    switch (current) {
    case K_MEMORY:
        st = mgr_lease_store_memory_open(owner, ttl, (mgr_lease_clock){ real_clock, NULL },
                                         made_count ? made[0] : NULL, &s, &err);
        break;
    case K_SQLITE:
        st = mgr_lease_store_sqlite_open(sqlite_path, owner, ttl, &s, &err);
        break;
    default:
        st = mgr_lease_store_redis_open(redis.url, prefix, owner, ttl, &s, &err);
        break;
    }
    if (st != SBX_OK)
        fprintf(stderr, "store open: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK && made_count < MAX_STORES);
    made[made_count++] = s;
    return s;
}

/* Each test starts on an empty keyspace. */
static void fresh_keyspace(void)
{
    for (int i = 0; i < made_count; i++)
        mgr_lease_store_close(made[i]);
    made_count = 0;
    snprintf(prefix, sizeof prefix, "sbx:test:%d:%d", (int)getpid(), ++prefix_serial);
    if (current == K_SQLITE) {
        unlink(sqlite_path);
        char side[600];
        snprintf(side, sizeof side, "%s-wal", sqlite_path);
        unlink(side);
        snprintf(side, sizeof side, "%s-shm", sqlite_path);
        unlink(side);
    }
}

static int take(mgr_lease_store *s, const char *id)
{
    int yes = -1;
    sbx_error err;
    CU_ASSERT_EQUAL(s->ops->take(s, id, &yes, &err), SBX_OK);
    return yes;
}

static int claim(mgr_lease_store *s, const char *id, int for_destroy)
{
    int yes = -1;
    sbx_error err;
    CU_ASSERT_EQUAL(s->ops->claim(s, id, for_destroy, &yes, &err), SBX_OK);
    return yes;
}

static mgr_lease_renewal renew(mgr_lease_store *s, const char *id)
{
    mgr_lease_renewal r = SBX_LEASE_RENEWED;
    sbx_error err;
    CU_ASSERT_EQUAL(s->ops->renew(s, id, &r, &err), SBX_OK);
    return r;
}

static void release(mgr_lease_store *s, const char *id)
{
    sbx_error err;
    CU_ASSERT_EQUAL(s->ops->release(s, id, &err), SBX_OK);
}

/* The owner of `id` as seen by `s`, "" when unowned (static buffer). */
static const char *owner(mgr_lease_store *s, const char *id)
{
    static char buf[128];
    char *o = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(s->ops->owner(s, id, &o, NULL, &err), SBX_OK);
    snprintf(buf, sizeof buf, "%s", o != NULL ? o : "");
    free(o);
    return buf;
}

/* Wait (at most 20 s: a generous bound for a loaded machine) until `id`'s
 * lease has expired. */
static int wait_expired(mgr_lease_store *s, const char *id)
{
    long deadline = sbx_test_now_ms() + 20000;
    while (sbx_test_now_ms() < deadline) {
        if (owner(s, id)[0] == '\0')
            return 1;
        struct timespec pause = {0, 5 * 1000000};
        nanosleep(&pause, NULL); /* paces the polling of a TTL, not a wait for a peer */
    }
    return 0;
}

#define BEGIN() fresh_keyspace()

/* ---- the #4206 invariant: a peer cannot claim a live owner's sandbox ---- */

static void test_claim_is_exclusive_across_instances(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    CU_ASSERT_EQUAL(claim(b, "s1", 0), 0);
    CU_ASSERT_STRING_EQUAL(owner(b, "s1"), "A");
}

static void test_failed_claim_does_not_steal_the_lease(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    CU_ASSERT_EQUAL(claim(b, "s1", 0), 0);
    CU_ASSERT_EQUAL(renew(a, "s1"), SBX_LEASE_RENEWED);
    CU_ASSERT_STRING_EQUAL(owner(a, "s1"), "A");
}

static void test_claim_refreshes_our_own_lease(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
}

static void test_claim_succeeds_once_a_lease_expires(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", SHORT_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    CU_ASSERT_EQUAL(claim(b, "s1", 0), 0);
    CU_ASSERT(wait_expired(b, "s1"));
    CU_ASSERT_EQUAL(claim(b, "s1", 0), 1);
    CU_ASSERT_STRING_EQUAL(owner(a, "s1"), "B");
}

/* ---- take: the acquire path ---- */

static void test_take_transfers_ownership_from_a_live_peer(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    CU_ASSERT_EQUAL(take(b, "s1"), 1);
    CU_ASSERT_STRING_EQUAL(owner(a, "s1"), "B");
}

static void test_take_makes_the_previous_owners_renew_report_lost(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    CU_ASSERT_EQUAL(take(b, "s1"), 1);
    CU_ASSERT_EQUAL(renew(a, "s1"), SBX_LEASE_LOST);
    CU_ASSERT_STRING_EQUAL(owner(a, "s1"), "B");
}

static void test_take_is_refused_while_a_peer_is_destroying(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 1), 1);
    CU_ASSERT_EQUAL(take(b, "s1"), 0);
    CU_ASSERT_STRING_EQUAL(owner(b, "s1"), "A");
}

static void test_take_is_allowed_once_the_teardown_marker_is_released(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 1), 1);
    release(a, "s1");
    CU_ASSERT_EQUAL(take(b, "s1"), 1);
}

static void test_a_destroyers_own_claim_is_idempotent(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 1), 1);
    CU_ASSERT_EQUAL(claim(a, "s1", 1), 1);
}

static void test_claim_for_destroy_is_still_refused_against_a_peer(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    CU_ASSERT_EQUAL(claim(b, "s1", 1), 0);
    CU_ASSERT_EQUAL(renew(a, "s1"), SBX_LEASE_RENEWED);
}

static void test_a_stale_teardown_marker_expires(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", SHORT_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 1), 1);
    CU_ASSERT_EQUAL(take(b, "s1"), 0);
    CU_ASSERT(wait_expired(b, "s1"));
    CU_ASSERT_EQUAL(take(b, "s1"), 1);
}

static void test_non_destroy_claim_does_not_unwind_our_own_teardown(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 1), 1);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 0);
    CU_ASSERT_EQUAL(renew(a, "s1"), SBX_LEASE_LOST);
    CU_ASSERT_EQUAL(take(b, "s1"), 0);
    CU_ASSERT_EQUAL(claim(a, "s1", 1), 1);
}

/* ---- renew ---- */

static void test_renew_does_not_keep_a_teardown_alive(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 1), 1);
    CU_ASSERT_EQUAL(renew(a, "s1"), SBX_LEASE_LOST);
}

static void test_renew_reports_lapsed_not_lost_for_an_expired_lease(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", SHORT_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    CU_ASSERT(wait_expired(a, "s1"));
    CU_ASSERT_EQUAL(renew(a, "s1"), SBX_LEASE_LAPSED);
}

static void test_renew_does_not_reacquire_on_its_own(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", SHORT_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    CU_ASSERT(wait_expired(a, "s1"));
    CU_ASSERT_EQUAL(renew(a, "s1"), SBX_LEASE_LAPSED);
    CU_ASSERT_STRING_EQUAL(owner(a, "s1"), "");
}

/* Renewing more often than the TTL keeps the lease past several TTLs.
 * Each check is made only when its call ended within one TTL of the start
 * of the renewal before it, so that the lease was certainly live: on
 * a loaded machine a 20 ms pause can last longer than the 150 ms TTL, and
 * the lease then rightly lapses. */
static void test_renew_extends_the_lease(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", SHORT_TTL), *b = make("B", LONG_TTL);
    long renewed_from = sbx_test_now_ms();
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    long until = renewed_from + 3 * SHORT_TTL;
    int checked = 0;
    long deadline = until + 20000;
    while ((sbx_test_now_ms() < until || checked < 3) && sbx_test_now_ms() < deadline) {
        long started = sbx_test_now_ms();
        mgr_lease_renewal r = renew(a, "s1");
        /* Timed to the call's end: the store may run it late (a stalled
         * redis-server), and only a renewal that ran within the TTL must
         * find the lease live. */
        if (sbx_test_now_ms() - renewed_from < SHORT_TTL) {
            CU_ASSERT_EQUAL(r, SBX_LEASE_RENEWED);
            checked++;
        } else if (r == SBX_LEASE_LAPSED) {
            CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
        }
        renewed_from = started;
        const char *held = owner(b, "s1");
        int peer_refused = claim(b, "s1", 0) == 0;
        if (sbx_test_now_ms() - renewed_from < SHORT_TTL) {
            CU_ASSERT_STRING_EQUAL(held, "A");
            CU_ASSERT(peer_refused);
        } else if (!peer_refused) {
            release(b, "s1"); /* a stall let the peer in: hand the lease back */
            renewed_from = -SHORT_TTL; /* A holds nothing to renew now */
        }
        struct timespec pause = {0, 20 * 1000000};
        nanosleep(&pause, NULL); /* renewal pacing: a fraction of the TTL */
    }
    CU_ASSERT(checked >= 3);
}

static void test_renew_of_an_unknown_sandbox_is_lapsed(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL);
    CU_ASSERT_EQUAL(renew(a, "never-seen"), SBX_LEASE_LAPSED);
}

/* ---- release and owner ---- */

static void test_release_frees_the_sandbox_for_a_peer(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    release(a, "s1");
    CU_ASSERT_EQUAL(claim(b, "s1", 0), 1);
}

static void test_release_does_not_clear_a_peers_lease(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    release(b, "s1");
    CU_ASSERT_STRING_EQUAL(owner(b, "s1"), "A");
}

static void test_release_of_an_unowned_sandbox_is_a_noop(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL);
    release(a, "s1");
    CU_ASSERT_STRING_EQUAL(owner(a, "s1"), "");
}

static void test_owner_does_not_take_ownership(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL), *b = make("B", LONG_TTL);
    CU_ASSERT_STRING_EQUAL(owner(a, "s1"), "");
    CU_ASSERT_EQUAL(claim(b, "s1", 0), 1);
    CU_ASSERT_STRING_EQUAL(owner(a, "s1"), "B");
}

/* ---- atomicity under contention ---- */

typedef struct contender {
    mgr_lease_store *store;
    pthread_barrier_t *start;
    int won;
} contender;

static void *contend(void *arg)
{
    contender *c = arg;
    sbx_error err;
    pthread_barrier_wait(c->start);
    if (c->store->ops->claim(c->store, "s1", 0, &c->won, &err) != SBX_OK)
        c->won = -1;
    return NULL;
}

static void test_concurrent_claims_serialize_to_one_winner(void)
{
    BEGIN();
    enum { N = 8 };
    contender c[N];
    pthread_t t[N];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, N);
    for (int i = 0; i < N; i++) {
        char name[8];
        snprintf(name, sizeof name, "W%d", i);
        c[i] = (contender){make(name, LONG_TTL), &start, 0};
    }
    for (int i = 0; i < N; i++)
        CU_ASSERT_FATAL(pthread_create(&t[i], NULL, contend, &c[i]) == 0);
    int winners = 0, errors = 0;
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        winners += c[i].won == 1;
        errors += c[i].won == -1;
    }
    pthread_barrier_destroy(&start);
    CU_ASSERT_EQUAL(winners, 1);
    CU_ASSERT_EQUAL(errors, 0);
}

static void test_the_store_says_whether_it_sees_peers(void)
{
    BEGIN();
    mgr_lease_store *a = make("A", LONG_TTL);
    CU_ASSERT_EQUAL(a->cross_process, current != K_MEMORY);
}

/* ---- redis: the keys and values DeerFlow's gateways share ---- */

static void test_redis_keys_and_values_are_deerflows(void)
{
    BEGIN();
    snprintf(prefix, sizeof prefix, "deerflow:sandbox:owner:");
    mgr_lease_store *a = make("host:abc", LONG_TTL);
    CU_ASSERT_EQUAL(claim(a, "s1", 0), 1);
    const char *get[] = {"GET", "deerflow:sandbox:owner:s1"};
    const char *pttl[] = {"PTTL", "deerflow:sandbox:owner:s1"};
    char *value = redis_server_command(&redis, 2, get);
    char *ttl = redis_server_command(&redis, 2, pttl);
    CU_ASSERT_PTR_NOT_NULL_FATAL(value);
    CU_ASSERT_STRING_EQUAL(value, "own:host:abc");
    CU_ASSERT(ttl != NULL && atol(ttl) > 0 && atol(ttl) <= LONG_TTL);
    free(value);
    free(ttl);
    CU_ASSERT_EQUAL(claim(a, "s1", 1), 1);
    value = redis_server_command(&redis, 2, get);
    CU_ASSERT_STRING_EQUAL(value, "del:host:abc");
    free(value);
    /* A lease a DeerFlow gateway wrote is read the same way. */
    const char *set[] = {"SET", "deerflow:sandbox:owner:s2", "own:gateway-1:ffff", "PX", "60000"};
    free(redis_server_command(&redis, 5, set));
    CU_ASSERT_STRING_EQUAL(owner(a, "s2"), "gateway-1:ffff");
    CU_ASSERT_EQUAL(claim(a, "s2", 0), 0);
    CU_ASSERT_EQUAL(take(a, "s2"), 1);
}

/* A store that cannot answer says "unknown" on every operation, never "no". */
static void test_redis_store_that_cannot_answer_is_unknown(void)
{
    BEGIN();
    mgr_lease_store *s = NULL;
    sbx_error err;
    char url[400];
    snprintf(url, sizeof url, "unix://%s/nothing-listens.sock", redis.dir);
    CU_ASSERT_EQUAL_FATAL(mgr_lease_store_redis_open(url, "p", "A", LONG_TTL, &s, &err), SBX_OK);
    int yes;
    mgr_lease_renewal r;
    char *o;
    CU_ASSERT_EQUAL(s->ops->take(s, "s1", &yes, &err), SBX_ERR_TRANSPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "take of s1"));
    CU_ASSERT_EQUAL(s->ops->claim(s, "s1", 0, &yes, &err), SBX_ERR_TRANSPORT);
    CU_ASSERT_EQUAL(s->ops->claim(s, "s1", 1, &yes, &err), SBX_ERR_TRANSPORT);
    CU_ASSERT_EQUAL(s->ops->renew(s, "s1", &r, &err), SBX_ERR_TRANSPORT);
    CU_ASSERT_EQUAL(s->ops->release(s, "s1", &err), SBX_ERR_TRANSPORT);
    CU_ASSERT_EQUAL(s->ops->owner(s, "s1", &o, NULL, &err), SBX_ERR_TRANSPORT);
    mgr_lease_store_close(s);
}

/* The password of a redis URL is never quoted back. */
static void test_redis_url_errors_do_not_quote_the_url(void)
{
    mgr_lease_store *s = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(mgr_lease_store_redis_open("rediss://:hunter2@h", "p", "A", 1000, &s, &err),
                    SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NULL(strstr(err.message, "hunter2"));
    CU_ASSERT_EQUAL(mgr_lease_store_redis_open("redis://:hunter2@h:99999", "p", "A", 1000, &s, &err),
                    SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NULL(strstr(err.message, "hunter2"));
}

/* Every operation on `id` is a protocol error naming the store (`where`)
 * and `key`, and grants nothing. */
static void expect_bad_lease(mgr_lease_store *s, const char *id, const char *where,
                             const char *key)
{
    sbx_error err;
    int yes = -1;
    mgr_lease_renewal r = SBX_LEASE_RENEWED;
    char *o = NULL;
    sbx_status got[6];
    got[0] = s->ops->take(s, id, &yes, &err);
    CU_ASSERT_EQUAL(yes, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, where));
    yes = -1;
    got[1] = s->ops->claim(s, id, 0, &yes, &err);
    CU_ASSERT_EQUAL(yes, 0);
    yes = -1;
    got[2] = s->ops->claim(s, id, 1, &yes, &err);
    CU_ASSERT_EQUAL(yes, 0);
    got[3] = s->ops->renew(s, id, &r, &err);
    CU_ASSERT_NOT_EQUAL(r, SBX_LEASE_RENEWED);
    got[4] = s->ops->release(s, id, &err);
    got[5] = s->ops->owner(s, id, &o, NULL, &err);
    CU_ASSERT_PTR_NULL(o);
    free(o);
    for (int i = 0; i < 6; i++)
        CU_ASSERT_EQUAL(got[i], SBX_ERR_PROTOCOL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, key));
    if (strstr(err.message, key) == NULL)
        fprintf(stderr, "owner of %s: %s\n", id, err.message);
}

/* The listing stops at the bad entry, naming it. */
static void expect_bad_listing(mgr_lease_store *s, const char *where, const char *key)
{
    sbx_lease_record *records = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_EQUAL(s->ops->list(s, &records, &count, &err), SBX_ERR_PROTOCOL);
    CU_ASSERT_PTR_NULL(records);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, where));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, key));
}

static char *redis_do(int argc, const char **argv)
{
    return redis_server_command(&redis, argc, argv);
}

static void test_a_bad_redis_value_is_a_protocol_error_never_a_lease(void)
{
    char long_value[400] = "own:";
    memset(long_value + 4, 'a', 300);
    const char *bad_strings[] = {"own:", "xyz:A", "own:A\nINFO forged", "del:A B", long_value,
                                 "own:\x01", "garbage"};
    char key[128];
    for (size_t i = 0; i < sizeof bad_strings / sizeof bad_strings[0] + 2; i++) {
        BEGIN();
        mgr_lease_store *b = make("B", LONG_TTL);
        snprintf(key, sizeof key, "%s:s%zu", prefix, i);
        if (i < sizeof bad_strings / sizeof bad_strings[0]) {
            const char *set[] = {"SET", key, bad_strings[i], "PX", "60000"};
            free(redis_do(5, set));
        } else if (i == sizeof bad_strings / sizeof bad_strings[0]) {
            const char *hset[] = {"HSET", key, "value", "own:A"};
            free(redis_do(4, hset));
        } else {
            const char *rpush[] = {"RPUSH", key, "own:A"};
            free(redis_do(3, rpush));
        }
        char id[16];
        snprintf(id, sizeof id, "s%zu", i);
        expect_bad_lease(b, id, "redis lease store", key);
        expect_bad_listing(b, "redis lease store", key);
        /* Left as it was. */
        const char *type[] = {"TYPE", key};
        char *t = redis_do(2, type);
        CU_ASSERT(t != NULL && strcmp(t, "none") != 0);
        free(t);
    }
    /* A lease without an expiry is no lease a listing can show. */
    BEGIN();
    mgr_lease_store *b = make("B", LONG_TTL);
    snprintf(key, sizeof key, "%s:forever", prefix);
    const char *set[] = {"SET", key, "own:A"};
    free(redis_do(3, set));
    expect_bad_listing(b, "redis lease store", key);
}

/* A Redis ACL user: AUTH user password, both percent-decoded from the
 * URL; a password alone logs in the default user; a wrong password is
 * refused with a message that does not quote it. */
static void test_a_redis_acl_user_logs_in_with_its_name_and_password(void)
{
    redis_server server;
    CU_ASSERT_FATAL(redis_server_start_tcp(&server) == 0);
    const char *setuser[] = {"ACL", "SETUSER", "lease-user", "on", ">p@ss:w/rd%", "~*", "+@all"};
    char *ok = redis_server_command(&server, 7, setuser);
    CU_ASSERT(ok != NULL && strcmp(ok, "OK") == 0);
    free(ok);
    char url[256];
    mgr_lease_store *s = NULL;
    sbx_error err;
    int yes = -1;
    snprintf(url, sizeof url, "redis://lease%%2Duser:p%%40ss%%3Aw%%2Frd%%25@127.0.0.1:%d/0",
             server.port);
    CU_ASSERT_EQUAL_FATAL(mgr_lease_store_redis_open(url, "acl", "A", LONG_TTL, &s, &err), SBX_OK);
    CU_ASSERT_EQUAL(s->ops->claim(s, "s1", 0, &yes, &err), SBX_OK);
    CU_ASSERT_EQUAL(yes, 1);
    mgr_lease_store_close(s);
    const char *get[] = {"GET", "acl:s1"};
    char *value = redis_server_command(&server, 2, get);
    CU_ASSERT(value != NULL && strcmp(value, "own:A") == 0);
    free(value);

    snprintf(url, sizeof url, "redis://lease-user:wrong-secret-4711@127.0.0.1:%d", server.port);
    CU_ASSERT_EQUAL_FATAL(mgr_lease_store_redis_open(url, "acl", "A", LONG_TTL, &s, &err), SBX_OK);
    CU_ASSERT_EQUAL(s->ops->take(s, "s1", &yes, &err), SBX_ERR_UNAUTHORIZED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "AUTH"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "WRONGPASS"));
    CU_ASSERT_PTR_NULL(strstr(err.message, "wrong-secret-4711"));
    fprintf(stderr, "wrong password: %s\n", err.message);
    mgr_lease_store_close(s);

    /* A user without a password is no URL of ours. */
    snprintf(url, sizeof url, "redis://lease-user@127.0.0.1:%d", server.port);
    CU_ASSERT_EQUAL(mgr_lease_store_redis_open(url, "acl", "A", LONG_TTL, &s, &err),
                    SBX_ERR_CONFIG);

    /* Last: once the default user has a password, the helper cannot talk. */
    const char *protect[] = {"ACL", "SETUSER", "default", "resetpass", ">only pass"};
    free(redis_server_command(&server, 5, protect));
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", server.port);
    CU_ASSERT_EQUAL_FATAL(mgr_lease_store_redis_open(url, "acl", "B", LONG_TTL, &s, &err), SBX_OK);
    CU_ASSERT_EQUAL(s->ops->take(s, "s1", &yes, &err), SBX_ERR_UNAUTHORIZED);
    mgr_lease_store_close(s);
    snprintf(url, sizeof url, "redis://:only%%20pass@127.0.0.1:%d", server.port);
    CU_ASSERT_EQUAL_FATAL(mgr_lease_store_redis_open(url, "acl", "B", LONG_TTL, &s, &err), SBX_OK);
    CU_ASSERT_EQUAL(s->ops->take(s, "s1", &yes, &err), SBX_OK);
    CU_ASSERT_EQUAL(yes, 1);
    mgr_lease_store_close(s);
    redis_server_stop(&server, 0);
}

/* ---- sqlite specifics ---- */

/* A table made by another schema, which allows NULL and any type, holding
 * `rows` (SQL VALUES lists): the store reads it back as untrusted input. */
static void lax_table(const char *rows)
{
    sqlite3 *db = NULL;
    char sql[2048];
    snprintf(sql, sizeof sql, "CREATE TABLE sbx_leases (sandbox_id TEXT PRIMARY KEY, value, "
             "expires_at); INSERT INTO sbx_leases VALUES %s;", rows);
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(sqlite_path, &db), SQLITE_OK);
    char *why = NULL;
    CU_ASSERT_EQUAL(sqlite3_exec(db, sql, NULL, NULL, &why), SQLITE_OK);
    if (why != NULL)
        fprintf(stderr, "lax table: %s\n", why);
    sqlite3_free(why);
    sqlite3_close(db);
}

static void test_a_bad_sqlite_row_is_a_protocol_error_never_a_lease(void)
{
    static const struct { const char *id, *value, *expires; } bad[] = {
        {"s-null", "NULL", "9999999999999"},
        {"s-int", "42", "9999999999999"},
        {"s-blob", "x'6f776e3a41'", "9999999999999"},
        {"s-nobody", "'own:'", "9999999999999"},
        {"s-junk", "'xyz:A'", "9999999999999"},
        {"s-ctl", "'own:A' || char(10) || 'INFO forged'", "9999999999999"},
        {"s-space", "'del:A B'", "9999999999999"},
        {"s-long", "'own:' || printf('%.300c', 'a')", "9999999999999"},
        {"s-text-expiry", "'own:A'", "'tomorrow'"},
        {"s-null-expiry", "'own:A'", "NULL"},
        {"s-real-expiry", "'own:A'", "1e300"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        BEGIN();
        char row[512];
        snprintf(row, sizeof row, "('%s', %s, %s)", bad[i].id, bad[i].value, bad[i].expires);
        lax_table(row);
        mgr_lease_store *b = make("B", LONG_TTL);
        expect_bad_lease(b, bad[i].id, sqlite_path, bad[i].id);
        expect_bad_listing(b, sqlite_path, bad[i].id);
    }
    /* A NULL or unprintable sandbox id: the listing names the row. */
    BEGIN();
    lax_table("(NULL, 'own:A', 9999999999999)");
    expect_bad_listing(make("B", LONG_TTL), sqlite_path, "(NULL)");
    BEGIN();
    lax_table("('s' || char(1), 'own:A', 9999999999999)");
    expect_bad_listing(make("B", LONG_TTL), sqlite_path, "s?");
    /* An expired bad row grants nothing and is overwritten. */
    BEGIN();
    lax_table("('s-old', NULL, 1)");
    mgr_lease_store *b = make("B", LONG_TTL);
    CU_ASSERT_EQUAL(take(b, "s-old"), 1);
    CU_ASSERT_STRING_EQUAL(owner(b, "s-old"), "B");
}

static void test_sqlite_open_names_the_file_at_fault(void)
{
    mgr_lease_store *s = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(mgr_lease_store_sqlite_open("/nonexistent-dir/leases.db", "A", 1000, &s, &err),
                    SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "/nonexistent-dir/leases.db"));
}

/* ---- suites ---- */

static int init_memory(void)
{
    current = K_MEMORY;
    return 0;
}

static int init_sqlite(void)
{
    current = K_SQLITE;
    const char *state = getenv("XDG_STATE_HOME");
    snprintf(sqlite_path, sizeof sqlite_path, "%s/lease-contract-%d.db",
             state != NULL && state[0] == '/' ? state : "/tmp", (int)getpid());
    return 0;
}

static int init_redis(void)
{
    current = K_REDIS;
    return redis_server_start(&redis) == 0 ? 0 : -1;
}

static int cleanup_any(void)
{
    fresh_keyspace();
    if (current == K_SQLITE)
        unlink(sqlite_path);
    if (current == K_REDIS)
        redis_server_stop(&redis, 0);
    return 0;
}

#define CONTRACT_TESTS                                                                         \
    {"claim is exclusive across instances", test_claim_is_exclusive_across_instances},       \
    {"a failed claim does not steal the lease", test_failed_claim_does_not_steal_the_lease}, \
    {"claim refreshes our own lease", test_claim_refreshes_our_own_lease},                   \
    {"claim succeeds once a lease expires", test_claim_succeeds_once_a_lease_expires},       \
    {"take transfers ownership from a live peer", test_take_transfers_ownership_from_a_live_peer}, \
    {"take makes the previous owner's renew report LOST",                                    \
     test_take_makes_the_previous_owners_renew_report_lost},                                  \
    {"take is refused while a peer is destroying", test_take_is_refused_while_a_peer_is_destroying}, \
    {"take is allowed once the teardown marker is released",                                 \
     test_take_is_allowed_once_the_teardown_marker_is_released},                              \
    {"a destroyer's own claim is idempotent", test_a_destroyers_own_claim_is_idempotent},     \
    {"claim for destroy is still refused against a peer",                                    \
     test_claim_for_destroy_is_still_refused_against_a_peer},                                 \
    {"a stale teardown marker expires", test_a_stale_teardown_marker_expires},               \
    {"a non-destroy claim does not unwind our own teardown",                                 \
     test_non_destroy_claim_does_not_unwind_our_own_teardown},                                \
    {"renew does not keep a teardown alive", test_renew_does_not_keep_a_teardown_alive},     \
    {"renew reports LAPSED, not LOST, for an expired lease",                                 \
     test_renew_reports_lapsed_not_lost_for_an_expired_lease},                                \
    {"renew does not re-acquire on its own", test_renew_does_not_reacquire_on_its_own},      \
    {"renew extends the lease", test_renew_extends_the_lease},                               \
    {"renew of an unknown sandbox is LAPSED", test_renew_of_an_unknown_sandbox_is_lapsed},   \
    {"release frees the sandbox for a peer", test_release_frees_the_sandbox_for_a_peer},     \
    {"release does not clear a peer's lease", test_release_does_not_clear_a_peers_lease},    \
    {"release of an unowned sandbox is a no-op", test_release_of_an_unowned_sandbox_is_a_noop}, \
    {"owner does not take ownership", test_owner_does_not_take_ownership},                   \
    {"concurrent claims serialize to one winner", test_concurrent_claims_serialize_to_one_winner}, \
    {"the store says whether it sees peers", test_the_store_says_whether_it_sees_peers}

void sbx_test_register(void)
{
    static const CU_TestInfo memory_tests[] = {CONTRACT_TESTS, CU_TEST_INFO_NULL};
    static const CU_TestInfo sqlite_tests[] = {
        CONTRACT_TESTS,
        {"sqlite open names the file at fault", test_sqlite_open_names_the_file_at_fault},
        {"a bad sqlite row is a protocol error, never a lease",
         test_a_bad_sqlite_row_is_a_protocol_error_never_a_lease},
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo redis_tests[] = {
        CONTRACT_TESTS,
        {"redis keys and values are DeerFlow's", test_redis_keys_and_values_are_deerflows},
        {"a redis store that cannot answer is unknown",
         test_redis_store_that_cannot_answer_is_unknown},
        {"redis URL errors do not quote the URL", test_redis_url_errors_do_not_quote_the_url},
        {"a bad redis value is a protocol error, never a lease",
         test_a_bad_redis_value_is_a_protocol_error_never_a_lease},
        {"a redis ACL user logs in with its name and password",
         test_a_redis_acl_user_logs_in_with_its_name_and_password},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("lease store contract: memory", init_memory, cleanup_any, memory_tests);
    sbx_test_add_suite("lease store contract: sqlite", init_sqlite, cleanup_any, sqlite_tests);
    if (redis_server_available())
        sbx_test_add_suite("lease store contract: redis", init_redis, cleanup_any, redis_tests);
    else
        printf("SKIP: lease store contract: redis (redis-server is not on PATH; Debian package "
               "redis-server)\n");
}
