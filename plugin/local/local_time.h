/*
 * The clocks and pauses of the local backend's bounded waits
 * (locks, stopping processes).
 */
#ifndef SBX_LOCAL_TIME_H
#define SBX_LOCAL_TIME_H

/* Milliseconds of CLOCK_MONOTONIC: only differences are meaningful. */
long local_now_ms(void);

/* Milliseconds since the Unix epoch (CLOCK_REALTIME), for what is shown. */
long long local_epoch_ms(void);

/* Sleep about `ms` milliseconds (less when a signal interrupts). */
void local_pause_ms(long ms);

#endif
