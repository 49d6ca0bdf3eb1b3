/* Route handlers of the emulated provisioner.  Each follows the real
 * provisioner's sequence of Kubernetes calls (emu_store.h), so that partial
 * states and injected Kubernetes failures give the real answers. */
#include <config.h>

#include "tools/provisioner-emu/emu_api.h"

#include "tools/provisioner-emu/emu_alloc.h"

#include "tools/provisioner-common/prov_answers.h"
#include "tools/provisioner-common/prov_create.h"
#include "tools/provisioner-common/prov_mounts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How often create reads the new Service before giving up (the real one
 * waits half a second between reads; the emulator does not wait). */
#define SERVICE_URL_READS 20

/* Kubernetes answers the provisioner lets through (a Service read that may
 * fail "transiently") except 401 and 403, which it re-raises. */
static int raised_through_tolerance(int status)
{
    return status == 401 || status == 403;
}

/* A Pod's identity as the shared answers and checks read it. */
static prov_owner pod_owner(const emu_pod *pod)
{
    return (prov_owner){pod->user_id, pod->thread_id, pod->mounts, pod->contract_version};
}

/* The Pod's phase, or NotFound when it cannot be read. */
static char *pod_phase(emu_context *ctx, const char *id)
{
    emu_pod pod;
    char reason[EMU_REASON_MAX];
    if (emu_store_read_pod(ctx->store, id, &pod, reason) != 0)
        return emu_xstrdup(PROV_PHASE_NOT_FOUND, "a Pod phase");
    char *phase = pod.phase;
    pod.phase = NULL;
    emu_pod_clear(&pod);
    return phase;
}

/* The provisioner's fail-closed check of an existing Pod: it must carry
 * the served contract, and the owner, thread and mounts `want` names.
 * Reads the Pod into *pod when `pod` has no user yet.  Returns 1, or 0 with
 * the 409 in `reply` (and *pod cleared). */
static int existing_pod_verified(emu_context *ctx, int version, const char *id,
                                 emu_pod *pod, const prov_owner *want,
                                 prov_reply *reply)
{
    char reason[EMU_REASON_MAX];
    if (pod->user_id == NULL && emu_store_read_pod(ctx->store, id, pod, reason) != 0) {
        prov_answer_existing(id, PROV_UNVERIFIABLE, reply);
        return 0;
    }
    prov_owner have = pod_owner(pod);
    const char *problem = prov_owner_conflict(&have, version, want);
    if (problem == NULL)
        return 1;
    emu_pod_clear(pod);
    prov_answer_existing(id, problem, reply);
    return 0;
}

/* The create answer once the Pod and Service exist at `url`. */
static void answer_created(emu_context *ctx, const char *id, const char *url,
                           const emu_pod *identity, int with_identity,
                           prov_reply *reply)
{
    char *phase = pod_phase(ctx, id);
    prov_owner owner = identity != NULL ? pod_owner(identity) : (prov_owner){0};
    prov_reply_json(reply, 200, prov_sandbox_json(id, url, phase, &owner, with_identity));
    free(phase);
}

/* Create the Pod (or verify the one there) and its Service, then read the
 * Service's URL, as the real provisioner's slow path does. */
static void create_pod_and_service(emu_context *ctx, int version, const char *id,
                                   const emu_pod *wanted, prov_reply *reply)
{
    char reason[EMU_REASON_MAX];
    int with_identity = version >= 1;
    int status = emu_store_create_pod(ctx->store, id, wanted, reason);
    if (status == 409 && with_identity) {
        emu_pod existing = {0};
        prov_owner want = pod_owner(wanted);
        if (!existing_pod_verified(ctx, version, id, &existing, &want, reply))
            return;
        emu_pod_clear(&existing);
    } else if (status != 0 && status != 409) {
        prov_answer_words(reply, 500, "Pod creation failed: ", reason, "");
        return;
    }
    status = emu_store_create_service(ctx->store, id, reason);
    if (status != 0 && status != 409) {
        char ignored[EMU_REASON_MAX];
        emu_store_delete_pod(ctx->store, id, ignored);   /* roll back */
        prov_answer_words(reply, 500, "Service creation failed: ", reason, "");
        return;
    }
    char *url = NULL;
    for (int i = 0; i < SERVICE_URL_READS && url == NULL; i++) {
        status = emu_store_read_service(ctx->store, id, &url, reason);
        if (raised_through_tolerance(status)) {
            prov_answer_internal_error(reply);
            return;
        }
    }
    if (url == NULL) {
        prov_reply_detail(reply, 500, "Service access URL was not available in time");
        return;
    }
    answer_created(ctx, id, url, wanted, with_identity, reply);
    free(url);
}

