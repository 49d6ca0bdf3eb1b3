/* Opening a sandbox's file for the caller to read (ABI 1.6's open_file)
 * as the host hands it out: a module of an older minor, or one without
 * the call, answers "unsupported"; a descriptor a backend answers is
 * checked before the caller takes it. */
#include <config.h>

#include "host-api/src/host_internal.h"

sbx_status sbx_backend_open_file(sbx_backend *b, const char *sandbox_id, const char *path,
                                 int *fd, uint64_t *size, sbx_error *err)
{
    *fd = -1;
    *size = 0;
    sbx_error_clear(err);
    if (!HOST_HAS_OP(b->descriptor, open_file))
        return host_unsupported(b, "open_file", err);
    if (sandbox_id == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "open_file: a sandbox id is required");
    if (path == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "open_file: a path is required");
    sbx_status st = host_checked(
        b, b->descriptor->open_file(b->instance, sandbox_id, path, fd, size, err), "open_file",
        err);
    if (st != SBX_OK) {
        *fd = -1;
        *size = 0;
        return st;
    }
    if (*fd < 0)
        return host_malformed(b, "open_file", "no descriptor", err);
    return SBX_OK;
}
