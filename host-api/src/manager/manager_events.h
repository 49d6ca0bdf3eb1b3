/*
 * What the manager tells the host: its clock, its log lines and its events
 * (counted, then reported to the configured callback).
 */
#ifndef SBX_MANAGER_EVENTS_H
#define SBX_MANAGER_EVENTS_H

#include <sbx/manager.h>

/* CLOCK_MONOTONIC in ms: the clock of a manager configured without one
 * (`ctx` unused). */
int64_t mgr_monotonic_ms(void *ctx);

/* The manager's clock (configured, else CLOCK_MONOTONIC), in ms. */
int64_t mgr_now(const sbx_manager *m);

/* Count `event` of sandbox `id` and report it to the configured callback.
 * Call with no manager lock held. */
void mgr_event(sbx_manager *m, sbx_manager_event event, const char *id);

/* A log line through the configured callback. */
void mgr_log(const sbx_manager *m, sbx_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
