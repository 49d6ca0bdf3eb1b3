/* The mount-contract cache with a fake clock and scripted probes: rule 1
 * (freshness, backoff, saturation, one probe in flight), rule 7's waiting,
 * and the seed cases that pin them down. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "plugin/remote/remote_contract_cache.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

/* How long a test waits for another thread before it fails (never sleeps). */
#define WAIT_DEADLINE_S 10

/* A scripted provisioner: the fake clock, the probe's answer, and an
 * optional gate that holds the probe until the test opens it. */
typedef struct fake {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int64_t now_ms;
    sbx_status answer;          /* what the probe returns */
    int version;                /* the version a successful probe learns */
    int gated;                  /* probes block until gate_open */
    int gate_open;
    int probes_started;
    int waiting_lines;          /* "waiting for the capability probe in flight" */
    sbx_host_services services; /* the cache logs through fake_log */
} fake;

static void fake_init(fake *f)
{
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->changed, NULL);
    f->answer = SBX_OK;
}

static void fake_destroy(fake *f)
{
    pthread_cond_destroy(&f->changed);
    pthread_mutex_destroy(&f->lock);
}

static int64_t fake_clock(void *ctx)
{
    fake *f = ctx;
    pthread_mutex_lock(&f->lock);
    int64_t now = f->now_ms;
    pthread_mutex_unlock(&f->lock);
    return now;
}

static sbx_status fake_probe(void *ctx, remote_probe_answer *learnt, sbx_error *err)
{
    fake *f = ctx;
    pthread_mutex_lock(&f->lock);
    f->probes_started++;
    pthread_cond_broadcast(&f->changed);
    while (f->gated && !f->gate_open)
        pthread_cond_wait(&f->changed, &f->lock);
    sbx_status answer = f->answer;
    learnt->version = f->version;
    pthread_mutex_unlock(&f->lock);
    if (answer != SBX_OK)
        return sbx_error_set(err, answer, "still down");
    return SBX_OK;
}

static void fake_log(void *ctx, sbx_log_level level, const char *backend, const char *message)
{
    fake *f = ctx;
    (void)level;
    (void)backend;
    if (strcmp(message, "waiting for the capability probe in flight") != 0)
        return;
    pthread_mutex_lock(&f->lock);
    f->waiting_lines++;
    pthread_cond_broadcast(&f->changed);
    pthread_mutex_unlock(&f->lock);
}

/* Wait until *counter >= target, with a deadline; 1 when reached. */
static int fake_wait_count(fake *f, const int *counter, int target)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += WAIT_DEADLINE_S;
    int rc = 0;
    pthread_mutex_lock(&f->lock);
    while (*counter < target && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&f->changed, &f->lock, &deadline);
    int reached = *counter >= target;
    pthread_mutex_unlock(&f->lock);
    return reached;
}

static void fake_open_gate(fake *f)
{
    pthread_mutex_lock(&f->lock);
    f->gate_open = 1;
    pthread_cond_broadcast(&f->changed);
    pthread_mutex_unlock(&f->lock);
}

static void fake_set_now(fake *f, int64_t now_ms)
{
    pthread_mutex_lock(&f->lock);
    f->now_ms = now_ms;
    pthread_mutex_unlock(&f->lock);
}

/* A fresh fake and a cache wired to it (probe, clock and log hooks); the
 * fake must stay where it is until stop_cache. */
static void start_cache(fake *f, remote_contract_cache *cache)
{
    fake_init(f);
    f->services = (sbx_host_services){ sizeof f->services, fake_log, f };
    remote_contract_hooks hooks = {
        .probe = fake_probe, .probe_ctx = f,
        .clock = fake_clock, .clock_ctx = f,
        .services = &f->services, .log_name = "remote",
    };
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(remote_contract_cache_init(cache, &hooks, &err), SBX_OK);
}

/* start_cache, then a first call that learns `version` into *st. */
static void start_cache_knowing(fake *f, remote_contract_cache *cache, int version,
                                remote_contract_state *st)
{
    start_cache(f, cache);
    f->version = version;
    remote_contract_cache_current(cache, st);
}

static void stop_cache(fake *f, remote_contract_cache *cache)
{
    remote_contract_cache_destroy(cache);
    fake_destroy(f);
}

