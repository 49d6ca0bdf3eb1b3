/*
 * The manager's per-thread-slot primitives (reader_lock.h, split_count.h)
 * under many threads: the lock excludes writers from readers and from each
 * other, and a split reference count frees its object exactly once, after
 * the last reference, whichever threads take and drop them.  Run by CI
 * under ThreadSanitizer too, which checks the orderings the comments claim.
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "host-api/src/manager/reader_lock.h"
#include "host-api/src/manager/split_count.h"
#include "tests/support/cunit_main.h"

/* More threads than slots, so that some share a slot. */
#define THREADS (MGR_SLOT_COUNT + 4)
#define ROUNDS 20000

/* ---------------------------------------------------------------- lock */

typedef struct guarded {
    mgr_reader_lock lock;
    long first, second;            /* equal outside a write: plain memory */
    atomic_int torn_reads;         /* readers that saw them differ */
    atomic_int writers_inside;
    atomic_int overlapping_writes; /* a writer that found another inside */
    pthread_barrier_t start;
} guarded;

static void *lock_worker(void *arg)
{
    guarded *g = arg;
    unsigned seed = (unsigned)(size_t)&seed;
    pthread_barrier_wait(&g->start);
    for (int i = 0; i < ROUNDS; i++) {
        seed = seed * 1103515245u + 12345u;
        if ((seed >> 16) % 32 == 0) {
            mgr_write_lock(&g->lock);
            if (atomic_fetch_add(&g->writers_inside, 1) != 0)
                atomic_fetch_add(&g->overlapping_writes, 1);
            g->first++;
            sched_yield();         /* widen the window a reader could see */
            g->second++;
            atomic_fetch_sub(&g->writers_inside, 1);
            mgr_write_unlock(&g->lock);
        } else {
            mgr_read_lock(&g->lock);
            if (g->first != g->second)
                atomic_fetch_add(&g->torn_reads, 1);
            mgr_read_unlock(&g->lock);
        }
    }
    return NULL;
}

static void test_readers_never_see_a_write_in_progress(void)
{
    guarded *g = calloc(1, sizeof *g);
    CU_ASSERT_FATAL(g != NULL);
    CU_ASSERT_FATAL(mgr_reader_lock_init(&g->lock) == 0);
    CU_ASSERT_FATAL(pthread_barrier_init(&g->start, NULL, THREADS) == 0);
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, lock_worker, g) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    CU_ASSERT_EQUAL(atomic_load(&g->torn_reads), 0);
    CU_ASSERT_EQUAL(atomic_load(&g->overlapping_writes), 0);
    CU_ASSERT(g->first > 0);
    CU_ASSERT_EQUAL(g->first, g->second);
    /* Every hold was released: a writer gets in at once. */
    mgr_write_lock(&g->lock);
    mgr_write_unlock(&g->lock);
    pthread_barrier_destroy(&g->start);
    mgr_reader_lock_destroy(&g->lock);
    free(g);
}

/* ---------------------------------------------------------------- count */

typedef struct counted {
    mgr_split_count refs;
    atomic_int alive;              /* 1 until freed: a use after free reads 0 */
} counted;

static atomic_int frees;

static void counted_free(counted *c)
{
    atomic_store(&c->alive, 0);
    atomic_fetch_add(&frees, 1);
    /* Kept (leaked to the test's end) so that a late use is seen as
     * alive == 0 rather than undefined behaviour. */
}

typedef struct holder {
    counted *object;
    counted *handed_in;            /* a reference another thread took for us */
    atomic_int *dead_uses;
    atomic_int *early_zero;        /* a sub that reported zero while we held one */
    pthread_barrier_t *start;
} holder;

static void drop(counted *c)
{
    if (mgr_split_count_sub(&c->refs))
        counted_free(c);
}

static void *count_worker(void *arg)
{
    holder *h = arg;
    pthread_barrier_wait(h->start);
    for (int i = 0; i < ROUNDS; i++) {
        mgr_split_count_add(&h->object->refs);
        if (!atomic_load(&h->object->alive))
            atomic_fetch_add(h->dead_uses, 1);
        /* The handed-in reference is still held: this cannot be the last. */
        if (mgr_split_count_sub(&h->object->refs))
            atomic_fetch_add(h->early_zero, 1);
    }
    /* Drop, on this thread, the reference the main thread took. */
    drop(h->handed_in);
    return NULL;
}

static void run_count(int retire_before_start)
{
    atomic_store(&frees, 0);
    counted *c = calloc(1, sizeof *c);
    CU_ASSERT_FATAL(c != NULL);
    mgr_split_count_init(&c->refs);
    atomic_init(&c->alive, 1);
    atomic_int dead_uses = 0, early_zero = 0;
    pthread_barrier_t start;
    CU_ASSERT_FATAL(pthread_barrier_init(&start, NULL, THREADS + 1) == 0);
    holder holders[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        mgr_split_count_add(&c->refs); /* taken here, dropped by the worker */
        holders[i] = (holder){.object = c, .handed_in = c, .dead_uses = &dead_uses,
                              .early_zero = &early_zero, .start = &start};
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, count_worker, &holders[i]) == 0);
    }
    int retired_last = 0;
    if (retire_before_start)
        retired_last = mgr_split_count_retire(&c->refs);
    pthread_barrier_wait(&start);
    if (!retire_before_start) {
        sched_yield();             /* retire while the workers run */
        retired_last = mgr_split_count_retire(&c->refs);
    }
    if (retired_last)
        counted_free(c);
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    CU_ASSERT_EQUAL(atomic_load(&dead_uses), 0);
    CU_ASSERT_EQUAL(atomic_load(&early_zero), 0);
    CU_ASSERT_EQUAL(atomic_load(&frees), 1);
    CU_ASSERT_EQUAL(atomic_load(&c->alive), 0);
    pthread_barrier_destroy(&start);
    free(c);
}

static void test_count_retired_while_threads_count_frees_once(void)
{
    run_count(0);
}

static void test_count_retired_first_frees_at_the_last_drop(void)
{
    run_count(1);
}

static void test_count_alone(void)
{
    atomic_store(&frees, 0);
    counted c;
    mgr_split_count_init(&c.refs);
    CU_ASSERT_EQUAL(mgr_split_count_retire(&c.refs), 1); /* only the anchor */

    mgr_split_count_init(&c.refs);
    mgr_split_count_add(&c.refs);
    mgr_split_count_add(&c.refs);
    CU_ASSERT_EQUAL(mgr_split_count_sub(&c.refs), 0);  /* anchor and one left */
    CU_ASSERT_EQUAL(mgr_split_count_retire(&c.refs), 0);
    mgr_split_count_add(&c.refs);                       /* after retirement too */
    CU_ASSERT_EQUAL(mgr_split_count_sub(&c.refs), 0);
    CU_ASSERT_EQUAL(mgr_split_count_sub(&c.refs), 1);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"readers never see a write in progress", test_readers_never_see_a_write_in_progress},
        {"split count: one thread", test_count_alone},
        {"split count retired while threads count frees once",
         test_count_retired_while_threads_count_frees_once},
        {"split count retired first frees at the last drop",
         test_count_retired_first_frees_at_the_last_drop},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("manager thread slots", NULL, NULL, tests);
}
