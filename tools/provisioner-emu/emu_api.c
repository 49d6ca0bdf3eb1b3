/* Route handlers of the emulated provisioner.  Each follows the real
 * provisioner's sequence of Kubernetes calls (emu_store.h), so that partial
 * states and injected Kubernetes failures give the real answers. */
#include "tools/provisioner-emu/emu_api.h"

#include "tools/provisioner-emu/emu_alloc.h"
#include "tools/provisioner-emu/emu_create.h"
#include "tools/provisioner-emu/emu_mounts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How often create reads the new Service before giving up (the real one
 * waits half a second between reads; the emulator does not wait). */
#define SERVICE_URL_READS 20

/* The phase the provisioner reports when it cannot read the Pod. */
#define PHASE_NOT_FOUND "NotFound"

/* A detail longer than any id the router passes, plus its words. */
#define DETAIL_MAX (SBX_EMU_ID_MAX + SBX_EMU_REASON_MAX + 160)

static void answer_not_found_route(sbx_emu_reply *reply)
{
    sbx_emu_reply_detail(reply, 404, "Not Found");
}

/* An exception the provisioner does not catch: its server answers this. */
static void answer_internal_error(sbx_emu_reply *reply)
{
    sbx_emu_reply_text(reply, 500, "Internal Server Error", "text/plain; charset=utf-8");
}

/* Answer `status` with {"detail": "<a><b><c>"}. */
static void answer_words(sbx_emu_reply *reply, unsigned status, const char *a, const char *b,
                         const char *c)
{
    char detail[DETAIL_MAX];
    snprintf(detail, sizeof detail, "%s%s%s", a, b, c);
    sbx_emu_reply_detail(reply, status, detail);
}

/* Kubernetes answers the provisioner lets through (a Service read that may
 * fail "transiently") except 401 and 403, which it re-raises. */
static int raised_through_tolerance(int status)
{
    return status == 401 || status == 403;
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
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "lark_cli_init_image", json_object_new_boolean(0));
    json_object_object_add(obj, "lark_cli_broker_image", json_object_new_boolean(0));
    if (contract->version >= 1)
        json_object_object_add(obj, "mount_contract_version",
                               json_object_new_int(contract->version));
    sbx_emu_reply_json(reply, 200, obj);
}

static void answer_contract_changed(int64_t expected, int actual, sbx_emu_reply *reply)
{
    json_object *detail = json_object_new_object();
    json_object_object_add(detail, "code", json_object_new_string("mount_contract_changed"));
    json_object_object_add(detail, "expected", json_object_new_int64(expected));
    json_object_object_add(detail, "actual", json_object_new_int(actual));
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "detail", detail);
    sbx_emu_reply_json(reply, 409, obj);
}

/* The answer model of create, get and list.  Identity members are sent
 * when `with_identity` (a provisioner with a mount contract), as null when
 * `pod` is NULL (list entries). */
static json_object *sandbox_response(const char *id, const char *url, const char *phase,
                                     const sbx_emu_pod *pod, int with_identity)
{
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "sandbox_id", json_object_new_string(id));
    json_object_object_add(obj, "sandbox_url", json_object_new_string(url));
    json_object_object_add(obj, "status", json_object_new_string(phase));
    if (with_identity) {
        json_object_object_add(obj, "user_id",
                               pod != NULL ? json_object_new_string(pod->user_id) : NULL);
        json_object_object_add(obj, "thread_id",
                               pod != NULL ? json_object_new_string(pod->thread_id) : NULL);
        json_object_object_add(obj, "mount_contract_version",
                               pod != NULL ? json_object_new_int(pod->contract_version) : NULL);
    }
    return obj;
}

/* The Pod's phase, or NotFound when it cannot be read. */
static char *pod_phase(sbx_emu_context *ctx, const char *id)
{
    sbx_emu_pod pod;
    char reason[SBX_EMU_REASON_MAX];
    if (sbx_emu_store_read_pod(ctx->store, id, &pod, reason) != 0)
        return sbx_emu_xstrdup(PHASE_NOT_FOUND);
    char *phase = pod.phase;
    pod.phase = NULL;
    sbx_emu_pod_clear(&pod);
    return phase;
}

/* What a request expects of an existing sandbox; NULL members: no check. */
typedef struct expectation {
    const char *user_id;
    const char *thread_id;
    const char *mounts;
} expectation;

