/* destroy, is_alive, discover, list, reconcile (see docker_ops.h). */
#include <config.h>

#include "plugin/docker/docker_ops.h"

#include "common/record_chain.h"
#include "common/sandbox_ids.h"
#include "plugin/docker/docker_calls.h"
#include "plugin/docker/docker_expiry.h"
#include "plugin/docker/docker_list_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ?filters={"label":["sbx.managed=true"]}, URL-encoded. */
#define LIST_QUERY "/containers/json?filters=%7B%22label%22%3A%5B%22sbx.managed%3Dtrue%22%5D%7D"

sbx_status docker_destroy(sbx_backend_instance *inst, const char *sandbox_id,
                          sbx_error *err)
{
    int running = 0;
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    /* Never stop a container that only happens to carry our name. */
    if (st == SBX_OK)
        st = docker_inspect_sandbox(inst, sandbox_id, NULL, NULL, &running, err);
    /* An explicit grace: podman's default is none, Docker's 10 s. */
    char query[32];
    snprintf(query, sizeof query, "?t=%ld", inst->options.stop_grace_s);
    const docker_container_call stop = { "POST", "/stop", query,
                                         inst->options.stop_grace_s * 1000L };
    if (st == SBX_OK && running)
        st = docker_container_action(inst, sandbox_id, NULL, &stop, err);
    if (st == SBX_OK || st == SBX_ERR_NOT_FOUND)
        st = docker_remove_container(inst, sandbox_id, NULL, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        return SBX_OK;
    }
    if (st == SBX_OK)
        DOCKER_LOG(inst, SBX_LOG_INFO, "destroyed sandbox %s", sandbox_id);
    return st;
}

sbx_status docker_is_alive(sbx_backend_instance *inst, const char *sandbox_id,
                           int *alive, sbx_error *err)
{
    *alive = 0;
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st == SBX_OK)
        st = docker_inspect_sandbox(inst, sandbox_id, NULL, NULL, alive, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        *alive = 0;
        return SBX_OK;
    }
    return st;
}

/* discover and discover_record. */
static sbx_status discover_sandbox(sbx_backend_instance *inst, const char *sandbox_id,
                                   const common_answer *to, sbx_error *err)
{
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    char what[96];
    sbx_backend_format(what, sizeof what, "discover of sandbox '%s'", sandbox_id);
    const docker_engine_identity *engine = NULL;
    int running = 0;
    st = docker_instance_engine_for(inst, to, what, &engine, err);
    if (st == SBX_OK)
        st = docker_inspect_sandbox(inst, sandbox_id, to, engine, &running, err);
    if (st == SBX_ERR_NOT_FOUND)
        sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "docker: sandbox '%s' not found", sandbox_id);
    return st;
}

sbx_status docker_discover(sbx_backend_instance *inst, const char *sandbox_id,
                           sbx_sandbox **out, sbx_error *err)
{
    return discover_sandbox(inst, sandbox_id, &(common_answer){ out, NULL }, err);
}

sbx_status docker_discover_record(sbx_backend_instance *inst, const char *sandbox_id,
                                  sbx_sandbox_record **out, sbx_error *err)
{
    return discover_sandbox(inst, sandbox_id, &(common_answer){ NULL, out }, err);
}

/* Where the sandboxes of one list call go. */
typedef struct list_call {
    sbx_backend_instance *inst;
    const docker_engine_identity *engine;
    common_list_answer *list;
} list_call;

/* docker_list_found_fn: add the sandbox to the list, unless it is past
 * its expiry (its label's, then the override's): then it is removed. */
