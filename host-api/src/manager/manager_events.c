/* The manager's clock, log and events (see manager_events.h). */
#include <config.h>

#include "host-api/src/manager/manager_events.h"

#include "host-api/src/manager/manager_internal.h"

#include <sbx/backend_support.h>

#include <stdarg.h>
#include <time.h>

int64_t mgr_monotonic_ms(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t mgr_now(const sbx_manager *m)
{
    return m->config.clock(m->config.clock_ctx);
}

void mgr_log(const sbx_manager *m, sbx_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sbx_backend_vlog(&m->log_services, level, "manager", fmt, ap);
    va_end(ap);
}

void mgr_event(sbx_manager *m, sbx_manager_event event, const char *id)
{
    atomic_uint_fast64_t *counter = event == SBX_MANAGER_EVENT_ADOPTED  ? &m->adopted
                                    : event == SBX_MANAGER_EVENT_REAPED ? &m->reaped
                                    : event == SBX_MANAGER_EVENT_EVICTED ? &m->evicted
                                    : event == SBX_MANAGER_EVENT_EXPIRED ? &m->expired
                                                                         : &m->lease_losses;
    atomic_fetch_add(counter, 1);
    if (m->config.event != NULL)
        m->config.event(m->config.event_ctx, event, id);
}
