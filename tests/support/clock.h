/* Test support: the monotonic clock tests measure and bound waits with
 * (tests never sleep; they wait on a condition until a deadline), and the
 * wall clock that records' creation times are checked against. */
#ifndef SBX_TEST_CLOCK_H
#define SBX_TEST_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Milliseconds on CLOCK_MONOTONIC (wall-clock jumps do not move it). */
long sbx_test_now_ms(void);

/* The CLOCK_MONOTONIC time `timeout_ms` from now, as pthread_cond_timedwait
 * wants it for a condition variable set to that clock. */
struct timespec sbx_test_deadline_in(int timeout_ms);

/* Milliseconds since the epoch on CLOCK_REALTIME, as a record's created_at. */
int64_t sbx_test_wall_ms(void);

/* Return once the wall clock (CLOCK_REALTIME) is past `ms` since the
 * epoch: the condition an expiry test awaits (an absolute expiry is that
 * clock's), waited for by the kernel, not polled. */
void sbx_test_wait_wall_past(int64_t ms);

/* ready_timeout_ms for a sandbox whose server must start in a test: the
 * backends' default of 5 s was too short for python3's start at a load
 * of 36 on two cores; a correct run never waits for all of it. */
#define SBX_TEST_READY_TIMEOUT_MS "120000"

#endif
