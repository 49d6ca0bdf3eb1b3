/* Error records and error-kind names, shared by the host and every backend. */
#include <config.h>

#include <sbx/host.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *sbx_status_name(sbx_status status)
{
    switch (status) {
    case SBX_OK: return "ok";
    case SBX_ERR_USAGE: return "usage";
    case SBX_ERR_CONFIG: return "config";
    case SBX_ERR_TRANSPORT: return "transport";
    case SBX_ERR_PROTOCOL: return "protocol";
    case SBX_ERR_CONTRACT_CHANGED: return "contract_changed";
    case SBX_ERR_REFUSED: return "refused";
    case SBX_ERR_UNAUTHORIZED: return "unauthorized";
    case SBX_ERR_LOAD: return "load";
    case SBX_ERR_PROVISIONER: return "provisioner";
    case SBX_ERR_UNSUPPORTED: return "unsupported";
    case SBX_ERR_NOT_FOUND: return "not_found";
    case SBX_ERR_INTERNAL: return "internal";
    }
    return "internal";
}

void sbx_error_clear(sbx_error *err)
{
    if (err == NULL)
        return;
    err->kind = SBX_OK;
    err->http_status = 0;
    err->expected_contract = SBX_CONTRACT_NONE;
    err->actual_contract = SBX_CONTRACT_NONE;
    err->message[0] = '\0';
}

sbx_status sbx_error_set(sbx_error *err, sbx_status kind, const char *fmt, ...)
{
    if (err == NULL)
        return kind;
    sbx_error_clear(err);
    err->kind = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return kind;
}
