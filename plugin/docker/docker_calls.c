/* Engine calls on one sandbox's container (see docker_calls.h). */
#include <config.h>

#include "plugin/docker/docker_calls.h"

#include "common/create_request.h"
#include "plugin/docker/docker_container.h"
#include "plugin/docker/docker_expiry.h"

#include <stdio.h>

sbx_status docker_inspect_json(sbx_backend_instance *inst, const char *id, const char *what,
                               json_object **out, sbx_error *err)
{
    *out = NULL;
    /* A read of ours kept open would hold dockerd's lock of the container
     * and make this inspect wait for it. */
    docker_kept_reads_drop(&inst->reads, id);
    char name[DOCKER_NAME_MAX], path[DOCKER_NAME_MAX + 32];
    docker_container_name(&inst->options, id, name, sizeof name);
    snprintf(path, sizeof path, "/containers/%s/json", name);
    common_http_response resp;
    sbx_status st = docker_engine_call(&inst->engine,
                                       &(common_http_call){.method = "GET", .path = path},
                                       what, &resp, err);
    if (st != SBX_OK)
        return st;
    if (resp.status != 200) {
        st = docker_engine_error(&resp, what, SBX_ERR_NOT_FOUND, err);
        common_http_response_clear(&resp);
        return st;
    }
    *out = docker_engine_parse(&resp, json_type_object, what, err);
    common_http_response_clear(&resp);
    return *out != NULL ? SBX_OK : SBX_ERR_PROTOCOL;
}

sbx_status docker_inspect_container(sbx_backend_instance *inst, const char *id,
                                    const docker_inspect_wants *wants, sbx_error *err)
{
    char *container_id = wants->container_id;
    char what[96];
    sbx_backend_format(what, sizeof what, "inspect of sandbox '%s'", id);
    json_object *o = NULL;
    sbx_status st = docker_inspect_json(inst, id, what, &o, err);
    if (st != SBX_OK)
        return st;
    docker_sandbox_view view;
    st = docker_view_from_inspect(&inst->options, o, id, &view, wants->running, err);
    /* A sandbox past its expiry is removed by whoever sees it; a record
     * shows the expiry extend moved. */
    if (st == SBX_OK)
        st = docker_expiry_settle(inst, id, view.facts.container_id,
                                  wants->to != NULL && wants->to->record != NULL,
                                  &view.facts.expires_at, err);
    if (st == SBX_OK && container_id != NULL && view.facts.container_id == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                   "docker: %s: the answer has no container Id",
                                   what);
    if (st == SBX_OK && container_id != NULL)
        snprintf(container_id, DOCKER_CONTAINER_ID_MAX, "%s", view.facts.container_id);
    if (st == SBX_OK && wants->spec != NULL)
        snprintf(wants->spec, COMMON_SPEC_DIGEST_SIZE, "%s", view.spec != NULL ? view.spec : "");
    if (st == SBX_OK && wants->to != NULL) {
        docker_instance_name_engine(wants->engine, &view.facts);
        st = common_answer_one(wants->to, &view.facts, err);
    }
    json_object_put(o);
    return st;
}

sbx_status docker_inspect_sandbox(sbx_backend_instance *inst, const char *id,
                                  const common_answer *to,
                                  const docker_engine_identity *engine, int *running,
                                  sbx_error *err)
{
    docker_inspect_wants wants = { .to = to, .engine = engine, .running = running };
    return docker_inspect_container(inst, id, &wants, err);
}

sbx_status docker_container_action(sbx_backend_instance *inst, const char *id,
                                   const char *container_id, const docker_container_call *call,
                                   sbx_error *err)
{
    /* The path fits: "/containers/" (12), the name or an ID (both at most
     * DOCKER_NAME_MAX - 1), an action of at most 6 and a query of at most
     * 32 bytes. */
    char name[DOCKER_NAME_MAX], path[DOCKER_NAME_MAX + 64], what[96];
    if (container_id == NULL)
        docker_container_name(&inst->options, id, name, sizeof name);
    snprintf(path, sizeof path, "/containers/%s%s%s", container_id != NULL ? container_id : name,
             call->action, call->query);
    sbx_backend_format(what, sizeof what, "%s of sandbox '%s'",
                       call->action[0] ? call->action + 1 : "removal", id);
    common_http_response resp;
    common_http_call engine_call = {.method = call->method, .path = path,
                                    .timeout_ms = call->extra_ms};
    sbx_status st = docker_engine_call(&inst->engine, &engine_call, what, &resp, err);
    if (st != SBX_OK)
        return st;
    if (resp.status < 200 || (resp.status >= 300 && resp.status != 304))
        st = docker_engine_error(&resp, what, SBX_ERR_NOT_FOUND, err);
    common_http_response_clear(&resp);
    return st;
}

sbx_status docker_remove_container(sbx_backend_instance *inst, const char *id,
                                   const char *container_id, sbx_error *err)
{
    static const docker_container_call removal = { "DELETE", "", "?force=true", 0 };
    return docker_container_action(inst, id, container_id, &removal, err);
}