static int add_found(void *ctx, docker_sandbox_view *view)
{
    list_call *call = ctx;
    docker_instance_name_engine(call->engine, &view->facts);
    sbx_error err;
    sbx_status st = docker_expiry_settle(call->inst, view->facts.sandbox_id,
                                         view->facts.container_id, 0, &view->facts.expires_at,
                                         &err);
    if (st == SBX_ERR_NOT_FOUND)
        return 0;
    if (st != SBX_OK)
        DOCKER_LOG(call->inst, SBX_LOG_WARN, "sandbox %s is past its expiry but stays for "
                   "now: %s", view->facts.sandbox_id, err.message);
    return common_list_answer_add(call->list, &view->facts, &err) == SBX_OK ? 0 : -1;
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

/* list_running and list_records: one list call, answered into `list` (a
 * record list also keeps running sandboxes without a published port).  A
 * 200 answer is decoded as it arrives (docker_list_stream.h). */
static sbx_status list_sandboxes(sbx_backend_instance *inst, common_list_answer *list,
                                 sbx_error *err)
{
    const char *what = "list of sandboxes";
    list_call call = { inst, NULL, list };
    sbx_status st = list->records != NULL ? docker_instance_identity(inst, what, &call.engine, err)
                                          : SBX_OK;
    if (st != SBX_OK)
        return common_list_answer_finish(list, st);
    docker_list_stream *decoder =
        docker_list_stream_new(&inst->options, list->records != NULL, add_found, &call);
    if (decoder == NULL)
        return common_list_answer_finish(
            list, sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory"));
    common_http_body_sink sink = { .status = 200, .write = feed_list, .ctx = decoder };
    common_http_response resp;
    common_http_call get_list = {.method = "GET", .path = LIST_QUERY, .sink = &sink};
    st = docker_engine_call(&inst->engine, &get_list, what, &resp, err);
    if (st == SBX_OK && resp.status != 200)
        st = docker_engine_error(&resp, what, SBX_ERR_PROVISIONER, err);
    else if (st == SBX_OK)
        st = docker_list_stream_finish(decoder, what, log_skipped, inst, err);
    common_http_response_clear(&resp);
    docker_list_stream_free(decoder);
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

/* What reconcile learnt, moved into *out: FOUND (the sandbox, an array of
 * one or NULL, kept only while it runs with a published port: a stopped
 * one has no address; it is consumed either way) or ABSENT.  0 when out of
 * memory: then *out is left UNKNOWN. */
static int settle_reconciliation(sbx_reconciliation *out, sbx_reconcile_status status,
                                 const char *engine_id, const char *container_id,
                                 sbx_sandbox *sandbox, int running)
{
    out->status = status;
    out->backend_namespace = strdup(engine_id);
    int ok = out->backend_namespace != NULL;
    if (status == SBX_RECONCILE_FOUND) {
        out->incarnation_id = strdup(container_id);
        ok = ok && out->incarnation_id != NULL;
    }
    if (ok && sandbox != NULL && running && sandbox->sandbox_url[0] != '\0')
        out->sandbox = sandbox;
    else
        common_sandbox_records_free(sandbox, sandbox != NULL ? 1 : 0);
    if (!ok)
        common_reconciliation_clear(out);
    return ok;
}

/* The namespace reconcile reports: Docker's engine ID (GET /info, kept in
 * its data root); podman answers a new random ID at every call, so there
 * it is "podman:HOSTNAME:STORAGE_ROOT", as stable as the engine's
 * storage. */
static sbx_status engine_namespace(sbx_backend_instance *inst, const char *what, char *buf,
                                   size_t size, sbx_error *err)
{
    const docker_engine_identity *engine = NULL;
    sbx_status st = docker_instance_identity(inst, what, &engine, err);
    docker_engine_facts facts;
    if (st == SBX_OK)
        st = docker_engine_info(&inst->engine, what, &facts, err);
    if (st != SBX_OK)
        return st;
    int podman = engine->is_podman;
    if (podman ? facts.name[0] == '\0' || facts.root_dir[0] == '\0' : facts.id[0] == '\0')
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "docker: %s: the engine's /info gives no %s",
                                     what, podman ? "Name and DockerRootDir" : "ID");
    if (podman)
        snprintf(buf, size, "podman:%s:%s", facts.name, facts.root_dir);
    else
        snprintf(buf, size, "%s", facts.id);
    return SBX_OK;
}

sbx_status docker_reconcile(sbx_backend_instance *inst, const char *sandbox_id,
                            sbx_reconciliation *out, sbx_error *err)
{
    sbx_status st = common_reconcile_start(out, sandbox_id, err);
    if (st != SBX_OK)
        return st;
    char what[96], container_id[DOCKER_CONTAINER_ID_MAX];
    sbx_backend_format(what, sizeof what, "reconciliation of sandbox '%s'", sandbox_id);
    sbx_error cause;
    sbx_backend_error_clear(&cause);
    char name_space[512];
    st = engine_namespace(inst, what, name_space, sizeof name_space, &cause);
    sbx_sandbox *sandbox = NULL;
    int running = 0;
    if (st == SBX_OK)
        st = docker_inspect_container(inst, sandbox_id,
                                      &(docker_inspect_wants){
                                          .to = &(common_answer){ &sandbox, NULL },
                                          .running = &running, .container_id = container_id },
                                      &cause);
    if (st != SBX_OK && st != SBX_ERR_NOT_FOUND)
        DOCKER_LOG(inst, SBX_LOG_WARN, "%s is unknown: %s", what, cause.message);
    else if (!settle_reconciliation(out, st == SBX_OK ? SBX_RECONCILE_FOUND
                                                      : SBX_RECONCILE_ABSENT,
                                    name_space, container_id, sandbox, running))
        DOCKER_LOG(inst, SBX_LOG_WARN, "%s is unknown: out of memory", what);
    return SBX_OK;
}
