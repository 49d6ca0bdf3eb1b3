/*
 * Thread helper of the tests/remote suites: a latch that counts finished
 * workers and lets a test wait for them with a deadline (tests never sleep to
 * wait).
 */
#ifndef SBX_TESTS_REMOTE_THREADS_H
#define SBX_TESTS_REMOTE_THREADS_H

#include <pthread.h>

/* Counts arrivals; waiters wake when the count reaches their target. */
typedef struct sbx_rt_latch {
    pthread_mutex_t mutex;
    pthread_cond_t cond;   /* signalled on every arrival; CLOCK_MONOTONIC */
    int arrived;
} sbx_rt_latch;

/* Initialise a latch at zero arrivals.  Returns 1, or 0 when pthreads
 * cannot (then the latch must not be used). */
int sbx_rt_latch_init(sbx_rt_latch *latch);

/* Release the latch's resources; no thread may still use it. */
void sbx_rt_latch_destroy(sbx_rt_latch *latch);

/* Record one arrival and wake the waiters.  Thread-safe. */
void sbx_rt_latch_arrive(sbx_rt_latch *latch);

/* Arrivals so far.  Thread-safe. */
int sbx_rt_latch_arrived(sbx_rt_latch *latch);

/* Wait until at least `target` arrivals or `timeout_ms` passed.  Returns 1
 * when the target was reached. */
int sbx_rt_latch_wait(sbx_rt_latch *latch, int target, int timeout_ms);

#endif
