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
#include "plugin/remote/remote_sandbox_answer.h"

#include <sbx/backend_support.h>

#include <stdio.h>
#include <string.h>

#define REMOTE_SANDBOXES_PREFIX "/api/sandboxes/"
#define REMOTE_RECONCILIATION_PREFIX "/api/reconciliation/sandboxes/"

/* "<prefix><id>" into buf[cap]; the id was validated as a DNS label, so it
 * needs no escaping and always fits the callers' 128 bytes (0 if it did
 * not).  Copied rather than printed: this is on every is_alive's path. */
static int sandbox_path(char *buf, size_t cap, const char *prefix, const char *sandbox_id)
{
    size_t prefix_len = strlen(prefix), id_len = strlen(sandbox_id);
    if (prefix_len + id_len >= cap)
        return 0;
    memcpy(buf, prefix, prefix_len);
    memcpy(buf + prefix_len, sandbox_id, id_len + 1);
    return 1;
}

/* "Provisioner <action> failed for <id>" (the reference client's words)
 * into what[128] (a checked id fits; a cut would be marked); built only
 * when a message needs it. */
static const char *call_name(char what[128], const char *action, const char *sandbox_id)
{
    return sbx_backend_format(what, 128, "Provisioner %s failed for %s", action, sandbox_id);
}

/* One GET/DELETE on a sandbox's path (the id already checked); a failure
 * is described in *cause, for the caller to name. */
static sbx_status call_sandbox(sbx_backend_instance *inst, const char *method,
                               const char *prefix, const char *sandbox_id, long timeout_ms,
                               common_http_response *resp, sbx_error *cause)
{
    char path[128];
    if (!sandbox_path(path, sizeof path, prefix, sandbox_id))
        return sbx_backend_error_set(cause, SBX_ERR_REFUSED, "the sandbox id is too long");
    return common_http_perform(inst->http,
                               &(common_http_call){.method = method, .path = path,
                                                   .timeout_ms = timeout_ms},
                               resp, cause);
}

/* The start of destroy, is_alive and discover: refuse an invalid id before
 * anything is sent, and make the call; a failure is named
 * call_name(what, action, id). */
static sbx_status start_sandbox_call(sbx_backend_instance *inst, const char *method,
                                     const char *sandbox_id, const char *action,
                                     long timeout_ms, common_http_response *resp, sbx_error *err)
{
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    sbx_error cause;
    sbx_backend_error_clear(&cause);
    st = call_sandbox(inst, method, REMOTE_SANDBOXES_PREFIX, sandbox_id, timeout_ms, resp,
                      &cause);
    if (st != SBX_OK) {
        char what[128];
        return remote_wrap_error(&cause, call_name(what, action, sandbox_id), err);
    }
    return SBX_OK;
}

sbx_status remote_destroy(sbx_backend_instance *inst, const char *sandbox_id,
                          sbx_error *err)
{
    char what[128];
    common_http_response resp;
    sbx_status st = start_sandbox_call(inst, "DELETE", sandbox_id, "destroy",
                                       inst->options.destroy_timeout_ms, &resp, err);
    if (st != SBX_OK)
        return st;
    if ((resp.status >= 200 && resp.status < 300) || resp.status == 404)
        REMOTE_LOG(inst, SBX_LOG_INFO, "destroyed sandbox %s%s", sandbox_id,
                   resp.status == 404 ? " (it was already gone)" : "");
    else
        st = remote_answer_error(inst, &resp, call_name(what, "destroy", sandbox_id), err);
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
    sbx_status st = start_sandbox_call(inst, "GET", sandbox_id, action,
                                       inst->options.get_timeout_ms, &resp, err);
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
                                       call_name(what, action, sandbox_id),
                                       too_deep ? COMMON_JSON_TOO_DEEP : "not a JSON object");
        } else if (id->state != COMMON_JSON_ABSENT &&
                   (id->state != COMMON_JSON_OK ||
                    !remote_json_scanned_string_equals(id->raw, id->raw_len, sandbox_id))) {
            st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                       "%s: the answer is about another sandbox",
                                       call_name(what, action, sandbox_id));
        } else if (status->state == COMMON_JSON_OK &&
                   !remote_json_scanned_string_is_clean(status->raw, status->raw_len)) {
            st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                       "%s: sandbox field status holds a NUL byte or invalid UTF-8",
                                       call_name(what, action, sandbox_id));
        } else {
            *alive = status->state == COMMON_JSON_OK &&
                     remote_json_scanned_string_equals(status->raw, status->raw_len, "Running");
        }
    } else if (resp.status != 404) {
        st = remote_answer_error(inst, &resp, call_name(what, action, sandbox_id), err);
    }
    common_http_response_clear(&resp);
    return st;
}

