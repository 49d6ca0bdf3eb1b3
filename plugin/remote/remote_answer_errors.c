/* Error records for failed calls (see remote_answer_errors.h). */
#include <config.h>

#include "plugin/remote/remote_answer_errors.h"

#include "common/redact.h"
#include "plugin/remote/remote_decode.h"

#include <sbx/backend_support.h>

#include <stdlib.h>
#include <string.h>

/* The bytes of a provisioner's detail a message shows, with the NUL. */
#define DETAIL_SHOWN 320

/* The provisioner's detail in `resp` into detail[DETAIL_SHOWN] with whole
 * occurrences of `key` masked.  The detail is read with room for a whole
 * key past where it is cut, and masked before the cut, so that a key
 * standing across the cut is hidden rather than shown up to it.  Out of
 * memory: no detail (""). */
static void masked_detail(const char *key, const common_http_response *resp,
                          char detail[DETAIL_SHOWN])
{
    size_t raw_cap = DETAIL_SHOWN + (key != NULL ? strlen(key) : 0);
    /* each byte may become a mask (a one-byte key) */
    size_t masked_cap = (sizeof COMMON_REDACT_MASK - 1) * raw_cap;
    char *raw = malloc(raw_cap), *masked = malloc(masked_cap);
    detail[0] = '\0';
    if (raw != NULL && masked != NULL) {
        remote_detail_text(resp->body, resp->body_len, raw, raw_cap);
        common_redact_secret(raw, key, masked, masked_cap);
        sbx_backend_format(detail, DETAIL_SHOWN, "%s", masked);
    }
    free(raw);
    free(masked);
}

sbx_status remote_answer_error(const remote_options *opts,
                               const common_http_response *resp, const char *what,
                               sbx_error *err)
{
    char detail[DETAIL_SHOWN];
    masked_detail(opts->api_key, resp, detail);
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
