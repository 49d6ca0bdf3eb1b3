/* Thread helpers of the tests/remote suites (see remote_threads.h). */
#include <config.h>

#include "tests/remote/remote_threads.h"

#include "tests/support/clock.h"

#include <CUnit/CUnit.h>
#include <time.h>

int sbx_rt_latch_init(sbx_rt_latch *latch)
{
    pthread_condattr_t attr;
    latch->arrived = 0;
    if (pthread_condattr_init(&attr) != 0)
        return 0;
    /* a monotonic deadline: wall-clock jumps must not stretch a wait */
    int ok = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
             pthread_cond_init(&latch->cond, &attr) == 0;
    pthread_condattr_destroy(&attr);
    if (!ok)
        return 0;
    if (pthread_mutex_init(&latch->mutex, NULL) != 0) {
        pthread_cond_destroy(&latch->cond);
        return 0;
    }
    return 1;
}

int sbx_rt_latch_init_or_stop(sbx_rt *rt, sbx_rt_latch *latch)
{
    if (sbx_rt_latch_init(latch))
        return 1;
    CU_FAIL("latch");
    sbx_rt_stop(rt);
    return 0;
}

void sbx_rt_latch_destroy(sbx_rt_latch *latch)
{
    pthread_cond_destroy(&latch->cond);
    pthread_mutex_destroy(&latch->mutex);
}

void sbx_rt_latch_arrive(sbx_rt_latch *latch)
{
    pthread_mutex_lock(&latch->mutex);
    latch->arrived++;
    pthread_cond_broadcast(&latch->cond);
    pthread_mutex_unlock(&latch->mutex);
}

int sbx_rt_latch_arrived(sbx_rt_latch *latch)
{
    pthread_mutex_lock(&latch->mutex);
    int arrived = latch->arrived;
    pthread_mutex_unlock(&latch->mutex);
    return arrived;
}

int sbx_rt_latch_wait(sbx_rt_latch *latch, int target, int timeout_ms)
{
    struct timespec deadline = sbx_test_deadline_in(timeout_ms);
    pthread_mutex_lock(&latch->mutex);
    int timed_out = 0;
    while (latch->arrived < target && !timed_out)
        timed_out = pthread_cond_timedwait(&latch->cond, &latch->mutex, &deadline) != 0;
    int reached = latch->arrived >= target;
    pthread_mutex_unlock(&latch->mutex);
    return reached;
}

int sbx_rt_start_threads(pthread_t *threads, int n, void *(*body)(void *), void *args,
                         size_t arg_size)
{
    int started = 0;
    while (started < n &&
           pthread_create(&threads[started], NULL, body,
                          (char *)args + (size_t)started * arg_size) == 0)
        started++;
    CU_ASSERT_EQUAL(started, n);
    return started;
}

void sbx_rt_finish_threads(sbx_rt *rt, pthread_t *threads, int started,
                           sbx_rt_latch *done, int timeout_ms)
{
    int finished = sbx_rt_latch_wait(done, started, timeout_ms);
    CU_ASSERT(finished);
    if (!finished) {
        sbx_test_emu_stop(rt->emu);
        rt->emu = NULL;
    }
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
}

void *sbx_rt_contract_thread(void *call)
{
    sbx_rt_call *c = call;
    c->result = sbx_rt_contract(c->rt);
    sbx_rt_latch_arrive(c->done);
    return NULL;
}

int sbx_rt_pile_behind_held_probe(sbx_rt *rt, pthread_t *threads, sbx_rt_call *calls,
                                  int received, int n_waiters, void *(*waiter)(void *))
{
    int started = sbx_rt_start_threads(threads, 1, sbx_rt_contract_thread, calls,
                                       sizeof(sbx_rt_call));
    CU_ASSERT(sbx_test_emu_wait(rt->emu, "capabilities", received, 1, 5000));
    started += sbx_rt_start_threads(threads + 1, n_waiters, waiter, calls + 1,
                                    sizeof(sbx_rt_call));
    CU_ASSERT(sbx_test_log_wait(rt->log, "waiting for the capability probe in flight", 5000));
    CU_ASSERT_EQUAL(sbx_rt_latch_arrived(calls[0].done), 0);
    return started;
}