static void answer_create(emu_context *ctx, const emu_contract_settings *contract,
                          const prov_request *req, prov_reply *reply)
{
    prov_create_request request;
    if (!prov_create_parse(req->body, req->body_len, req->content_type, 0, &request, reply))
        return;
    int with_identity = contract->version >= 1;
    const char *id = request.sandbox_id;
    /* A legacy provisioner ignores the precondition it does not know. */
    if (with_identity && request.has_required_version &&
        request.required_version != contract->version) {
        prov_answer_contract_changed(request.required_version, contract->version, reply);
        prov_create_request_clear(&request);
        return;
    }
    emu_pod wanted = {0};
    wanted.user_id = (char *)request.user_id;
    wanted.thread_id = (char *)(request.thread_id != NULL ? request.thread_id : id);
    wanted.contract_version = contract->version;
    wanted.mounts = prov_mounts_check(request.extra_mounts, wanted.user_id,
                                          wanted.thread_id, ctx->state_dir, reply);
    json_object *verbatim = wanted.mounts != NULL ? emu_store_verbatim(ctx->store, id) : NULL;
    char reason[EMU_REASON_MAX], *url = NULL;
    if (wanted.mounts == NULL) {
        /* the 400 is in reply */
    } else if (verbatim != NULL) {
        prov_reply_json(reply, 200, verbatim);
    } else {
        /* Fast path: a sandbox whose Service answers is returned once it
         * proves to be the one asked for (a legacy provisioner does not ask). */
        int status = emu_store_read_service(ctx->store, id, &url, reason);
        emu_pod existing = {0};
        prov_owner want = pod_owner(&wanted);
        if (raised_through_tolerance(status))
            prov_answer_internal_error(reply);
        else if (status != 0)
            create_pod_and_service(ctx, contract->version, id, &wanted, reply);
        else if (!with_identity)
            answer_created(ctx, id, url, NULL, 0, reply);
        else if (existing_pod_verified(ctx, contract->version, id, &existing, &want, reply))
            answer_created(ctx, id, url, &wanted, 1, reply);
        emu_pod_clear(&existing);
    }
    free(url);
    free(wanted.mounts);
    prov_create_request_clear(&request);
}

static void answer_get(emu_context *ctx, const emu_contract_settings *contract,
                       const char *id, prov_reply *reply)
{
    json_object *verbatim = emu_store_verbatim(ctx->store, id);
    if (verbatim != NULL) {
        prov_reply_json(reply, 200, verbatim);
        return;
    }
    char reason[EMU_REASON_MAX], *url = NULL;
    int status = emu_store_read_service(ctx->store, id, &url, reason);
    if (status == 404) {
        prov_answer_sandbox_not_found(id, reply);
        return;
    }
    if (status != 0) {
        prov_answer_internal_error(reply);
        return;
    }
    int with_identity = contract->version >= 1;
    emu_pod pod = {0};
    static const prov_owner anything = {NULL, NULL, NULL, 0};
    if (!with_identity || existing_pod_verified(ctx, contract->version, id, &pod, &anything,
                                                reply)) {
        char *phase = pod_phase(ctx, id);
        prov_owner owner = pod_owner(&pod);
        prov_reply_json(reply, 200,
                            prov_sandbox_json(id, url, phase, &owner, with_identity));
        free(phase);
    }
    emu_pod_clear(&pod);
    free(url);
}

static void answer_delete(emu_context *ctx, const char *id, prov_reply *reply)
{
    char service_reason[EMU_REASON_MAX], pod_reason[EMU_REASON_MAX];
    char uid[EMU_UID_LEN + 1];
    int served = emu_store_serves(ctx->store, id, uid);
    int service = emu_store_delete_service(ctx->store, id, service_reason);
    int pod = emu_store_delete_pod(ctx->store, id, pod_reason);
    if (served && pod == 0)
        emu_aio_sandbox_gone(ctx->aio, uid);
    int service_failed = service != 0 && service != 404, pod_failed = pod != 0 && pod != 404;
    if (service_failed || pod_failed) {
        char detail[2 * EMU_REASON_MAX + 64];
        snprintf(detail, sizeof detail, "Partial cleanup: %s%s%s%s%s",
                 service_failed ? "service: " : "", service_failed ? service_reason : "",
                 service_failed && pod_failed ? ", " : "", pod_failed ? "pod: " : "",
                 pod_failed ? pod_reason : "");
        prov_reply_detail(reply, 500, detail);
        return;
    }
    prov_answer_deleted(id, reply);
}