/* Port of test_capability_retry_backoff_does_not_overflow_after_long_outage. */
static void test_capability_retry_backoff_does_not_overflow_after_long_outage(void)
{
    fake f;
    remote_contract_cache cache;
    start_cache(&f, &cache);
    remote_contract_state seeded = { .version = 0, .known = 0, .failures = 1024,
                                  .next_probe_at_ms = 0 };
    remote_contract_cache_set_state(&cache, &seeded);
    fake_set_now(&f, 100000);
    f.answer = SBX_ERR_TRANSPORT;

    remote_contract_state out;
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &out), 1);
    remote_contract_state after;
    remote_contract_cache_peek(&cache, &after);
    CU_ASSERT_EQUAL(after.failures, 1025u);
    CU_ASSERT_EQUAL(after.next_probe_at_ms, 130000);
    CU_ASSERT_EQUAL(f.probes_started, 1);

    stop_cache(&f, &cache);
}

static void test_retry_delay_grows_then_caps_at_30_seconds(void)
{
    CU_ASSERT_EQUAL(remote_contract_retry_delay_ms(0), 0);
    CU_ASSERT_EQUAL(remote_contract_retry_delay_ms(1), 1000);
    CU_ASSERT_EQUAL(remote_contract_retry_delay_ms(2), 2000);
    CU_ASSERT_EQUAL(remote_contract_retry_delay_ms(3), 4000);
    CU_ASSERT_EQUAL(remote_contract_retry_delay_ms(5), 16000);
    CU_ASSERT_EQUAL(remote_contract_retry_delay_ms(6), 30000);
    CU_ASSERT_EQUAL(remote_contract_retry_delay_ms(64), 30000);
    CU_ASSERT_EQUAL(remote_contract_retry_delay_ms(1025), 30000);
    CU_ASSERT_EQUAL(remote_contract_retry_delay_ms(UINT_MAX), 30000);
}

static void test_failed_probes_back_off_and_the_count_saturates(void)
{
    fake f;
    remote_contract_cache cache;
    start_cache(&f, &cache);
    f.answer = SBX_ERR_PROVISIONER;
    remote_contract_state st;

    /* First failure at t=0: next probe 1 s later, not before. */
    remote_contract_cache_current(&cache, &st);
    CU_ASSERT_EQUAL(st.failures, 1u);
    CU_ASSERT_EQUAL(st.known, 0);
    fake_set_now(&f, 999);
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &st), 0);
    CU_ASSERT_EQUAL(f.probes_started, 1);
    fake_set_now(&f, 1000);
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &st), 1);
    CU_ASSERT_EQUAL(st.failures, 2u);
    CU_ASSERT_EQUAL(st.next_probe_at_ms, 3000);

    /* A count at its ceiling stays there; the delay stays 30 s. */
    remote_contract_state seeded = { .failures = UINT_MAX, .next_probe_at_ms = 0 };
    remote_contract_cache_set_state(&cache, &seeded);
    fake_set_now(&f, INT64_MAX - 5);
    remote_contract_cache_current(&cache, &st);
    CU_ASSERT_EQUAL(st.failures, UINT_MAX);
    CU_ASSERT_EQUAL(st.next_probe_at_ms, INT64_MAX); /* saturates, no wrap */

    stop_cache(&f, &cache);
}

/* A legacy or version-1 answer is fresh for 30 s, one of version 2 or later
 * for 300 s (the reference client's refresh windows); either resets the
 * failure count. */
static void test_success_is_fresh_by_version_and_resets_failures(void)
{
    fake f;
    remote_contract_cache cache;
    start_cache(&f, &cache);
    remote_contract_state seeded = { .failures = 7, .next_probe_at_ms = 0 };
    remote_contract_cache_set_state(&cache, &seeded);
    f.version = 1;
    fake_set_now(&f, 5000);

    remote_contract_state st;
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &st), 1);
    CU_ASSERT_EQUAL(st.version, 1);
    CU_ASSERT_EQUAL(st.known, 1);
    CU_ASSERT_EQUAL(st.failures, 0u);
    CU_ASSERT_EQUAL(st.next_probe_at_ms, 35000);
    CU_ASSERT_EQUAL(remote_contract_effective_version(&st), 1);

    fake_set_now(&f, 34999);
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &st), 0);
    CU_ASSERT_EQUAL(f.probes_started, 1);
    fake_set_now(&f, 35000);
    f.version = 2;
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &st), 1);
    CU_ASSERT_EQUAL(st.version, 2);
    CU_ASSERT_EQUAL(f.probes_started, 2);
    CU_ASSERT_EQUAL(st.next_probe_at_ms, 335000);

    fake_set_now(&f, 334999);
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &st), 0);
    fake_set_now(&f, 335000);
    f.version = 3;
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &st), 1);
    CU_ASSERT_EQUAL(st.version, 3);
    CU_ASSERT_EQUAL(f.probes_started, 3);

    stop_cache(&f, &cache);
}

