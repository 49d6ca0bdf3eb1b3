/*
 * Thread helpers of the tests/remote suites: a latch that counts finished
 * workers and lets a test wait for them with a deadline (tests never sleep to
 * wait), starting and joining worker threads, the capabilities call as a
 * thread body, and callers piled behind one held capability probe.
 */
#ifndef SBX_TESTS_REMOTE_THREADS_H
#define SBX_TESTS_REMOTE_THREADS_H

#include <pthread.h>
#include <stddef.h>

#include "tests/remote/remote_fixture.h"

/* Counts arrivals; waiters wake when the count reaches their target. */
typedef struct sbx_rt_latch {
    pthread_mutex_t mutex;
    pthread_cond_t cond;   /* signalled on every arrival; CLOCK_MONOTONIC */
    int arrived;
} sbx_rt_latch;

/* Initialise a latch at zero arrivals.  Returns 1, or 0 when pthreads
 * cannot (then the latch must not be used). */
int sbx_rt_latch_init(sbx_rt_latch *latch);

/* sbx_rt_latch_init for a test holding the fixture `rt`: on failure a
 * CUnit failure is recorded and `rt` is stopped, and 0 tells the test to
 * return.  Returns 1 when the latch is ready. */
int sbx_rt_latch_init_or_stop(sbx_rt *rt, sbx_rt_latch *latch);

/* Release the latch's resources; no thread may still use it. */
void sbx_rt_latch_destroy(sbx_rt_latch *latch);

/* Record one arrival and wake the waiters.  Thread-safe. */
void sbx_rt_latch_arrive(sbx_rt_latch *latch);

/* Arrivals so far.  Thread-safe. */
int sbx_rt_latch_arrived(sbx_rt_latch *latch);

/* Wait until at least `target` arrivals or `timeout_ms` passed.  Returns 1
 * when the target was reached. */
int sbx_rt_latch_wait(sbx_rt_latch *latch, int target, int timeout_ms);

/* Start `n` threads running `body`, thread i on the element i of `args`
 * (an array of `arg_size`-byte elements).  Returns how many started (a
 * CUnit failure when not all). */
int sbx_rt_start_threads(pthread_t *threads, int n, void *(*body)(void *), void *args,
                         size_t arg_size);

/* Wait (bounded by `timeout_ms`) for `started` arrivals at `done`, then join
 * the threads.  When they do not all arrive in time (a CUnit failure) the
 * fixture's emulator is stopped first (rt->emu becomes NULL), which breaks
 * every pending request so that the threads can end. */
void sbx_rt_finish_threads(sbx_rt *rt, pthread_t *threads, int started,
                           sbx_rt_latch *done, int timeout_ms);

/* A backend call made on its own thread, and what it answered. */
typedef struct sbx_rt_call {
    sbx_rt *rt;
    sbx_rt_latch *done;    /* arrived at when the call returned */
    int result;
} sbx_rt_call;

/* Thread body: call->result = sbx_rt_contract(call->rt), then arrive. */
void *sbx_rt_contract_thread(void *call);

/* Pile callers behind one held capability probe (the test queued a "hold"
 * fault on the route): start sbx_rt_contract_thread on calls[0], wait until
 * the emulator holds its probe (the route's `received`-th request), start
 * `n_waiters` threads running `waiter` on calls[1..n_waiters], then wait
 * for the backend's "waiting for the capability probe in flight" line and
 * assert that no call has returned.  Returns how many threads started
 * (threads[] holds n_waiters + 1); the caller releases the route and
 * finishes them with sbx_rt_finish_threads. */
int sbx_rt_pile_behind_held_probe(sbx_rt *rt, pthread_t *threads, sbx_rt_call *calls,
                                  int received, int n_waiters, void *(*waiter)(void *));

#endif
