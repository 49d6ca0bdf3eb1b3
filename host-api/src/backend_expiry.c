/* Moving a sandbox's expiry (ABI 1.5's extend) as the host hands it out:
 * the expiry is checked before any backend sees it. */
#include <config.h>

#include "host-api/src/host_internal.h"

#include "common/expiry.h"

sbx_status sbx_backend_extend(sbx_backend *b, const char *sandbox_id, int64_t expires_at,
                              sbx_error *err)
{
    sbx_error_clear(err);
    if (sandbox_id == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "extend: no sandbox id");
    sbx_status st = common_expiry_check_future("extend", expires_at, common_epoch_now_ms(), err);
    if (st != SBX_OK)
        return st;
    if (!HOST_HAS_OP(b->descriptor, extend))
        return host_unsupported(b, "extend", err);
    return host_checked(b, b->descriptor->extend(b->instance, sandbox_id, expires_at, err),
                        "extend", err);
}
