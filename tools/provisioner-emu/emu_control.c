/* Control API handlers.  Errors answer 400 {"detail": "..."} naming what
 * is wrong, so that a broken test says why. */
#include <config.h>

#include "tools/provisioner-emu/emu_control.h"

#include "tools/provisioner-common/prov_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest /_emu/wait a test may ask for; keeps threads from piling up. */
#define MAX_WAIT_MS 120000L

static void answer_ok(prov_reply *reply)
{
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "ok", json_object_new_boolean(1));
    prov_reply_json(reply, 200, obj);
}

/* Parse a JSON object body; on failure answers 400 and returns NULL. */
static json_object *object_body(const char *body, size_t len, prov_reply *reply)
{
    size_t offset = 0;
    const char *why = NULL;
    json_object *root = prov_json_parse(body, len, &offset, &why);
    if (json_object_is_type(root, json_type_object))
        return root;
    json_object_put(root);
    prov_reply_detail(reply, 400, "the body must be a JSON object");
    return NULL;
}

/* Forgets Pods, Services and Kubernetes failures too (emu_store_reset). */
static void answer_reset(emu_context *ctx, prov_reply *reply)
{
    emu_store_reset(ctx->store);
    emu_faults_reset(ctx->faults);
    emu_request_log_clear(ctx->log);
    emu_contract_reset(&ctx->contract);
    answer_ok(reply);
}

static json_object *contract_json(const emu_contract_settings *s)
{
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "version", json_object_new_int(s->version));
    json_object_object_add(obj, "capabilities_route",
                           json_object_new_boolean(s->capabilities_route));
    json_object_object_add(obj, "reconciliation_route",
                           json_object_new_boolean(s->reconciliation_route));
    return obj;
}

static void answer_contract(emu_context *ctx, const char *method, const char *body,
                            size_t len, prov_reply *reply)
{
    emu_contract_settings s = emu_contract_get(&ctx->contract);
    if (strcmp(method, "PUT") == 0) {
        json_object *root = object_body(body, len, reply), *v = NULL;
        if (root == NULL)
            return;
        const char *problem = NULL;
        if (json_object_object_get_ex(root, "version", &v)) {
            if (json_object_is_type(v, json_type_int) && json_object_get_int(v) >= 0)
                s.version = json_object_get_int(v);
            else
                problem = "version must be a non-negative integer";
        }
        if (json_object_object_get_ex(root, "capabilities_route", &v)) {
            if (json_object_is_type(v, json_type_boolean))
                s.capabilities_route = json_object_get_boolean(v);
            else
                problem = "capabilities_route must be a boolean";
        }
        if (json_object_object_get_ex(root, "reconciliation_route", &v)) {
            if (json_object_is_type(v, json_type_boolean))
                s.reconciliation_route = json_object_get_boolean(v);
            else
                problem = "reconciliation_route must be a boolean";
        }
        json_object_put(root);
        if (problem != NULL) {
            prov_reply_detail(reply, 400, problem);
            return;
        }
        emu_contract_set(&ctx->contract, &s);
    }
    prov_reply_json(reply, 200, contract_json(&s));
}

static void answer_add_fault(emu_context *ctx, const char *body, size_t len,
                             prov_reply *reply)
{
    json_object *root = object_body(body, len, reply);
    if (root == NULL)
        return;
    prov_route route = PROV_ROUTE_NONE;
    emu_fault fault;
    const char *problem = emu_fault_parse(root, &route, &fault);
    json_object_put(root);
    if (problem != NULL) {
        prov_reply_detail(reply, 400, problem);
        return;
    }
    int queued = emu_faults_add(ctx->faults, route, &fault);
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "ok", json_object_new_boolean(1));
    json_object_object_add(obj, "route", json_object_new_string(prov_route_name(route)));
    json_object_object_add(obj, "queued", json_object_new_int(queued));
    prov_reply_json(reply, 200, obj);
}

