/* The built-in backends' mount contract (see mount_contract.h). */
#include <config.h>

#include "common/mount_contract.h"

#include <sbx/backend_support.h>

sbx_status common_builtin_capabilities(sbx_backend_instance *inst, sbx_capabilities *out,
                                       sbx_error *err)
{
    (void)inst;
    (void)err;
    out->mount_contract_version = COMMON_BUILTIN_CONTRACT;
    out->known = 1;
    return SBX_OK;
}

sbx_status common_builtin_contract_check(const char *backend, const sbx_create_request *req,
                                         sbx_error *err)
{
    if (req->required_contract == SBX_CONTRACT_NONE ||
        req->required_contract == COMMON_BUILTIN_CONTRACT)
        return SBX_OK;
    /* The same words as the remote backend's, so that a host tells a moved
     * contract from any other refusal whatever the backend. */
    sbx_backend_error_set(err, SBX_ERR_CONTRACT_CHANGED,
                          "%s: mount contract changed for %s: the caller's required version "
                          "is not the backend's (expected version %d, actual %d)",
                          backend, req->sandbox_id, req->required_contract,
                          COMMON_BUILTIN_CONTRACT);
    err->expected_contract = req->required_contract;
    err->actual_contract = COMMON_BUILTIN_CONTRACT;
    return SBX_ERR_CONTRACT_CHANGED;
}
