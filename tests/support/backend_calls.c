/* Backend calls of the backend suites (see backend_calls.h). */
#include <config.h>

#include "tests/support/backend_calls.h"

#include <CUnit/CUnit.h>

sbx_sandbox *sbx_test_create(sbx_backend *b, const char *id, const char *thread,
                             const char *user, const sbx_mount *mounts, size_t n_mounts,
                             sbx_error *err)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.thread_id = thread;
    req.user_id = user;
    req.extra_mounts = mounts;
    req.extra_mount_count = n_mounts;
    sbx_sandbox *sb = NULL;
    if (sbx_backend_create(b, &req, &sb, err) != SBX_OK)
        return NULL;
    return sb;
}

int sbx_test_is_alive(sbx_backend *b, const char *id)
{
    int alive = -1;
    sbx_error err;
    CU_ASSERT(sbx_backend_is_alive(b, id, &alive, &err) == SBX_OK);
    return alive;
}
