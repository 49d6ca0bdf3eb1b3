/*
 * Sandbox expiry (ABI 1.5's expires_at): the wall clock it is measured
 * against, the check of an expiry a caller passes in, and the test of
 * whether a sandbox is past its own.  Pure functions but for the clock
 * read; thread-safe.
 */
#ifndef SBX_COMMON_EXPIRY_H
#define SBX_COMMON_EXPIRY_H

#include <sbx/backend.h>

#include <stdint.h>

/* Milliseconds since the Unix epoch now (CLOCK_REALTIME, not the coarse
 * clock time() reads). */
int64_t common_epoch_now_ms(void);

/* SBX_ERR_USAGE, the message prefixed with `what` and naming expires_at,
 * when `expires_at` is not after `now_ms`; else SBX_OK. */
sbx_status common_expiry_check_future(const char *what, int64_t expires_at, int64_t now_ms,
                                      sbx_error *err);

/* Non-zero when a sandbox expiring at `expires_at` (SBX_TIME_UNKNOWN:
 * never) is past it at `now_ms`. */
int common_expiry_passed(int64_t expires_at, int64_t now_ms);

#endif
