/* Clock and pauses (see local_time.h). */
#include <config.h>

#include "plugin/local/local_time.h"

#include <time.h>

long local_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

void local_pause_ms(long ms)
{
    struct timespec pause = { ms / 1000L, (ms % 1000L) * 1000000L };
    nanosleep(&pause, NULL);
}

long long local_epoch_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000LL + ts.tv_nsec / 1000000L;
}
