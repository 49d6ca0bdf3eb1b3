/* The latch of the tests/remote suites (see remote_threads.h). */
#include "tests/remote/remote_threads.h"

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
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&latch->mutex);
    int timed_out = 0;
    while (latch->arrived < target && !timed_out)
        timed_out = pthread_cond_timedwait(&latch->cond, &latch->mutex, &deadline) != 0;
    int reached = latch->arrived >= target;
    pthread_mutex_unlock(&latch->mutex);
    return reached;
}
