/* Calls on a sandbox's path and the lookup (see remote_lookup.h). */
#include <config.h>

#include "plugin/remote/remote_lookup.h"

#include "common/sandbox_ids.h"
#include "plugin/remote/remote_answer_errors.h"

#include <sbx/backend_support.h>

#include <string.h>

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

const char *remote_call_name(char what[128], const char *action, const char *sandbox_id)
{
    return sbx_backend_format(what, 128, "Provisioner %s failed for %s", action, sandbox_id);
}

sbx_status remote_call_sandbox(sbx_backend_instance *inst, const remote_sandbox_call *call,
                               common_http_response *resp, sbx_error *cause)
{
    char path[128];
    if (!sandbox_path(path, sizeof path, call->prefix, call->sandbox_id))
        return sbx_backend_error_set(cause, SBX_ERR_REFUSED, "the sandbox id is too long");
    return common_http_perform(inst->http,
                               &(common_http_call){.method = call->method, .path = path,
                                                   .timeout_ms = call->timeout_ms},
                               resp, cause);
}

sbx_status remote_start_sandbox_call(sbx_backend_instance *inst,
                                     const remote_sandbox_call *call,
                                     common_http_response *resp, sbx_error *err)
{
    sbx_status st = common_check_sandbox_id(call->sandbox_id, err);
    if (st != SBX_OK)
        return st;
    sbx_error cause;
    sbx_backend_error_clear(&cause);
    st = remote_call_sandbox(inst, call, resp, &cause);
    if (st != SBX_OK) {
        char what[128];
        return remote_wrap_error(&cause, remote_call_name(what, call->action, call->sandbox_id),
                                 err);
    }
    return SBX_OK;
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
    return remote_lookup_labelled(inst, sandbox_id, answer, f, NULL, err);
}

sbx_status remote_lookup_labelled(sbx_backend_instance *inst, const char *sandbox_id,
                                  remote_sandbox_answer *answer, remote_fields *f,
                                  remote_answer_labels *labels, sbx_error *err)
{
    if (labels != NULL)
        memset(labels, 0, sizeof *labels);
    char what[128];
    remote_field_reader_init(&answer->fields); /* freeable whatever happens */
    memset(f, 0, sizeof *f);
    common_http_response resp;
    remote_sandbox_call call = { .method = "GET", .prefix = REMOTE_SANDBOXES_PREFIX,
                                 .sandbox_id = sandbox_id, .action = "discover",
                                 .timeout_ms = inst->options.get_timeout_ms };
    sbx_status st = remote_start_sandbox_call(inst, &call, &resp, err);
    if (st != SBX_OK)
        return st;
    int out_of_memory = 0;
    if (resp.status == 200) {
        sbx_error cause;
        sbx_backend_error_clear(&cause);
        st = remote_sandbox_answer_read(resp.body, resp.body_len, answer, f, &cause);
        if (st != SBX_OK) {
            remote_wrap_error(&cause, remote_call_name(what, "discover", sandbox_id), err);
        } else if (strcmp(f->text[REMOTE_FIELD_ID], sandbox_id) != 0) {
            st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                       "%s: the answer is about another sandbox",
                                       remote_call_name(what, "discover", sandbox_id));
        } else if (made_under_another_contract(inst, sandbox_id, f->version, &out_of_memory)) {
            st = sbx_backend_error_set(err, SBX_ERR_NOT_FOUND,
                                       "sandbox %s was made under another mount contract than the "
                                       "provisioner's; it is not reused", sandbox_id);
        } else if (out_of_memory) {
            st = sbx_backend_error_set(
                err, SBX_ERR_INTERNAL,
                "%s: out of memory probing the provisioner's capabilities",
                remote_call_name(what, "discover", sandbox_id));
        } else if (labels != NULL && !remote_answer_labels_read(resp.body, resp.body_len, labels)) {
            st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s: out of memory",
                                       remote_call_name(what, "discover", sandbox_id));
        }
    } else if (resp.status == 404) {
        st = sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "sandbox %s not found", sandbox_id);
        err->http_status = 404;
    } else {
        st = remote_answer_error(&inst->options, &resp,
                                 remote_call_name(what, "discover", sandbox_id), err);
    }
    common_http_response_clear(&resp);
    return st;
}