/* A sandbox that a provisioner of contract >= 1 reports under another
 * version (or none) was made with other mount guarantees than a new create
 * would get: handing it out could give a user mounts that are not
 * isolated, so discover ignores it, as the reference client does.  An
 * unverified contract filters nothing (the record carries its own version
 * and identity for the host to check); a probe that ran out of memory here
 * sets *out_of_memory. */
static int made_under_another_contract(sbx_backend_instance *inst, const char *sandbox_id,
                                       int version, int *out_of_memory)
{
    remote_contract_state state;
    remote_contract_cache_current(&inst->contract, &state);
    *out_of_memory = !state.known && state.probe_out_of_memory;
    if (!state.known || state.version < 1 || version == state.version)
        return 0;
    REMOTE_LOG(inst, SBX_LOG_INFO,
               "discover ignores sandbox %s: its mount contract is %d, the provisioner's %d",
               sandbox_id, version, state.version);
    return 1;
}

sbx_status remote_lookup(sbx_backend_instance *inst, const char *sandbox_id,
                         remote_sandbox_answer *answer, remote_fields *f, sbx_error *err)
{
    char what[128];
    remote_field_reader_init(&answer->fields); /* freeable whatever happens */
    memset(f, 0, sizeof *f);
    common_http_response resp;
    sbx_status st = start_sandbox_call(inst, "GET", sandbox_id, "discover",
                                       inst->options.get_timeout_ms, &resp, err);
    if (st != SBX_OK)
        return st;
    int out_of_memory = 0;
    if (resp.status == 200) {
        sbx_error cause;
        sbx_backend_error_clear(&cause);
        st = remote_sandbox_answer_read(resp.body, resp.body_len, answer, f, &cause);
        if (st != SBX_OK) {
            remote_wrap_error(&cause, call_name(what, "discover", sandbox_id), err);
        } else if (strcmp(f->text[REMOTE_FIELD_ID], sandbox_id) != 0) {
            st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                       "%s: the answer is about another sandbox",
                                       call_name(what, "discover", sandbox_id));
        } else if (made_under_another_contract(inst, sandbox_id, f->version, &out_of_memory)) {
            st = sbx_backend_error_set(err, SBX_ERR_NOT_FOUND,
                                       "sandbox %s was made under another mount contract than the "
                                       "provisioner's; it is not reused", sandbox_id);
        } else if (out_of_memory) {
            st = sbx_backend_error_set(
                err, SBX_ERR_INTERNAL,
                "%s: out of memory probing the provisioner's capabilities",
                call_name(what, "discover", sandbox_id));
        }
    } else if (resp.status == 404) {
        st = sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "sandbox %s not found", sandbox_id);
        err->http_status = 404;
    } else {
        st = remote_answer_error(inst, &resp, call_name(what, "discover", sandbox_id), err);
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
            remote_wrap_error(&cause, call_name(what, "discover", sandbox_id), err);
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
        st = remote_list_stream_finish(decoder, warn_skipped, inst, out, count, &cause);
        if (st != SBX_OK)
            remote_wrap_error(&cause, what, err);
    } else {
        st = remote_answer_error(inst, &resp, what, err);
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
    if (call_sandbox(inst, "GET", REMOTE_RECONCILIATION_PREFIX, sandbox_id,
                     inst->options.get_timeout_ms, &resp, &failure) != SBX_OK) {
        remote_wrap_error(&failure, what, &cause);
        REMOTE_LOG(inst, SBX_LOG_WARN, "%s", cause.message);
        return SBX_OK;
    }
    if (resp.status != 200) {
        remote_answer_error(inst, &resp, what, &cause);
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
