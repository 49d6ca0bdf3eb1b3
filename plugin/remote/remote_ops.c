/* destroy, is_alive, discover, list, capabilities, reconcile (see remote_ops.h). */
#include <config.h>

#include "plugin/remote/remote_ops.h"

#include "common/json_fields.h"
#include "common/sandbox_ids.h"
#include "common/sandbox_records.h"
#include "plugin/remote/remote_answer_errors.h"
#include "plugin/remote/remote_decode.h"
#include "plugin/remote/remote_json_scan.h"
#include "plugin/remote/remote_list_stream.h"
#include "plugin/remote/remote_lookup.h"
#include "plugin/remote/remote_sandbox_answer.h"
#include "plugin/remote/remote_sandbox_clients.h"

#include <sbx/backend_support.h>

#include <stdio.h>
#include <string.h>

#define REMOTE_RECONCILIATION_PREFIX "/api/reconciliation/sandboxes/"

sbx_status remote_destroy(sbx_backend_instance *inst, const char *sandbox_id,
                          sbx_error *err)
{
    char what[128];
    common_http_response resp;
    remote_sandbox_call call = { .method = "DELETE", .prefix = REMOTE_SANDBOXES_PREFIX,
                                 .sandbox_id = sandbox_id, .action = "destroy",
                                 .timeout_ms = inst->options.destroy_timeout_ms };
    /* Whatever the answer, the id's next incarnation is asked its home. */
    remote_sandbox_clients_forget_homes(&inst->sandboxes, sandbox_id);
    remote_address_cache_forget(&inst->addresses, sandbox_id);
    sbx_status st = remote_start_sandbox_call(inst, &call, &resp, err);
    if (st != SBX_OK)
        return st;
    if ((resp.status >= 200 && resp.status < 300) || resp.status == 404)
        REMOTE_LOG(inst, SBX_LOG_INFO, "destroyed sandbox %s%s", sandbox_id,
                   resp.status == 404 ? " (it was already gone)" : "");
    else
        st = remote_answer_error(&inst->options, &resp,
                                 remote_call_name(what, "destroy", sandbox_id), err);
    common_http_response_clear(&resp);
    return st;
}

sbx_status remote_is_alive(sbx_backend_instance *inst, const char *sandbox_id,
                           int *alive, sbx_error *err)
{
    *alive = 0;
    static const char action[] = "health check";
    char what[128];
    common_http_response resp;
    remote_sandbox_call call = { .method = "GET", .prefix = REMOTE_SANDBOXES_PREFIX,
                                 .sandbox_id = sandbox_id, .action = action,
                                 .timeout_ms = inst->options.get_timeout_ms };
    sbx_status st = remote_start_sandbox_call(inst, &call, &resp, err);
    if (st != SBX_OK)
        return st;
    if (resp.status == 200) {
        /* Only "status" and "sandbox_id" are wanted: the scanner validates
         * the whole answer without building it (remote_json_scan.h).  An answer
         * naming another sandbox is refused; one naming none is the seed's
         * minimal answer and is read. */
        static const char *const keys[] = { "status", "sandbox_id" };
        remote_json_scanned_member found[2];
        const remote_json_scanned_member *status = &found[0], *id = &found[1];
        if (!remote_json_scan_object_members(resp.body, resp.body_len, keys, 2, found)) {
            /* The scanner accepts json-c's depth: json-c tells why (error path only). */
            int too_deep;
            json_object_put(common_json_parse_ex(resp.body, resp.body_len, &too_deep));
            st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "%s: the answer is %s",
                                       remote_call_name(what, action, sandbox_id),
                                       too_deep ? COMMON_JSON_TOO_DEEP : "not a JSON object");
        } else if (id->state != COMMON_JSON_ABSENT &&
                   (id->state != COMMON_JSON_OK ||
                    !remote_json_scanned_string_equals(id->raw, id->raw_len, sandbox_id))) {
            st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                       "%s: the answer is about another sandbox",
                                       remote_call_name(what, action, sandbox_id));
        } else if (status->state == COMMON_JSON_OK &&
                   !remote_json_scanned_string_is_clean(status->raw, status->raw_len)) {
            st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                       "%s: sandbox field status holds a NUL byte or invalid UTF-8",
                                       remote_call_name(what, action, sandbox_id));
        } else {
            *alive = status->state == COMMON_JSON_OK &&
                     remote_json_scanned_string_equals(status->raw, status->raw_len, "Running");
        }
    } else if (resp.status != 404) {
        st = remote_answer_error(&inst->options, &resp,
                                 remote_call_name(what, action, sandbox_id), err);
    }
    common_http_response_clear(&resp);
    return st;
}

