/* Route handlers of the emulated provisioner. */
#include "tools/provisioner-emu/emu_api.h"

#include "tools/provisioner-emu/emu_create.h"

#include <stdio.h>
#include <string.h>

static void answer_not_found_route(sbx_emu_reply *reply)
{
    sbx_emu_reply_detail(reply, 404, "Not Found");
}

static void answer_sandbox_not_found(const char *id, sbx_emu_reply *reply)
{
    char detail[SBX_EMU_ID_MAX + 32];
    snprintf(detail, sizeof detail, "Sandbox '%s' not found", id);
    sbx_emu_reply_detail(reply, 404, detail);
}

static void answer_health(sbx_emu_reply *reply)
{
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "status", json_object_new_string("ok"));
    sbx_emu_reply_json(reply, 200, obj);
}

static void answer_capabilities(const sbx_emu_contract_settings *contract,
                                sbx_emu_reply *reply)
{
    if (!contract->capabilities_route) {
        answer_not_found_route(reply);
        return;
    }
    json_object *obj = json_object_new_object();
    if (contract->version >= 1)
        json_object_object_add(obj, "mount_contract_version",
                               json_object_new_int(contract->version));
    json_object_object_add(obj, "lark_cli_init_image", json_object_new_boolean(0));
    json_object_object_add(obj, "lark_cli_broker_image", json_object_new_boolean(0));
    sbx_emu_reply_json(reply, 200, obj);
}

static void answer_contract_changed(int expected, int actual, sbx_emu_reply *reply)
{
    json_object *detail = json_object_new_object();
    json_object_object_add(detail, "code", json_object_new_string("mount_contract_changed"));
    json_object_object_add(detail, "expected", json_object_new_int(expected));
    json_object_object_add(detail, "actual", json_object_new_int(actual));
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "detail", detail);
    sbx_emu_reply_json(reply, 409, obj);
}

static void answer_create(sbx_emu_context *ctx, const sbx_emu_contract_settings *contract,
                          const char *body, size_t body_len, sbx_emu_reply *reply)
{
    sbx_emu_create_request request;
    if (!sbx_emu_create_parse(body, body_len, &request, reply))
        return;
    /* A legacy provisioner ignores the precondition it does not know. */
    if (contract->version >= 1 && request.has_required_version &&
        request.required_version != contract->version) {
        answer_contract_changed(request.required_version, contract->version, reply);
    } else {
        json_object *view = sbx_emu_store_create(ctx->store, request.sandbox_id,
                                                 request.user_id, request.thread_id,
                                                 contract->version, contract->version >= 1);
        sbx_emu_reply_json(reply, 200, view);
    }
    sbx_emu_create_request_clear(&request);
}

static void answer_get(sbx_emu_context *ctx, const sbx_emu_contract_settings *contract,
                       const char *id, sbx_emu_reply *reply)
{
    json_object *view = sbx_emu_store_find(ctx->store, id, contract->version >= 1, NULL);
    if (view == NULL)
        answer_sandbox_not_found(id, reply);
    else
        sbx_emu_reply_json(reply, 200, view);
}

static void answer_delete(sbx_emu_context *ctx, const char *id, sbx_emu_reply *reply)
{
    sbx_emu_store_delete(ctx->store, id);
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "ok", json_object_new_boolean(1));
    json_object_object_add(obj, "sandbox_id", json_object_new_string(id));
    sbx_emu_reply_json(reply, 200, obj);
}

static void answer_list(sbx_emu_context *ctx, const sbx_emu_contract_settings *contract,
                        sbx_emu_reply *reply)
{
    json_object *sandboxes = sbx_emu_store_list(ctx->store, contract->version >= 1);
    int count = (int)json_object_array_length(sandboxes);
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "sandboxes", sandboxes);
    json_object_object_add(obj, "count", json_object_new_int(count));
    sbx_emu_reply_json(reply, 200, obj);
}

static void copy_member(json_object *to, json_object *from, const char *key)
{
    json_object *value = NULL;
    json_object_object_get_ex(from, key, &value);
    json_object_object_add(to, key, json_object_get(value));
}

static void answer_reconcile(sbx_emu_context *ctx, const sbx_emu_contract_settings *contract,
                             const char *id, sbx_emu_reply *reply)
{
    if (!contract->reconciliation_route) {
        answer_not_found_route(reply);
        return;
    }
    char incarnation[SBX_EMU_UID_LEN + 1];
    json_object *sandbox = sbx_emu_store_find(ctx->store, id, 1, incarnation);
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "sandbox_id", json_object_new_string(id));
    json_object_object_add(obj, "status",
                           json_object_new_string(sandbox != NULL ? "found" : "absent"));
    if (sandbox != NULL) {
        copy_member(obj, sandbox, "sandbox_url");
        copy_member(obj, sandbox, "user_id");
        copy_member(obj, sandbox, "thread_id");
        copy_member(obj, sandbox, "mount_contract_version");
    }
    json_object_object_add(obj, "backend_namespace",
                           json_object_new_string(ctx->namespace_uid));
    if (sandbox != NULL)
        json_object_object_add(obj, "incarnation_id", json_object_new_string(incarnation));
    json_object_put(sandbox);
    sbx_emu_reply_json(reply, 200, obj);
}

void sbx_emu_api_answer(sbx_emu_context *ctx, sbx_emu_route route, const char *id,
                        const char *body, size_t body_len, sbx_emu_reply *reply)
{
    sbx_emu_contract_settings contract = sbx_emu_contract_get(&ctx->contract);
    switch (route) {
    case SBX_EMU_ROUTE_HEALTH:
        answer_health(reply);
        break;
    case SBX_EMU_ROUTE_CAPABILITIES:
        answer_capabilities(&contract, reply);
        break;
    case SBX_EMU_ROUTE_CREATE:
        answer_create(ctx, &contract, body, body_len, reply);
        break;
    case SBX_EMU_ROUTE_GET:
        answer_get(ctx, &contract, id, reply);
        break;
    case SBX_EMU_ROUTE_DELETE:
        answer_delete(ctx, id, reply);
        break;
    case SBX_EMU_ROUTE_LIST:
        answer_list(ctx, &contract, reply);
        break;
    case SBX_EMU_ROUTE_RECONCILE:
        answer_reconcile(ctx, &contract, id, reply);
        break;
    case SBX_EMU_ROUTE_NONE:
    case SBX_EMU_ROUTE_COUNT:
        answer_not_found_route(reply);
        break;
    }
}
