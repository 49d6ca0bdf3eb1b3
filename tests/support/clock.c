/* The tests' clocks (see clock.h). */
#include <config.h>

#include "tests/support/clock.h"

long sbx_test_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

struct timespec sbx_test_deadline_in(int timeout_ms)
{
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    return deadline;
}

int64_t sbx_test_wall_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

void sbx_test_wait_wall_past(int64_t ms)
{
    int64_t after = ms + 1;
    struct timespec when = { (time_t)(after / 1000), (long)(after % 1000) * 1000000L };
    /* The kernel's own wait for that moment; a signal only restarts it. */
    while (sbx_test_wall_ms() <= ms)
        clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &when, NULL);
}
