/*
 * Logging for backends: formats one line and hands it to the host's log
 * callback (backend.h: backends never print).  Shared by every backend.
 */
#ifndef SBX_COMMON_BACKEND_LOG_H
#define SBX_COMMON_BACKEND_LOG_H

#include <stdarg.h>
#include <sbx/backend.h>

/* Format a line (truncated to 1 KiB) and pass it to services->log with the
 * backend's name.  Does nothing when `services` or its callback is NULL or
 * the host's struct is too small to hold the callback.  Thread-safe as far
 * as the callback is. */
void common_backend_logf(const sbx_host_services *services, sbx_log_level level,
                         const char *backend, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* common_backend_logf with the arguments in a va_list (for wrappers). */
void common_backend_vlogf(const sbx_host_services *services, sbx_log_level level,
                          const char *backend, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 0)))
#endif
    ;

#endif
