/* Error records for failed calls (see remote_answer_errors.h). */
#include <config.h>

#include "plugin/remote/remote_answer_errors.h"

#include "common/redact.h"
#include "plugin/remote/remote_decode.h"

#include <sbx/backend_support.h>

#include <string.h>

sbx_status remote_answer_error(const sbx_backend_instance *inst,
                               const common_http_response *resp, const char *what,
                               sbx_error *err)
{
    /* The mask may be longer than a (very short) secret it hides: room for
     * every character of raw to become one. */
    char raw[320], detail[sizeof raw * (sizeof COMMON_REDACT_MASK - 1)];
    remote_detail_text(resp->body, resp->body_len, raw, sizeof raw);
    common_redact_secret(raw, inst->options.api_key, detail, sizeof detail);
    sbx_status kind = SBX_ERR_PROTOCOL;
    if (resp->status == 401 || resp->status == 403)
        kind = SBX_ERR_UNAUTHORIZED;
    else if (resp->status == 409)
        kind = SBX_ERR_REFUSED; /* the id belongs to another user, thread or mount set */
    else if (resp->status >= 400)
        kind = SBX_ERR_PROVISIONER;
    const char *note = "";
    if (resp->status >= 300 && resp->status < 400)
        note = " (redirects are not followed)";
    else if (kind == SBX_ERR_PROTOCOL)
        note = " (unexpected status)";
    sbx_backend_error_set(err, kind, "%s: HTTP %ld%s%s%s", what, resp->status,
                          detail[0] != '\0' ? " " : "", detail, note);
    err->http_status = (int)resp->status;
    return kind;
}

sbx_status remote_wrap_error(const sbx_error *cause, const char *what, sbx_error *err)
{
    *err = *cause;
    return sbx_backend_error_prefix(err, "%s", what);
}