/* The provisioner's fail-closed check of an existing Pod: it must carry
 * the served contract, and the owner, thread and mounts `want` names.
 * Reads the Pod into *pod when `pod` has no user yet.  Returns 1, or 0 with
 * the 409 in `reply` (and *pod cleared). */
static int existing_pod_verified(sbx_emu_context *ctx, int version, const char *id,
                                 sbx_emu_pod *pod, const expectation *want,
                                 sbx_emu_reply *reply)
{
    char reason[SBX_EMU_REASON_MAX];
    if (pod->user_id == NULL && sbx_emu_store_read_pod(ctx->store, id, pod, reason) != 0) {
        answer_words(reply, 409, "Existing sandbox '", id, "' has no verifiable Pod contract");
        return 0;
    }
    const char *problem = NULL;
    if (pod->contract_version != version)
        problem = "' uses an incompatible or unverifiable mount contract; "
                  "destroy it before retrying";
    else if (want->user_id != NULL && strcmp(want->user_id, pod->user_id) != 0)
        problem = "' belongs to another user";
    else if (want->thread_id != NULL && strcmp(want->thread_id, pod->thread_id) != 0)
        problem = "' belongs to another thread";
    else if (want->mounts != NULL && strcmp(want->mounts, pod->mounts) != 0)
        problem = "' does not match the requested mount contract";
    if (problem == NULL)
        return 1;
    sbx_emu_pod_clear(pod);
    answer_words(reply, 409, "Existing sandbox '", id, problem);
    return 0;
}

/* The create answer once the Pod and Service exist at `url`. */
static void answer_created(sbx_emu_context *ctx, const char *id, const char *url,
                           const sbx_emu_pod *identity, int with_identity,
                           sbx_emu_reply *reply)
{
    char *phase = pod_phase(ctx, id);
    sbx_emu_reply_json(reply, 200, sandbox_response(id, url, phase, identity, with_identity));
    free(phase);
}

/* Create the Pod (or verify the one there) and its Service, then read the
 * Service's URL, as the real provisioner's slow path does. */
static void create_pod_and_service(sbx_emu_context *ctx, int version, const char *id,
                                   const sbx_emu_pod *wanted, sbx_emu_reply *reply)
{
    char reason[SBX_EMU_REASON_MAX];
    int with_identity = version >= 1;
    int status = sbx_emu_store_create_pod(ctx->store, id, wanted, reason);
    if (status == 409 && with_identity) {
        sbx_emu_pod existing = {0};
        expectation want = {wanted->user_id, wanted->thread_id, wanted->mounts};
        if (!existing_pod_verified(ctx, version, id, &existing, &want, reply))
            return;
        sbx_emu_pod_clear(&existing);
    } else if (status != 0 && status != 409) {
        answer_words(reply, 500, "Pod creation failed: ", reason, "");
        return;
    }
    status = sbx_emu_store_create_service(ctx->store, id, reason);
    if (status != 0 && status != 409) {
        char ignored[SBX_EMU_REASON_MAX];
        sbx_emu_store_delete_pod(ctx->store, id, ignored);   /* roll back */
        answer_words(reply, 500, "Service creation failed: ", reason, "");
        return;
    }
    char *url = NULL;
    for (int i = 0; i < SERVICE_URL_READS && url == NULL; i++) {
        status = sbx_emu_store_read_service(ctx->store, id, &url, reason);
        if (raised_through_tolerance(status)) {
            answer_internal_error(reply);
            return;
        }
    }
    if (url == NULL) {
        sbx_emu_reply_detail(reply, 500, "Service access URL was not available in time");
        return;
    }
    answer_created(ctx, id, url, wanted, with_identity, reply);
    free(url);
}