sbx_status remote_discover(sbx_backend_instance *inst, const char *sandbox_id,
                           sbx_sandbox **out, sbx_error *err)
{
    *out = NULL;
    remote_sandbox_answer answer;
    remote_fields f;
    sbx_status st = remote_lookup(inst, sandbox_id, &answer, &f, err);
    if (st == SBX_OK) {
        sbx_sandbox sb;
        sbx_error cause;
        sbx_backend_error_clear(&cause);
        char what[128];
        st = remote_fields_fill(&f, &sb, &cause);
        if (st != SBX_OK)
            remote_wrap_error(&cause, remote_call_name(what, "discover", sandbox_id), err);
        else
            st = common_sandbox_record_box(&sb, out, err);
    }
    remote_sandbox_answer_free(&answer);
    return st;
}

static void warn_skipped(void *ctx, const char *message)
{
    const sbx_backend_instance *inst = ctx;
    REMOTE_LOG(inst, SBX_LOG_WARN, "%s", message);
}

static int feed_list(void *ctx, const char *data, size_t len)
{
    return remote_list_stream_feed(ctx, data, len);
}

sbx_status remote_list_running(sbx_backend_instance *inst, sbx_sandbox **out,
                               size_t *count, sbx_error *err)
{
    *out = NULL;
    *count = 0;
    const char *what = "Provisioner list failed";
    sbx_error cause;
    sbx_backend_error_clear(&cause);
    /* A 200 answer is decoded as it arrives (remote_list_stream.h): a 10k list
     * never exists as a whole body or a json-c tree. */
    remote_list_stream *decoder = remote_list_stream_new();
    if (decoder == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s: out of memory", what);
    common_http_body_sink sink = { .status = 200, .write = feed_list, .ctx = decoder };
    common_http_response resp;
    common_http_call call = {.method = "GET", .path = "/api/sandboxes",
                             .timeout_ms = inst->options.list_timeout_ms, .sink = &sink};
    sbx_status st = common_http_perform(inst->http, &call, &resp, &cause);
    if (st != SBX_OK) {
        remote_wrap_error(&cause, what, err);
    } else if (resp.status == 200) {
        remote_warner warn = { warn_skipped, inst };
        st = remote_list_stream_finish(decoder, &warn, out, count, &cause);
        if (st != SBX_OK)
            remote_wrap_error(&cause, what, err);
    } else {
        st = remote_answer_error(&inst->options, &resp, what, err);
    }
    remote_list_stream_free(decoder);
    common_http_response_clear(&resp);
    return st;
}

sbx_status remote_capabilities(sbx_backend_instance *inst, sbx_capabilities *out,
                               sbx_error *err)
{
    (void)err;
    remote_contract_state state;
    remote_contract_cache_current(&inst->contract, &state);
    out->known = state.known;
    out->mount_contract_version = state.known ? state.version : SBX_CONTRACT_NONE;
    return SBX_OK;
}

sbx_status remote_reconcile(sbx_backend_instance *inst, const char *sandbox_id,
                            sbx_reconciliation *out, sbx_error *err)
{
    sbx_status st = common_reconcile_start(out, sandbox_id, err);
    if (st != SBX_OK)
        return st;
    char what[128];
    sbx_backend_format(what, sizeof what, "reconciliation of %s is unknown", sandbox_id);
    common_http_response resp;
    sbx_error failure, cause;
    sbx_backend_error_clear(&failure);
    sbx_backend_error_clear(&cause);
    /* Nothing here is an error for the caller: whatever goes wrong leaves
     * the answer "unknown", which never licenses deleting state. */
    remote_sandbox_call call = { .method = "GET", .prefix = REMOTE_RECONCILIATION_PREFIX,
                                 .sandbox_id = sandbox_id, .action = "reconciliation",
                                 .timeout_ms = inst->options.get_timeout_ms };
    if (remote_call_sandbox(inst, &call, &resp, &failure) != SBX_OK) {
        remote_wrap_error(&failure, what, &cause);
        REMOTE_LOG(inst, SBX_LOG_WARN, "%s", cause.message);
        return SBX_OK;
    }
    if (resp.status != 200) {
        remote_answer_error(&inst->options, &resp, what, &cause);
        REMOTE_LOG(inst, SBX_LOG_WARN, "%s", cause.message);
    } else {
        const char *why = NULL;
        st = remote_decode_reconciliation(resp.body, resp.body_len, sandbox_id, out, &why,
                                          err);
        if (st == SBX_OK && why != NULL)
            REMOTE_LOG(inst, SBX_LOG_WARN, "%s: %s", what, why);
    }
    common_http_response_clear(&resp);
    return st;
}
