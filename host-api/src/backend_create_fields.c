/* The members of the create request of ABI 1.5 (image, env, labels, limits,
 * network, expiry) as the host checks them before any backend sees them:
 * malformed values and members the backend does not honour are refused
 * before anything is created. */
#include <config.h>

#include "host-api/src/host_internal.h"

#include "common/create_request.h"

#include <stdio.h>

/* The SBX_CREATE_* bits backend `b` honours: none for a module built
 * before 1.5 (it cannot read the members) or without operations_info. */
static unsigned honoured_fields(sbx_backend *b)
{
    if (b->descriptor->abi_minor < 5 && b->descriptor->abi_major == 1)
        return 0;
    sbx_operations_info info = { .struct_size = sizeof info };
    sbx_error ignored;
    if (sbx_backend_operations_info(b, &info, &ignored) != SBX_OK)
        return 0;
    return info.create_fields;
}

sbx_status host_check_create_request(sbx_backend *b, const sbx_create_request *request,
                                     sbx_error *err)
{
    /* A request too small for 1.4 is the backend's to refuse, as before. */
    if (request == NULL || request->struct_size < SBX_CREATE_REQUEST_SIZE_1_4)
        return SBX_OK;
    sbx_create_request full;
    common_create_request_read(request, &full);
    if (common_create_request_fields_set(&full) == 0)
        return SBX_OK;  /* today's request: the backend is not asked */
    sbx_status st = common_create_request_check_fields(&full, err);
    if (st != SBX_OK)
        return st;
    char prefix[96];
    snprintf(prefix, sizeof prefix, "backend '%s' (ABI %u.%u)", b->descriptor->name,
             (unsigned)b->descriptor->abi_major, (unsigned)b->descriptor->abi_minor);
    return common_create_request_refuse_unhonoured(prefix, &full, honoured_fields(b), err);
}
