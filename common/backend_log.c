/* Backend log lines through the host's callback (see backend_log.h). */
#include <config.h>

#include "common/backend_log.h"

#include <stdarg.h>
#include <stdio.h>

void common_backend_vlogf(const sbx_host_services *services, sbx_log_level level,
                          const char *backend, const char *fmt, va_list ap)
{
    if (services == NULL ||
        services->struct_size < offsetof(sbx_host_services, log_ctx) + sizeof services->log_ctx ||
        services->log == NULL)
        return;
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    services->log(services->log_ctx, level, backend, line);
}

void common_backend_logf(const sbx_host_services *services, sbx_log_level level,
                         const char *backend, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    common_backend_vlogf(services, level, backend, fmt, ap);
    va_end(ap);
}
