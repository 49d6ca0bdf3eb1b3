/*
 * The manager under many threads: acquire, get and release from 8 threads
 * at once while the reaper and renewal threads run every millisecond on the
 * real clock.  Run by CI under ThreadSanitizer too.
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "tests/manager/mgr_fixture.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"

#define WORKERS 8
#define ROUNDS 300
#define SHARED 4

typedef struct worker {
    sbx_manager *m;
    int index;
    int strict;                    /* no idle reaping: own sandboxes stay */
    atomic_int *failures;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    unsigned seed = (unsigned)w->index * 7919u + 1;
    char own[32];
    snprintf(own, sizeof own, "own-%d", w->index);
    for (int i = 0; i < ROUNDS; i++) {
        seed = seed * 1103515245u + 12345u;
        char shared[32];
        snprintf(shared, sizeof shared, "shared-%u", (seed >> 16) % SHARED);
        const char *thread = (seed >> 8) & 1 ? own : shared;
        sbx_create_request req = SBX_CREATE_REQUEST_INIT;
        req.thread_id = thread;
        req.user_id = "load";
        sbx_managed *got = NULL;
        sbx_error err;
        if (sbx_manager_acquire(w->m, &req, &got, &err) != SBX_OK) {
            fprintf(stderr, "acquire %s: %s\n", thread, err.message);
            atomic_fetch_add(w->failures, 1);
            continue;
        }
        char want[SBX_DERIVED_ID_SIZE];
        sbx_sandbox_id_derive("load", thread, want, &err);
        const char *id = sbx_managed_sandbox(got)->sandbox_id;
        if (strcmp(id, want) != 0)
            atomic_fetch_add(w->failures, 1);
        for (int g = 0; g < 5; g++) {
            sbx_managed *again = sbx_manager_get(w->m, id);
            if (again == NULL && w->strict && thread == own)
                atomic_fetch_add(w->failures, 1);
            sbx_managed_unref(again);
        }
        if ((seed >> 4) % 3 == 0)
            sbx_manager_release(w->m, id, &err);
        sbx_managed_unref(got);
    }
    return NULL;
}

static void run_workers(sbx_manager *m, int strict, atomic_int *failures)
{
    pthread_t threads[WORKERS];
    worker workers[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        workers[i] = (worker){m, i, strict, failures};
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, work, &workers[i]) == 0);
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(threads[i], NULL);
}

static sbx_manager_config busy_config(int64_t idle_ms)
{
    sbx_manager_config c = mf_config();
    c.clock = NULL; /* the real clock: the background threads run for real */
    c.check_interval_ms = 1;
    c.renewal_interval_ms = 1;
    c.idle_timeout_ms = idle_ms;
    c.replicas = 64;
    return c;
}

/* One sandbox per (user, thread) however many threads race for it. */
static void test_racing_acquires_make_one_sandbox_per_thread(void)
{
    CU_ASSERT_FATAL(mf_start() == 0);
    sbx_manager_config c = busy_config(0);
    sbx_manager *m = mf_open(&c);
    atomic_int failures = 0;
    run_workers(m, 1, &failures);
    CU_ASSERT_EQUAL(atomic_load(&failures), 0);
    CU_ASSERT_EQUAL(mt_get_stats().creates, WORKERS + SHARED);
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 0);
    sbx_manager_counters n = mf_counters(m);
    CU_ASSERT_EQUAL(n.active + n.warm, WORKERS + SHARED);
    CU_ASSERT_EQUAL(n.lease_losses, 0);
    sbx_manager_free(m);
    CU_ASSERT_EQUAL(mt_count(), 0);
    mf_stop();
}

/* With the idle reaper destroying sandboxes under the workers' feet, every
 * acquire still succeeds and nothing is leaked.  Rounds of workers run until
 * the reaper has reaped during one (on a busy machine its thread may not get
 * to run within the first round), so the race is always exercised. */
static void test_acquires_racing_the_idle_reaper_all_succeed(void)
{
    CU_ASSERT_FATAL(mf_start() == 0);
    sbx_manager_config c = busy_config(1);
    sbx_manager *m = mf_open(&c);
    atomic_int failures = 0;
    long deadline = sbx_test_now_ms() + 20000;
    int rounds = 0;
    do {
        run_workers(m, 0, &failures);
        rounds++;
    } while (mf_counters(m).reaped == 0 && sbx_test_now_ms() < deadline);
    printf("reaper raced the workers within %d round(s)\n", rounds);
    CU_ASSERT_EQUAL(atomic_load(&failures), 0);
    CU_ASSERT(mf_counters(m).reaped > 0);
    sbx_manager_free(m);
    CU_ASSERT_EQUAL(mt_count(), 0);
    mf_stop();
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"racing acquires make one sandbox per thread",
         test_racing_acquires_make_one_sandbox_per_thread},
        {"acquires racing the idle reaper all succeed",
         test_acquires_racing_the_idle_reaper_all_succeed},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("manager threads", NULL, NULL, tests);
}