static void answer_release(emu_context *ctx, const char *body, size_t len,
                           prov_reply *reply)
{
    json_object *root = object_body(body, len, reply), *v = NULL;
    if (root == NULL)
        return;
    json_object_object_get_ex(root, "route", &v);
    prov_route route = prov_route_from_name(
        json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL);
    json_object_put(root);
    if (route == PROV_ROUTE_NONE) {
        prov_reply_detail(reply, 400, "route must name a route (health, create, ...)");
        return;
    }
    int released = emu_faults_release(ctx->faults, route);
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "ok", json_object_new_boolean(1));
    json_object_object_add(obj, "released", json_object_new_int(released));
    prov_reply_json(reply, 200, obj);
}

/* A non-negative decimal query argument; `fallback` when absent, -2 when
 * malformed. */
static long number_argument(const prov_request *req, const char *name, long fallback)
{
    const char *text = prov_request_query(req, name);
    if (text == NULL || text[0] == '\0')
        return fallback;
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || value < 0)
        return -2;
    return value;
}

static void answer_wait(emu_context *ctx, const prov_request *req, prov_reply *reply)
{
    prov_route route = prov_route_from_name(prov_request_query(req, "route"));
    long received = number_argument(req, "received", 0);
    long held = number_argument(req, "held", -1);
    long timeout_ms = number_argument(req, "timeout_ms", 5000);
    if (route == PROV_ROUTE_NONE || received < 0 || held < -1 || timeout_ms < 0 ||
        received > 1000000 || held > 1000000) {
        prov_reply_detail(reply, 400,
                              "wait needs route=NAME and optional non-negative "
                              "received, held, timeout_ms");
        return;
    }
    if (timeout_ms > MAX_WAIT_MS)
        timeout_ms = MAX_WAIT_MS;
    int met = emu_faults_wait(ctx->faults, route, (int)received, (int)held, timeout_ms);
    prov_reply_json(reply, met ? 200 : 408, emu_faults_stats(ctx->faults));
}

static void answer_put_sandbox(emu_context *ctx, const char *id, const char *body,
                               size_t len, prov_reply *reply)
{
    json_object *root = object_body(body, len, reply);
    if (root == NULL)
        return;
    emu_store_put(ctx->store, id, root);
    json_object_put(root);
    answer_ok(reply);
}

static void answer_set_phase(emu_context *ctx, const char *id, const char *body,
                             size_t len, prov_reply *reply)
{
    json_object *root = object_body(body, len, reply), *v = NULL;
    if (root == NULL)
        return;
    json_object_object_get_ex(root, "phase", &v);
    if (!json_object_is_type(v, json_type_string) || json_object_get_string_len(v) == 0)
        prov_reply_detail(reply, 400, "phase must be a non-empty string");
    else if (!emu_store_set_phase(ctx->store, id, json_object_get_string(v)))
        prov_reply_detail(reply, 404, "no such pod");
    else
        answer_ok(reply);
    json_object_put(root);
}

/* DELETE /_emu/sandboxes/{id}/service or /pod. */
static void answer_remove_part(emu_context *ctx, const char *id, int pod,
                               prov_reply *reply)
{
    if (emu_store_remove_part(ctx->store, id, pod))
        answer_ok(reply);
    else
        prov_reply_detail(reply, 404, pod ? "no such pod" : "no such service");
}

/* /_emu/sandboxes/{id}[/service|/pod|/phase]: `rest` is what follows
 * "sandboxes/". */
static void answer_sandbox(emu_context *ctx, const char *method, const char *rest,
                           const char *body, size_t len, prov_reply *reply)
{
    const char *slash = strchr(rest, '/');
    size_t id_len = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
    const char *part = slash != NULL ? slash + 1 : "";
    if (id_len == 0 || id_len > PROV_ID_MAX) {
        prov_reply_detail(reply, 400, "/_emu/sandboxes/{id} needs one id segment");
        return;
    }
    char id[PROV_ID_MAX + 1];
    memcpy(id, rest, id_len);
    id[id_len] = '\0';
    int put = strcmp(method, "PUT") == 0, del = strcmp(method, "DELETE") == 0;
    if (put && part[0] == '\0' && slash == NULL)
        answer_put_sandbox(ctx, id, body, len, reply);
    else if (put && strcmp(part, "phase") == 0)
        answer_set_phase(ctx, id, body, len, reply);
    else if (del && (strcmp(part, "service") == 0 || strcmp(part, "pod") == 0))
        answer_remove_part(ctx, id, strcmp(part, "pod") == 0, reply);
    else
        prov_reply_detail(reply, 404, "no such control route");
}