static void answer_list(emu_context *ctx, const emu_contract_settings *contract,
                        prov_reply *reply)
{
    emu_listed *services = NULL;
    size_t count = 0;
    char reason[EMU_REASON_MAX];
    if (emu_store_list_services(ctx->store, &services, &count, reason) != 0) {
        prov_answer_words(reply, 500, "Failed to list services: ", reason, "");
        return;
    }
    json_object *sandboxes = json_object_new_array();
    for (size_t i = 0; i < count; i++) {
        json_object *entry = services[i].verbatim;
        services[i].verbatim = NULL;
        if (entry == NULL) {
            /* The real list reads no identity: with a contract, it is null. */
            char *phase = pod_phase(ctx, services[i].sandbox_id);
            entry = prov_sandbox_json(services[i].sandbox_id, services[i].url, phase, NULL,
                                     contract->version >= 1);
            free(phase);
        }
        json_object_array_add(sandboxes, entry);
    }
    emu_listed_free(services, count);
    prov_answer_list(sandboxes, reply);
}

static void copy_member(json_object *to, json_object *from, const char *key)
{
    json_object *value = NULL;
    json_object_object_get_ex(from, key, &value);
    json_object_object_add(to, key, json_object_get(value));
}

static void answer_reconcile(emu_context *ctx, const emu_contract_settings *contract,
                             const char *id, prov_reply *reply)
{
    char reason[EMU_REASON_MAX];
    if (emu_store_read_namespace(ctx->store, reason) != 0) {
        prov_answer_words(reply, 503, "Could not verify sandbox backend namespace: ", reason, "");
        return;
    }
    emu_pod pod = {0};
    int status = emu_store_read_pod(ctx->store, id, &pod, reason);
    if (status != 0 && status != 404) {
        prov_answer_words(reply, 503, "Could not verify sandbox Pod: ", reason, "");
        return;
    }
    json_object *verbatim = status == 0 ? emu_store_verbatim(ctx->store, id) : NULL;
    json_object *obj =
        prov_reconciliation_json(id, ctx->namespace_uid, status == 0 ? pod.uid : NULL);
    static const char *const identity[] = {"sandbox_url", "user_id", "thread_id",
                                           "mount_contract_version"};
    static const prov_owner anything = {NULL, NULL, NULL, 0};
    char *url = NULL;
    if (obj == NULL) {
        prov_reply_out_of_memory(reply);
    } else if (verbatim != NULL || status == 404) {
        for (size_t i = 0; i < sizeof identity / sizeof identity[0]; i++)
            copy_member(obj, verbatim, identity[i]);
    } else if (contract->version >= 1 &&
               !existing_pod_verified(ctx, contract->version, id, &pod, &anything, reply)) {
        json_object_put(obj);
        obj = NULL;
    } else if (raised_through_tolerance(
                   emu_store_read_service(ctx->store, id, &url, reason))) {
        prov_answer_internal_error(reply);
        json_object_put(obj);
        obj = NULL;
    } else {
        /* A Pod whose Service is gone is found, without a URL. */
        prov_owner owner = pod_owner(&pod);
        obj = prov_reconciliation_identity(obj, url, &owner);
        if (obj == NULL)
            prov_reply_out_of_memory(reply);
    }
    if (obj != NULL)
        prov_reply_json(reply, 200, obj);
    json_object_put(verbatim);
    free(url);
    emu_pod_clear(&pod);
}

void emu_api_answer(emu_context *ctx, prov_route route, const char *id,
                    const prov_request *req, prov_reply *reply)
{
    emu_contract_settings contract = emu_contract_get(&ctx->contract);
    switch (route) {
    case PROV_ROUTE_HEALTH:
        prov_answer_health(reply);
        break;
    case PROV_ROUTE_CAPABILITIES:
        prov_answer_capabilities(contract.version, reply);
        break;
    case PROV_ROUTE_CREATE:
        answer_create(ctx, &contract, req, reply);
        break;
    case PROV_ROUTE_GET:
        answer_get(ctx, &contract, id, reply);
        break;
    case PROV_ROUTE_DELETE:
        answer_delete(ctx, id, reply);
        break;
    case PROV_ROUTE_LIST:
        answer_list(ctx, &contract, reply);
        break;
    case PROV_ROUTE_RECONCILE:
        answer_reconcile(ctx, &contract, id, reply);
        break;
    case PROV_ROUTE_NONE:
    case PROV_ROUTE_COUNT:
        prov_answer_no_route(reply);
        break;
    }
}

int emu_api_route_enabled(emu_context *ctx, prov_route route)
{
    emu_contract_settings contract = emu_contract_get(&ctx->contract);
    if (route == PROV_ROUTE_CAPABILITIES)
        return contract.capabilities_route;
    if (route == PROV_ROUTE_RECONCILE)
        return contract.reconciliation_route;
    return 1;
}