static void answer_create(sbx_emu_context *ctx, const sbx_emu_contract_settings *contract,
                          const char *body, size_t body_len, const char *content_type,
                          sbx_emu_reply *reply)
{
    sbx_emu_create_request request;
    if (!sbx_emu_create_parse(body, body_len, content_type, &request, reply))
        return;
    int with_identity = contract->version >= 1;
    const char *id = request.sandbox_id;
    /* A legacy provisioner ignores the precondition it does not know. */
    if (with_identity && request.has_required_version &&
        request.required_version != contract->version) {
        answer_contract_changed(request.required_version, contract->version, reply);
        sbx_emu_create_request_clear(&request);
        return;
    }
    sbx_emu_pod wanted = {0};
    wanted.user_id = (char *)request.user_id;
    wanted.thread_id = (char *)(request.thread_id != NULL ? request.thread_id : id);
    wanted.contract_version = contract->version;
    wanted.mounts = sbx_emu_mounts_check(request.extra_mounts, wanted.user_id,
                                         wanted.thread_id, ctx->state_dir, reply);
    json_object *verbatim = wanted.mounts != NULL ? sbx_emu_store_verbatim(ctx->store, id) : NULL;
    char reason[SBX_EMU_REASON_MAX], *url = NULL;
    if (wanted.mounts == NULL) {
        /* the 400 is in reply */
    } else if (verbatim != NULL) {
        sbx_emu_reply_json(reply, 200, verbatim);
    } else {
        /* Fast path: a sandbox whose Service answers is returned once it
         * proves to be the one asked for (a legacy provisioner does not ask). */
        int status = sbx_emu_store_read_service(ctx->store, id, &url, reason);
        sbx_emu_pod existing = {0};
        expectation want = {wanted.user_id, wanted.thread_id, wanted.mounts};
        if (raised_through_tolerance(status))
            answer_internal_error(reply);
        else if (status != 0)
            create_pod_and_service(ctx, contract->version, id, &wanted, reply);
        else if (!with_identity)
            answer_created(ctx, id, url, NULL, 0, reply);
        else if (existing_pod_verified(ctx, contract->version, id, &existing, &want, reply))
            answer_created(ctx, id, url, &wanted, 1, reply);
        sbx_emu_pod_clear(&existing);
    }
    free(url);
    free(wanted.mounts);
    sbx_emu_create_request_clear(&request);
}

static void answer_get(sbx_emu_context *ctx, const sbx_emu_contract_settings *contract,
                       const char *id, sbx_emu_reply *reply)
{
    json_object *verbatim = sbx_emu_store_verbatim(ctx->store, id);
    if (verbatim != NULL) {
        sbx_emu_reply_json(reply, 200, verbatim);
        return;
    }
    char reason[SBX_EMU_REASON_MAX], *url = NULL;
    int status = sbx_emu_store_read_service(ctx->store, id, &url, reason);
    if (status == 404) {
        answer_words(reply, 404, "Sandbox '", id, "' not found");
        return;
    }
    if (status != 0) {
        answer_internal_error(reply);
        return;
    }
    int with_identity = contract->version >= 1;
    sbx_emu_pod pod = {0};
    static const expectation anything = {NULL, NULL, NULL};
    if (!with_identity || existing_pod_verified(ctx, contract->version, id, &pod, &anything,
                                                reply)) {
        char *phase = pod_phase(ctx, id);
        sbx_emu_reply_json(reply, 200, sandbox_response(id, url, phase, &pod, with_identity));
        free(phase);
    }
    sbx_emu_pod_clear(&pod);
    free(url);
}

static void answer_delete(sbx_emu_context *ctx, const char *id, sbx_emu_reply *reply)
{
    char service_reason[SBX_EMU_REASON_MAX], pod_reason[SBX_EMU_REASON_MAX];
    int service = sbx_emu_store_delete_service(ctx->store, id, service_reason);
    int pod = sbx_emu_store_delete_pod(ctx->store, id, pod_reason);
    int service_failed = service != 0 && service != 404, pod_failed = pod != 0 && pod != 404;
    if (service_failed || pod_failed) {
        char detail[2 * SBX_EMU_REASON_MAX + 64];
        snprintf(detail, sizeof detail, "Partial cleanup: %s%s%s%s%s",
                 service_failed ? "service: " : "", service_failed ? service_reason : "",
                 service_failed && pod_failed ? ", " : "", pod_failed ? "pod: " : "",
                 pod_failed ? pod_reason : "");
        sbx_emu_reply_detail(reply, 500, detail);
        return;
    }
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "ok", json_object_new_boolean(1));
    json_object_object_add(obj, "sandbox_id", json_object_new_string(id));
    sbx_emu_reply_json(reply, 200, obj);
}