/* POST /_emu/kube-faults {"op","status","reason","times","sandbox_id"}. */
static void answer_kube_fault(emu_context *ctx, const char *body, size_t len,
                              prov_reply *reply)
{
    json_object *root = object_body(body, len, reply), *op = NULL, *status = NULL,
                *reason = NULL, *times = NULL, *id = NULL;
    if (root == NULL)
        return;
    json_object_object_get_ex(root, "op", &op);
    json_object_object_get_ex(root, "status", &status);
    int has_reason = json_object_object_get_ex(root, "reason", &reason);
    int has_times = json_object_object_get_ex(root, "times", &times);
    int has_id = json_object_object_get_ex(root, "sandbox_id", &id);
    int op_index = emu_kube_op_from_name(
        json_object_is_type(op, json_type_string) ? json_object_get_string(op) : NULL);
    const char *problem = NULL;
    if (op_index < 0)
        problem = "op must name a Kubernetes call (read_namespace, read_pod, read_service, "
                  "list_services, create_pod, create_service, delete_pod, delete_service)";
    else if (!json_object_is_type(status, json_type_int) || json_object_get_int(status) < 400 ||
             json_object_get_int(status) > 599)
        problem = "status must be an HTTP error status (400..599)";
    else if (has_reason && !json_object_is_type(reason, json_type_string))
        problem = "reason must be a string";
    else if (has_times && (!json_object_is_type(times, json_type_int) ||
                           json_object_get_int(times) < -1))
        problem = "times must be an integer >= -1";
    else if (has_id && !json_object_is_type(id, json_type_string))
        problem = "sandbox_id must be a string";
    if (problem != NULL) {
        prov_reply_detail(reply, 400, problem);
    } else {
        emu_store_inject(ctx->store, (emu_kube_op)op_index, json_object_get_int(status),
                             has_reason ? json_object_get_string(reason) : NULL,
                             has_times ? json_object_get_int(times) : 1,
                             has_id ? json_object_get_string(id) : NULL);
        answer_ok(reply);
    }
    json_object_put(root);
}

void emu_control_answer(emu_context *ctx, const prov_request *req, prov_reply *reply)
{
    const char *method = req->method, *body = req->body;
    size_t body_len = req->body_len;
    const char *name = req->path + strlen(EMU_CONTROL_PREFIX);
    int get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0;
    int put = strcmp(method, "PUT") == 0, del = strcmp(method, "DELETE") == 0;
    static const char sandboxes[] = "sandboxes/";

    if (strcmp(name, "reset") == 0 && post)
        answer_reset(ctx, reply);
    else if (strcmp(name, "contract") == 0 && (put || get))
        answer_contract(ctx, method, body, body_len, reply);
    else if (strcmp(name, "faults") == 0 && post)
        answer_add_fault(ctx, body, body_len, reply);
    else if (strcmp(name, "release") == 0 && post)
        answer_release(ctx, body, body_len, reply);
    else if (strcmp(name, "requests") == 0 && get)
        prov_reply_json(reply, 200, emu_request_log_json(ctx->log));
    else if (strcmp(name, "requests") == 0 && del) {
        emu_request_log_clear(ctx->log);
        answer_ok(reply);
    } else if (strcmp(name, "stats") == 0 && get)
        prov_reply_json(reply, 200, emu_faults_stats(ctx->faults));
    else if (strcmp(name, "wait") == 0 && get)
        answer_wait(ctx, req, reply);
    else if (strcmp(name, "kube-faults") == 0 && post)
        answer_kube_fault(ctx, body, body_len, reply);
    else if (strncmp(name, sandboxes, strlen(sandboxes)) == 0 && (put || del))
        answer_sandbox(ctx, method, name + strlen(sandboxes), body, body_len, reply);
    else
        prov_reply_detail(reply, 404, "no such control route");
}
