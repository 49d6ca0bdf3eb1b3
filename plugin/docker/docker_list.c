/* list_running and list_records (see docker_list.h). */
#include <config.h>

#include "plugin/docker/docker_list.h"

#include "common/expiry.h"
#include "common/record_chain.h"
#include "plugin/docker/docker_calls.h"
#include "plugin/docker/docker_expiry.h"
#include "plugin/docker/docker_list_stream.h"

/* ?filters={"label":["sbx.managed=true"]}, URL-encoded. */
#define LIST_QUERY "/containers/json?filters=%7B%22label%22%3A%5B%22sbx.managed%3Dtrue%22%5D%7D"

/* Where the sandboxes of one list call go.  One whose label's expiry has
 * passed waits in `due` (a copy of its record) until the answer is read:
 * settling it calls the engine.  `due` holds only sandboxes of this
 * answer, each at most once, so it is never larger than the list itself
 * (and past-expiry containers do not pile up: each list removes its
 * own). */
typedef struct list_call {
    sbx_backend_instance *inst;
    const docker_engine_identity *engine;
    common_list_answer *list;
    common_record_list due;
} list_call;

/* docker_list_found_fn: add the sandbox to the list, or to the due ones
 * when its label's expiry has passed. */
static int add_found(void *ctx, docker_sandbox_view *view)
{
    list_call *call = ctx;
    docker_instance_name_engine(call->engine, &view->facts);
    sbx_error err;
    if (!common_expiry_passed(view->facts.expires_at, common_epoch_now_ms()))
        return common_list_answer_add(call->list, &view->facts, &err) == SBX_OK ? 0 : -1;
    sbx_sandbox_record *record = NULL;
    if (common_record_new(&view->facts, &record, &err) != SBX_OK)
        return -1;
    common_record_list_push(&call->due, record);
    return 0;
}

/* The facts of a due record (borrowed from it). */
static void facts_of_record(const sbx_sandbox_record *r, common_record_facts *facts)
{
    common_record_facts_of_sandbox(&r->sandbox, facts);
    facts->created_at = r->created_at;
    facts->incarnation_id = r->incarnation_id;
    facts->container_id = r->container_id;
    facts->container_name = r->container_name;
    facts->engine = r->engine;
    facts->engine_version = r->engine_version;
    facts->pid = r->pid;
    facts->directory = r->directory;
    facts->labels = r->labels;
    facts->label_count = r->label_count;
    facts->expires_at = r->expires_at;
}

/* Settle each due sandbox (its override, then removal) after the answer
 * was read: one past its expiry is removed and left out; one the override
 * moved is listed with the moved time; one whose settling failed is
 * logged and listed.  SBX_ERR_INTERNAL only when out of memory. */
static sbx_status settle_due(list_call *call, sbx_error *err)
{
    sbx_status st = SBX_OK;
    for (const sbx_sandbox_record *r = call->due.first; st == SBX_OK && r != NULL; r = r->next) {
        common_record_facts facts;
        facts_of_record(r, &facts);
        sbx_error cause;
        sbx_status settled = docker_expiry_settle(call->inst, facts.sandbox_id,
                                                  facts.container_id, 0, &facts.expires_at,
                                                  &cause);
        if (settled == SBX_ERR_NOT_FOUND)
            continue;
        if (settled != SBX_OK)
            DOCKER_LOG(call->inst, SBX_LOG_WARN, "sandbox %s is past its expiry but stays "
                       "for now: %s", facts.sandbox_id, cause.message);
        st = common_list_answer_add(call->list, &facts, err);
    }
    return st;
}

/* docker_list_skipped_fn: managed containers of other prefixes are normal,
 * not warnings. */
static void log_skipped(void *ctx, size_t index, docker_skip skip, const char *why)
{
    const sbx_backend_instance *inst = ctx;
    DOCKER_LOG(inst, skip == DOCKER_SKIP_OTHER_PREFIX ? SBX_LOG_DEBUG : SBX_LOG_WARN,
               "skipping list entry %zu: %s", index, why);
}

static int feed_list(void *ctx, const char *data, size_t len)
{
    return docker_list_stream_feed(ctx, data, len);
}

/* The list call's answer into call->list and call->due.  A 200 answer is
 * decoded as it arrives (docker_list_stream.h). */
static sbx_status read_list(list_call *call, const char *what, sbx_error *err)
{
    sbx_backend_instance *inst = call->inst;
    docker_list_stream *decoder =
        docker_list_stream_new(&inst->options, call->list->records != NULL, add_found, call);
    if (decoder == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    common_http_body_sink sink = { .status = 200, .write = feed_list, .ctx = decoder };
    common_http_response resp;
    common_http_call get_list = {.method = "GET", .path = LIST_QUERY, .sink = &sink};
    sbx_status st = docker_engine_call(&inst->engine, &get_list, what, &resp, err);
    if (st == SBX_OK && resp.status != 200)
        st = docker_engine_error(&resp, what, SBX_ERR_PROVISIONER, err);
    else if (st == SBX_OK)
        st = docker_list_stream_finish(decoder, what, log_skipped, inst, err);
    common_http_response_clear(&resp);
    docker_list_stream_free(decoder);
    return st;
}

/* list_running and list_records: one list call answered into `list` (a
 * record list also keeps running sandboxes without a published port);
 * the due sandboxes are settled only once the answer was read whole. */
static sbx_status list_sandboxes(sbx_backend_instance *inst, common_list_answer *list,
                                 sbx_error *err)
{
    const char *what = "list of sandboxes";
    list_call call = { .inst = inst, .list = list };
    sbx_status st = list->records != NULL ? docker_instance_identity(inst, what, &call.engine, err)
                                          : SBX_OK;
    if (st == SBX_OK)
        st = read_list(&call, what, err);
    if (st == SBX_OK)
        st = settle_due(&call, err);
    common_records_free(call.due.first);
    return common_list_answer_finish(list, st);
}

sbx_status docker_list_running(sbx_backend_instance *inst, sbx_sandbox **out,
                               size_t *count, sbx_error *err)
{
    common_list_answer list;
    common_list_answer_start(&list, out, NULL, count);
    return list_sandboxes(inst, &list, err);
}

sbx_status docker_list_records(sbx_backend_instance *inst, sbx_sandbox_record **out,
                               size_t *count, sbx_error *err)
{
    common_list_answer list;
    common_list_answer_start(&list, NULL, out, count);
    return list_sandboxes(inst, &list, err);
}