static void test_a_failed_probe_leaves_the_contract_unverified(void)
{
    fake f;
    remote_contract_cache cache;
    remote_contract_state st;
    start_cache_knowing(&f, &cache, 2, &st);
    CU_ASSERT_EQUAL(remote_contract_effective_version(&st), 2);

    remote_contract_cache_mark_stale(&cache);
    f.answer = SBX_ERR_TRANSPORT;
    remote_contract_cache_current(&cache, &st);
    CU_ASSERT_EQUAL(st.known, 0);
    /* Fail closed: unverified counts as legacy for isolation (rule 2). */
    CU_ASSERT_EQUAL(remote_contract_effective_version(&st), 0);
    /* The cause stays with the state, for the refusal to name it. */
    CU_ASSERT_EQUAL(st.failure_kind, SBX_ERR_TRANSPORT);
    CU_ASSERT_STRING_EQUAL(st.failure, "still down");
    f.answer = SBX_OK;
    remote_contract_cache_mark_stale(&cache);
    remote_contract_cache_current(&cache, &st);
    CU_ASSERT_EQUAL(st.failure_kind, SBX_OK);
    CU_ASSERT_STRING_EQUAL(st.failure, "");

    stop_cache(&f, &cache);
}

static void test_mark_stale_makes_the_next_call_probe(void)
{
    fake f;
    remote_contract_cache cache;
    remote_contract_state st;
    start_cache_knowing(&f, &cache, 2, &st);
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &st), 0);
    remote_contract_cache_mark_stale(&cache);
    remote_contract_state peeked;
    remote_contract_cache_peek(&cache, &peeked);
    CU_ASSERT_EQUAL(peeked.next_probe_at_ms, 0);
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &st), 1);
    CU_ASSERT_EQUAL(f.probes_started, 2);

    stop_cache(&f, &cache);
}

/* A thread asking for the current state; records what it saw. */
typedef struct asker {
    pthread_t thread;
    remote_contract_cache *cache;
    remote_contract_state seen;
    atomic_int done;
} asker;

static void *ask(void *arg)
{
    asker *a = arg;
    remote_contract_cache_current(a->cache, &a->seen);
    a->done = 1;
    return NULL;
}

#define ASKERS 8

static void test_one_probe_in_flight_and_the_others_take_its_answer(void)
{
    fake f;
    remote_contract_cache cache;
    start_cache(&f, &cache);
    f.gated = 1;
    f.version = 3;

    asker first = { .cache = &cache };
    CU_ASSERT_EQUAL_FATAL(pthread_create(&first.thread, NULL, ask, &first), 0);
    CU_ASSERT_FATAL(fake_wait_count(&f, &f.probes_started, 1));

    asker others[ASKERS];
    for (int i = 0; i < ASKERS; i++) {
        others[i] = (asker){ .cache = &cache };
        CU_ASSERT_EQUAL_FATAL(pthread_create(&others[i].thread, NULL, ask, &others[i]), 0);
    }
    /* Every other thread announces that it waits instead of probing. */
    CU_ASSERT(fake_wait_count(&f, &f.waiting_lines, ASKERS));
    CU_ASSERT_EQUAL(f.probes_started, 1);

    fake_open_gate(&f);
    pthread_join(first.thread, NULL);
    CU_ASSERT_EQUAL(first.seen.version, 3);
    for (int i = 0; i < ASKERS; i++) {
        pthread_join(others[i].thread, NULL);
        CU_ASSERT_EQUAL(others[i].seen.version, 3);
        CU_ASSERT_EQUAL(others[i].seen.known, 1);
    }
    CU_ASSERT_EQUAL(f.probes_started, 1);

    stop_cache(&f, &cache);
}

/* Rule 7 as the host applies it to a snapshot. */
static int allows_thread_data_mounts(const remote_contract_state *st, int host_enabled)
{
    return host_enabled && st->known && st->version >= 2;
}

