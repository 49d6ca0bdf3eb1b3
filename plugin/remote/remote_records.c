/* discover_record and list_records (see remote_records.h). */
#include <config.h>

#include "plugin/remote/remote_records.h"

#include "common/record_chain.h"
#include "plugin/remote/remote_answer_errors.h"
#include "plugin/remote/remote_create.h"
#include "plugin/remote/remote_create_spec.h"
#include "plugin/remote/remote_decode.h"
#include "plugin/remote/remote_lookup.h"
#include "plugin/remote/remote_ops.h"

#include <sbx/backend_support.h>

#include <stdlib.h>
#include <string.h>

static void warn_unreadable_labels(sbx_backend_instance *inst, const char *sandbox_id)
{
    REMOTE_LOG(inst, SBX_LOG_WARN,
               "sandbox %s: its answer's labels are not an object of strings: its record "
               "carries none", sandbox_id);
}

sbx_status remote_discover_record(sbx_backend_instance *inst, const char *sandbox_id,
                                  sbx_sandbox_record **out, sbx_error *err)
{
    *out = NULL;
    remote_sandbox_answer answer;
    remote_fields f;
    remote_answer_labels labels;
    sbx_status st = remote_lookup_labelled(inst, sandbox_id, &answer, &f, &labels, err);
    if (st == SBX_OK) {
        if (labels.unreadable)
            warn_unreadable_labels(inst, sandbox_id);
        common_record_facts facts;
        common_record_facts_init(&facts);
        facts.sandbox_id = f.text[REMOTE_FIELD_ID];
        facts.sandbox_url = f.text[REMOTE_FIELD_URL];
        facts.user_id = f.text[REMOTE_FIELD_USER];
        facts.thread_id = f.text[REMOTE_FIELD_THREAD];
        facts.status = f.text[REMOTE_FIELD_STATUS];
        facts.mount_contract_version = f.version;
        facts.incarnation_id = f.state[REMOTE_FIELD_INCARNATION] == COMMON_JSON_OK
                                   ? f.text[REMOTE_FIELD_INCARNATION] : NULL;
        facts.labels = labels.labels;
        facts.label_count = labels.count;
        st = common_record_new(&facts, out, err);
    }
    remote_answer_labels_clear(&labels);
    remote_sandbox_answer_free(&answer);
    return st;
}

/* The visitor of a labelled list: each entry decoded, with its labels,
 * into the chain. */
typedef struct labelled_list {
    sbx_backend_instance *inst;
    common_record_list chain;
} labelled_list;

static sbx_status labelled_start(void *ctx, size_t entries)
{
    (void)ctx;
    (void)entries;
    return SBX_OK;
}

static sbx_status labelled_entry(void *ctx, struct json_object *entry, sbx_error *err)
{
    labelled_list *list = ctx;
    sbx_sandbox sb;
    sbx_status st = remote_decode_sandbox(entry, &sb, err);
    if (st != SBX_OK)
        return st;
    sbx_label *labels = NULL;
    size_t count = 0;
    int read = remote_labels_read(entry, &labels, &count);
    if (read == 0)
        warn_unreadable_labels(list->inst, sb.sandbox_id);
    common_record_facts facts;
    common_record_facts_of_sandbox(&sb, &facts);
    facts.labels = labels;
    facts.label_count = count;
    sbx_sandbox_record *record = NULL;
    st = read < 0 ? sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory")
                  : common_record_new(&facts, &record, err);
    if (st == SBX_OK)
        common_record_list_push(&list->chain, record);
    free(labels);
    common_sandbox_record_clear(&sb);
    return st;
}

static void warn_skipped(void *ctx, const char *message)
{
    const sbx_backend_instance *inst = ctx;
    REMOTE_LOG(inst, SBX_LOG_WARN, "%s", message);
}

/* The labelled list: GET /api/sandboxes read whole. */
static sbx_status list_labelled(sbx_backend_instance *inst, sbx_sandbox_record **out,
                                size_t *count, sbx_error *err)
{
    const char *what = "Provisioner list failed";
    sbx_error cause;
    sbx_backend_error_clear(&cause);
    common_http_response resp;
    common_http_call call = {.method = "GET", .path = "/api/sandboxes",
                             .timeout_ms = inst->options.list_timeout_ms};
    sbx_status st = common_http_perform(inst->http, &call, &resp, &cause);
    labelled_list list = {inst, {NULL, NULL, 0}};
    if (st != SBX_OK) {
        remote_wrap_error(&cause, what, err);
    } else if (resp.status == 200) {
        remote_warner warn = {warn_skipped, inst};
        const remote_list_visitor visit = {labelled_start, labelled_entry, &list};
        st = remote_decode_list_each(resp.body, resp.body_len, &warn, &visit, &cause);
        if (st != SBX_OK)
            remote_wrap_error(&cause, what, err);
    } else {
        st = remote_answer_error(&inst->options, &resp, what, err);
    }
    common_http_response_clear(&resp);
    return common_record_list_finish(&list.chain, st, out, count);
}

sbx_status remote_list_records(sbx_backend_instance *inst, sbx_sandbox_record **out,
                               size_t *count, sbx_error *err)
{
    *out = NULL;
    *count = 0;
    if (remote_create_fields(inst) & SBX_CREATE_LABELS)
        return list_labelled(inst, out, count, err);
    sbx_sandbox *sandboxes = NULL;
    size_t n = 0;
    sbx_status st = remote_list_running(inst, &sandboxes, &n, err);
    common_record_list chain = {NULL, NULL, 0};
    for (size_t i = 0; st == SBX_OK && i < n; i++) {
        common_record_facts facts;
        common_record_facts_of_sandbox(&sandboxes[i], &facts);
        sbx_sandbox_record *record = NULL;
        st = common_record_new(&facts, &record, err);
        if (st == SBX_OK)
            common_record_list_push(&chain, record);
    }
    common_sandbox_records_free(sandboxes, n);
    return common_record_list_finish(&chain, st, out, count);
}
