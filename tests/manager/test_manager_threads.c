/*
 * The manager under many threads: acquire, get, release and destroy from 8
 * threads at once while the reaper and renewal threads run every
 * millisecond on the real clock; shutdown while they acquire.  Two users
 * share thread names, so an acquire served another identity's sandbox shows
 * as a wrong id.  Run by CI under ThreadSanitizer too.
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
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
    int strict;                    /* no idle reaping nor destroys: own sandboxes stay */
    int destroys;                  /* also destroy shared threads' sandboxes */
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
        const char *user = thread == own || (seed >> 12) & 1 ? "load" : "other";
        sbx_create_request req = SBX_CREATE_REQUEST_INIT;
        req.thread_id = thread;
        req.user_id = user;
        sbx_managed *got = NULL;
        sbx_error err;
        if (sbx_manager_acquire(w->m, &req, &got, &err) != SBX_OK) {
            fprintf(stderr, "acquire %s: %s\n", thread, err.message);
            atomic_fetch_add(w->failures, 1);
            continue;
        }
        char want[SBX_DERIVED_ID_SIZE];
        sbx_sandbox_id_derive(user, thread, want, &err);
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
        else if (w->destroys && thread != own && (seed >> 4) % 3 == 1)
            sbx_manager_destroy(w->m, id, &err);
        sbx_managed_unref(got);
    }
    return NULL;
}

static void run_workers(sbx_manager *m, int strict, int destroys, atomic_int *failures)
{
    pthread_t threads[WORKERS];
    worker workers[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        workers[i] = (worker){m, i, strict, destroys, failures};
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

/* One sandbox per (user, thread) however many threads race for it: each
 * worker's own thread, and the shared threads of both users. */
static void test_racing_acquires_make_one_sandbox_per_thread(void)
{
    CU_ASSERT_FATAL(mf_start() == 0);
    sbx_manager_config c = busy_config(0);
    sbx_manager *m = mf_open(&c);
    atomic_int failures = 0;
    run_workers(m, 1, 0, &failures);
    CU_ASSERT_EQUAL(atomic_load(&failures), 0);
    CU_ASSERT_EQUAL(mt_get_stats().creates, WORKERS + 2 * SHARED);
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 0);
    sbx_manager_counters n = mf_counters(m);
    CU_ASSERT_EQUAL(n.active + n.warm, WORKERS + 2 * SHARED);
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
        run_workers(m, 0, 0, &failures);
        rounds++;
    } while (mf_counters(m).reaped == 0 && sbx_test_now_ms() < deadline);
    printf("reaper raced the workers within %d round(s)\n", rounds);
    CU_ASSERT_EQUAL(atomic_load(&failures), 0);
    CU_ASSERT(mf_counters(m).reaped > 0);
    sbx_manager_free(m);
    CU_ASSERT_EQUAL(mt_count(), 0);
    mf_stop();
}

/* Destroys of shared threads' sandboxes racing their acquires (an acquire
 * of an active thread reuses it without the per-id lock): every acquire
 * succeeds with its own identity's sandbox and nothing is leaked. */
static void test_acquires_racing_destroys_all_succeed(void)
{
    CU_ASSERT_FATAL(mf_start() == 0);
    sbx_manager_config c = busy_config(0);
    sbx_manager *m = mf_open(&c);
    atomic_int failures = 0;
    run_workers(m, 0, 1, &failures);
    CU_ASSERT_EQUAL(atomic_load(&failures), 0);
    CU_ASSERT(mt_get_stats().destroys > 0);
    sbx_manager_counters n = mf_counters(m);
    CU_ASSERT_EQUAL(n.active + n.warm, (uint64_t)mt_count());
    sbx_manager_free(m);
    CU_ASSERT_EQUAL(mt_count(), 0);
    mf_stop();
}

typedef struct stopper_race {
    sbx_manager *m;
    int index;
    atomic_int *acquired;          /* acquires that succeeded, all workers */
    atomic_int failures;           /* errors other than "shut down" */
} stopper_race;

/* Acquire the worker's own thread until the manager refuses: shut down
 * (a failure after 30 s). */
static void *acquire_until_shut_down(void *arg)
{
    stopper_race *w = arg;
    char thread[32];
    snprintf(thread, sizeof thread, "until-%d", w->index);
    for (long deadline = sbx_test_now_ms() + 30000; sbx_test_now_ms() < deadline;) {
        sbx_create_request req = SBX_CREATE_REQUEST_INIT;
        req.thread_id = thread;
        sbx_managed *got = NULL;
        sbx_error err;
        sbx_status st = sbx_manager_acquire(w->m, &req, &got, &err);
        if (st == SBX_ERR_USAGE && strstr(err.message, "shut down") != NULL)
            return NULL;
        if (st != SBX_OK) {
            fprintf(stderr, "acquire %s: %s\n", thread, err.message);
            atomic_fetch_add(&w->failures, 1);
            return NULL;
        }
        sbx_managed_unref(got);
        atomic_fetch_add(w->acquired, 1);
    }
    fprintf(stderr, "acquire %s: never refused\n", thread);
    atomic_fetch_add(&w->failures, 1);
    return NULL;
}

/* Rule 15 under load: shutdown while every worker acquires in a loop.  Once
 * shutdown returns nothing is left on the backend, although the workers
 * are still calling acquire: none got past shutdown's listing. */
static void test_shutdown_racing_acquires_leaves_nothing(void)
{
    CU_ASSERT_FATAL(mf_start() == 0);
    sbx_manager_config c = busy_config(0);
    sbx_manager *m = mf_open(&c);
    atomic_int acquired = 0;
    pthread_t threads[WORKERS];
    stopper_race workers[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        workers[i] = (stopper_race){m, i, &acquired, 0};
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, acquire_until_shut_down,
                                       &workers[i]) == 0);
    }
    long deadline = sbx_test_now_ms() + 10000;
    while (atomic_load(&acquired) < 50 * WORKERS && sbx_test_now_ms() < deadline)
        sched_yield();
    CU_ASSERT(atomic_load(&acquired) >= 50 * WORKERS);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_shutdown(m, &err), SBX_OK);
    CU_ASSERT_EQUAL(mt_count(), 0);
    for (int i = 0; i < WORKERS; i++) {
        pthread_join(threads[i], NULL);
        CU_ASSERT_EQUAL(atomic_load(&workers[i].failures), 0);
    }
    CU_ASSERT_EQUAL(mt_count(), 0);
    sbx_manager_free(m);
    mf_stop();
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"racing acquires make one sandbox per thread",
         test_racing_acquires_make_one_sandbox_per_thread},
        {"acquires racing the idle reaper all succeed",
         test_acquires_racing_the_idle_reaper_all_succeed},
        {"acquires racing destroys all succeed", test_acquires_racing_destroys_all_succeed},
        {"shutdown racing acquires leaves nothing", test_shutdown_racing_acquires_leaves_nothing},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("manager threads", NULL, NULL, tests);
}
