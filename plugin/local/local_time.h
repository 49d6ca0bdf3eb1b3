/*
 * The monotonic clock and pauses of the local backend's bounded waits
 * (locks, stopping processes).
 */
#ifndef SBX_LOCAL_TIME_H
#define SBX_LOCAL_TIME_H

/* Milliseconds of CLOCK_MONOTONIC: only differences are meaningful. */
long local_now_ms(void);

/* Sleep about `ms` milliseconds (less when a signal interrupts). */
void local_pause_ms(long ms);

#endif
