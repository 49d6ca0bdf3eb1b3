/*
 * Reading the times backends are given (a local record's "created", a
 * container engine's "Created") as the milliseconds of
 * sbx_sandbox_record.created_at.  Pure functions, thread-safe.
 */
#ifndef SBX_COMMON_ISO_TIME_H
#define SBX_COMMON_ISO_TIME_H

#include <stdint.h>

/* *ms = the milliseconds since the Unix epoch of an RFC 3339 time,
 * "YYYY-MM-DDTHH:MM:SS" with an optional fraction (cut to milliseconds)
 * and "Z" or an offset "+HH:MM" / "-HH:MM".  Returns 1, or 0 (and leaves
 * *ms alone) when `text` is not exactly of that form or names no valid
 * date and time. */
int common_time_parse_rfc3339(const char *text, int64_t *ms);

#endif