/* Port of test_mount_mode_waits_for_an_inflight_stale_probe: the cache says 2
 * but is stale; a probe in flight learns 0; the question asked meanwhile
 * waits for that probe and answers no. */
static void test_mount_mode_waits_for_an_inflight_stale_probe(void)
{
    fake f;
    remote_contract_cache cache;
    start_cache(&f, &cache);
    f.gated = 1;
    f.version = 0;
    remote_contract_state seeded = { .version = 2, .known = 1, .next_probe_at_ms = 0 };
    remote_contract_cache_set_state(&cache, &seeded);

    asker prober = { .cache = &cache };
    CU_ASSERT_EQUAL_FATAL(pthread_create(&prober.thread, NULL, ask, &prober), 0);
    CU_ASSERT_FATAL(fake_wait_count(&f, &f.probes_started, 1));

    asker worker = { .cache = &cache };
    CU_ASSERT_EQUAL_FATAL(pthread_create(&worker.thread, NULL, ask, &worker), 0);
    CU_ASSERT(fake_wait_count(&f, &f.waiting_lines, 1));
    CU_ASSERT_EQUAL(worker.done, 0); /* still waiting: the probe is held */

    fake_open_gate(&f);
    pthread_join(prober.thread, NULL);
    pthread_join(worker.thread, NULL);
    CU_ASSERT_EQUAL(allows_thread_data_mounts(&worker.seen, 1), 0);
    CU_ASSERT_EQUAL(worker.seen.version, 0);
    CU_ASSERT_EQUAL(f.probes_started, 1);

    stop_cache(&f, &cache);
}

static void test_rule_7_needs_host_consent_and_version_2(void)
{
    fake f;
    remote_contract_cache cache;
    remote_contract_state st;
    start_cache_knowing(&f, &cache, 2, &st);
    CU_ASSERT_EQUAL(allows_thread_data_mounts(&st, 1), 1);
    CU_ASSERT_EQUAL(allows_thread_data_mounts(&st, 0), 0);
    stop_cache(&f, &cache);
}

/* A probe that fails for lack of memory here says nothing about the
 * provisioner: no failure is counted, no backoff starts, the state stays as
 * it was (stale), and the snapshot says why it is unverified. */
static void test_out_of_memory_probe_is_not_a_provisioner_failure(void)
{
    fake f;
    remote_contract_cache cache;
    remote_contract_state st;
    start_cache(&f, &cache);
    f.answer = SBX_ERR_INTERNAL;
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &st), 1);
    CU_ASSERT_EQUAL(st.known, 0);
    CU_ASSERT_EQUAL(st.failures, 0);
    CU_ASSERT_EQUAL(st.probe_out_of_memory, 1);
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &st), 1);
    CU_ASSERT_EQUAL(f.probes_started, 2);
    f.answer = SBX_OK;
    f.version = 2;
    CU_ASSERT_EQUAL(remote_contract_cache_current(&cache, &st), 1);
    CU_ASSERT_EQUAL(st.known, 1);
    CU_ASSERT_EQUAL(st.version, 2);
    CU_ASSERT_EQUAL(st.probe_out_of_memory, 0);
    stop_cache(&f, &cache);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "capability_retry_backoff_does_not_overflow_after_long_outage",
          test_capability_retry_backoff_does_not_overflow_after_long_outage },
        { "retry_delay_grows_then_caps_at_30_seconds", test_retry_delay_grows_then_caps_at_30_seconds },
        { "failed_probes_back_off_and_the_count_saturates",
          test_failed_probes_back_off_and_the_count_saturates },
        { "success_is_fresh_by_version_and_resets_failures",
          test_success_is_fresh_by_version_and_resets_failures },
        { "a_failed_probe_leaves_the_contract_unverified",
          test_a_failed_probe_leaves_the_contract_unverified },
        { "mark_stale_makes_the_next_call_probe", test_mark_stale_makes_the_next_call_probe },
        { "out_of_memory_probe_is_not_a_provisioner_failure",
          test_out_of_memory_probe_is_not_a_provisioner_failure },
        { "one_probe_in_flight_and_the_others_take_its_answer",
          test_one_probe_in_flight_and_the_others_take_its_answer },
        { "mount_mode_waits_for_an_inflight_stale_probe",
          test_mount_mode_waits_for_an_inflight_stale_probe },
        { "rule_7_needs_host_consent_and_version_2", test_rule_7_needs_host_consent_and_version_2 },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote contract cache", NULL, NULL, tests);
}
