/* Error records and error-kind names for host programs: the host API's face
 * of the backend support helpers (<sbx/backend_support.h>), so that a host
 * and a backend fill and name errors alike. */
#include <config.h>

#include <sbx/backend_support.h>
#include <sbx/error.h>

#include <stdarg.h>

const char *sbx_status_name(sbx_status status)
{
    return sbx_backend_status_name(status);
}

void sbx_error_clear(sbx_error *err)
{
    if (err != NULL)
        sbx_backend_error_clear(err);
}

sbx_status sbx_error_set(sbx_error *err, sbx_status kind, const char *fmt, ...)
{
    if (err == NULL)
        return kind;
    va_list ap;
    va_start(ap, fmt);
    sbx_backend_error_setv(err, kind, fmt, ap);
    va_end(ap);
    return kind;
}
