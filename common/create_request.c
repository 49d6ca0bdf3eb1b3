/* Create request checks shared by the backends (see create_request.h). */
#include <config.h>

#include "common/create_request.h"

#include "common/sandbox_ids.h"

#include <sbx/backend_support.h>

#include <stddef.h>
#include <string.h>

sbx_status common_create_request_check(const char *backend, const sbx_create_request *req,
                                       sbx_error *err)
{
    /* A smaller struct_size is a caller built against another ABI: the
     * fields we would read are not there. */
    if (req == NULL ||
        req->struct_size < offsetof(sbx_create_request, required_contract) + sizeof(int))
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "%s: create request missing or built for another ABI "
                                     "(initialise it with SBX_CREATE_REQUEST_INIT)", backend);
    sbx_status st = common_check_sandbox_id(req->sandbox_id, err);
    if (st == SBX_OK)
        st = common_check_principal_id("thread_id", req->thread_id, err);
    if (st == SBX_OK)
        st = common_check_principal_id("user_id", req->user_id, err);
    return st;
}

const char *common_create_request_user(const sbx_create_request *req)
{
    return req->user_id != NULL ? req->user_id : COMMON_DEFAULT_USER_ID;
}

/* Equal as owners: NULL and "" both mean "none". */
static int same_principal(const char *a, const char *b)
{
    if (a == NULL || a[0] == '\0')
        return b == NULL || b[0] == '\0';
    return b != NULL && strcmp(a, b) == 0;
}

sbx_status common_create_request_check_owner(const char *backend, const sbx_create_request *req,
                                             const char *found_user, const char *found_thread,
                                             sbx_error *err)
{
    const char *user = found_user != NULL && found_user[0] != '\0' ? found_user
                                                                  : COMMON_DEFAULT_USER_ID;
    if (strcmp(user, common_create_request_user(req)) != 0)
        return sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                     "%s: sandbox '%s' exists and belongs to another user",
                                     backend, req->sandbox_id);
    if (!same_principal(found_thread, req->thread_id))
        return sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                     "%s: sandbox '%s' exists and belongs to another thread",
                                     backend, req->sandbox_id);
    return SBX_OK;
}
