/* The remote backend's extend (see remote_extend.h). */
#include <config.h>

#include "plugin/remote/remote_extend.h"

#include "common/json_fields.h"
#include "common/sandbox_ids.h"
#include "plugin/remote/remote_answer_errors.h"
#include "plugin/remote/remote_lookup.h"

#include <sbx/backend_support.h>

#include <inttypes.h>
#include <stdio.h>

int remote_decode_extend(const char *body, size_t len)
{
    int too_deep;
    struct json_object *root = common_json_parse_ex(body, len, &too_deep);
    int extend = 0;
    int got = common_json_get_bool(root, "extend", &extend) == COMMON_JSON_OK;
    json_object_put(root);
    return got && extend;
}

/* SBX_ERR_UNSUPPORTED when the provisioner does not serve extend, saying
 * why; else SBX_OK. */
static sbx_status check_advertised(sbx_backend_instance *inst, sbx_error *err)
{
    remote_contract_state state;
    remote_contract_cache_current(&inst->contract, &state);
    if (!state.known)
        return sbx_backend_error_set(
            err, SBX_ERR_UNSUPPORTED,
            "backend 'remote': extend needs the provisioner's capabilities, which are "
            "unverified (%s)", state.failure[0] != '\0' ? state.failure : "no answer yet");
    if (!state.extend)
        return sbx_backend_error_set(
            err, SBX_ERR_UNSUPPORTED,
            "backend 'remote': the provisioner does not serve extend (its capabilities do "
            "not say \"extend\":true; DeerFlow's provisioner has no such route)");
    return SBX_OK;
}

sbx_status remote_extend(sbx_backend_instance *inst, const char *sandbox_id, int64_t expires_at,
                         sbx_error *err)
{
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st == SBX_OK)
        st = check_advertised(inst, err);
    if (st != SBX_OK)
        return st;
    char path[128], body[48], what[128];
    snprintf(path, sizeof path, "%s%s/extend", REMOTE_SANDBOXES_PREFIX, sandbox_id);
    snprintf(body, sizeof body, "{\"expires_at\":%" PRId64 "}", expires_at);
    remote_call_name(what, "extend", sandbox_id);
    common_http_response resp;
    sbx_error cause;
    sbx_backend_error_clear(&cause);
    common_http_call post = {.method = "POST", .path = path, .json_body = body,
                             .timeout_ms = inst->options.get_timeout_ms};
    st = common_http_perform(inst->http, &post, &resp, &cause);
    if (st != SBX_OK)
        return remote_wrap_error(&cause, what, err);
    if (resp.status == 200) {
        REMOTE_LOG(inst, SBX_LOG_INFO, "sandbox %s now expires at %" PRId64, sandbox_id,
                   expires_at);
    } else {
        st = remote_answer_error(&inst->options, &resp, what, err);
        /* The provisioner's own words say which member is at fault. */
        if (resp.status == 404)
            st = err->kind = SBX_ERR_NOT_FOUND;
        else if (resp.status == 400 || resp.status == 422)
            st = err->kind = SBX_ERR_USAGE;
    }
    common_http_response_clear(&resp);
    return st;
}