static void answer_list(sbx_emu_context *ctx, const sbx_emu_contract_settings *contract,
                        sbx_emu_reply *reply)
{
    sbx_emu_listed *services = NULL;
    size_t count = 0;
    char reason[SBX_EMU_REASON_MAX];
    if (sbx_emu_store_list_services(ctx->store, &services, &count, reason) != 0) {
        answer_words(reply, 500, "Failed to list services: ", reason, "");
        return;
    }
    json_object *sandboxes = json_object_new_array();
    for (size_t i = 0; i < count; i++) {
        json_object *entry = services[i].verbatim;
        services[i].verbatim = NULL;
        if (entry == NULL) {
            /* The real list reads no identity: with a contract, it is null. */
            char *phase = pod_phase(ctx, services[i].sandbox_id);
            entry = sandbox_response(services[i].sandbox_id, services[i].url, phase, NULL,
                                     contract->version >= 1);
            free(phase);
        }
        json_object_array_add(sandboxes, entry);
    }
    sbx_emu_listed_free(services, count);
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "sandboxes", sandboxes);
    json_object_object_add(obj, "count", json_object_new_int((int)count));
    sbx_emu_reply_json(reply, 200, obj);
}

static void copy_member(json_object *to, json_object *from, const char *key)
{
    json_object *value = NULL;
    json_object_object_get_ex(from, key, &value);
    json_object_object_add(to, key, json_object_get(value));
}

/* The reconciliation answer; every member of the real model is present,
 * null when it does not apply. */
static json_object *reconciliation(const char *id, const char *namespace_uid, const char *uid)
{
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "sandbox_id", json_object_new_string(id));
    json_object_object_add(obj, "status", json_object_new_string(uid != NULL ? "found" : "absent"));
    json_object_object_add(obj, "backend_namespace", json_object_new_string(namespace_uid));
    json_object_object_add(obj, "incarnation_id", uid != NULL ? json_object_new_string(uid) : NULL);
    return obj;
}

static void answer_reconcile(sbx_emu_context *ctx, const sbx_emu_contract_settings *contract,
                             const char *id, sbx_emu_reply *reply)
{
    char reason[SBX_EMU_REASON_MAX];
    if (sbx_emu_store_read_namespace(ctx->store, reason) != 0) {
        answer_words(reply, 503, "Could not verify sandbox backend namespace: ", reason, "");
        return;
    }
    sbx_emu_pod pod = {0};
    int status = sbx_emu_store_read_pod(ctx->store, id, &pod, reason);
    if (status != 0 && status != 404) {
        answer_words(reply, 503, "Could not verify sandbox Pod: ", reason, "");
        return;
    }
    json_object *verbatim = status == 0 ? sbx_emu_store_verbatim(ctx->store, id) : NULL;
    json_object *obj = reconciliation(id, ctx->namespace_uid, status == 0 ? pod.uid : NULL);
    static const char *const identity[] = {"sandbox_url", "user_id", "thread_id",
                                           "mount_contract_version"};
    static const expectation anything = {NULL, NULL, NULL};
    char *url = NULL;
    if (verbatim != NULL || status == 404) {
        for (size_t i = 0; i < sizeof identity / sizeof identity[0]; i++)
            copy_member(obj, verbatim, identity[i]);
    } else if (contract->version >= 1 &&
               !existing_pod_verified(ctx, contract->version, id, &pod, &anything, reply)) {
        json_object_put(obj);
        obj = NULL;
    } else if (raised_through_tolerance(
                   sbx_emu_store_read_service(ctx->store, id, &url, reason))) {
        answer_internal_error(reply);
        json_object_put(obj);
        obj = NULL;
    } else {
        /* A Pod whose Service is gone is found, without a URL. */
        json_object_object_add(obj, "sandbox_url", url != NULL ? json_object_new_string(url) : NULL);
        json_object_object_add(obj, "user_id", json_object_new_string(pod.user_id));
        json_object_object_add(obj, "thread_id", json_object_new_string(pod.thread_id));
        json_object_object_add(obj, "mount_contract_version",
                               json_object_new_int(pod.contract_version));
    }
    if (obj != NULL)
        sbx_emu_reply_json(reply, 200, obj);
    json_object_put(verbatim);
    free(url);
    sbx_emu_pod_clear(&pod);
}

void sbx_emu_api_answer(sbx_emu_context *ctx, sbx_emu_route route, const char *id,
                        const char *body, size_t body_len, const char *content_type,
                        sbx_emu_reply *reply)
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
        answer_create(ctx, &contract, body, body_len, content_type, reply);
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

int sbx_emu_api_route_enabled(sbx_emu_context *ctx, sbx_emu_route route)
{
    sbx_emu_contract_settings contract = sbx_emu_contract_get(&ctx->contract);
    if (route == SBX_EMU_ROUTE_CAPABILITIES)
        return contract.capabilities_route;
    if (route == SBX_EMU_ROUTE_RECONCILE)
        return contract.reconciliation_route;
    return 1;
}
