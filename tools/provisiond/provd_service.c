/* Route handlers over an sbx backend.  Every answer body comes from the
 * shared builders, so a client cannot tell this daemon's shapes from the
 * real provisioner's; where the daemon must differ (ids checked, backend
 * errors), it still answers with the protocol's status codes and a JSON
 * detail. */
#include <config.h>

#include "tools/provisiond/provd_service.h"

#include "common/sandbox_ids.h"
#include "common/utf8.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_answers.h"
#include "tools/provisioner-common/prov_create.h"
#include "tools/provisioner-common/prov_create_spec.h"
#include "tools/provisioner-common/prov_json.h"
#include "tools/provisioner-common/prov_mounts.h"
#include "tools/provisiond/provd_extend.h"
#include "tools/provisiond/provd_spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The status word of a sandbox whose backend reports none. */
#define PHASE_UNKNOWN "Unknown"

/* The highest mount contract the daemon validates requests as. */
#define SERVED_CONTRACT 2

int provd_service_contract(sbx_backend *backend)
{
    sbx_capabilities caps = {SBX_CONTRACT_NONE, 0};
    sbx_error err;
    /* No capabilities (unsupported), a failed probe or an unknown version:
     * the backend promises nothing, so the daemon serves as a legacy
     * provisioner does. */
    if (sbx_backend_capabilities(backend, &caps, &err) != SBX_OK || !caps.known ||
        caps.mount_contract_version < 0)
        return 0;
    return caps.mount_contract_version < SERVED_CONTRACT ? caps.mount_contract_version
                                                         : SERVED_CONTRACT;
}

/* A backend's message as JSON text can carry it, in out[size]: bytes that
 * are not UTF-8 become U+FFFD (common_utf8_repair), a cut falls between
 * characters. */
static void clean_message(const char *message, char *out, size_t size)
{
    size_t len = 0;
    char *text = common_utf8_repair(message, strlen(message), &len, NULL);
    if (text == NULL) {
        snprintf(out, size, "%s", "(the message was lost: out of memory)");
        return;
    }
    len = common_utf8_cut(text, len, size - 1);
    memcpy(out, text, len);
    out[len] = '\0';
    free(text);
}

/* A backend error as the protocol's status and a JSON detail naming the
 * cause.  A failure to reach what is behind the backend (the engine) is a
 * 5xx, never a 404: a 404 makes clients forget a live sandbox; a peer's
 * refusal of the daemon's own credentials is not the client's 401. */
void provd_service_answer_error(const sbx_error *err, prov_reply *reply)
{
    unsigned status = 500;
    switch (err->kind) {
    case SBX_ERR_USAGE:
    case SBX_ERR_UNSUPPORTED:
        status = 400;       /* this backend cannot do what the request asks */
        break;
    case SBX_ERR_REFUSED:
        status = 409;       /* the backend's owner check: another user or thread */
        break;
    case SBX_ERR_NOT_FOUND:
        status = 404;
        break;
    case SBX_ERR_CONTRACT_CHANGED:
        prov_answer_contract_changed(err->expected_contract, err->actual_contract, reply);
        return;
    case SBX_ERR_TRANSPORT:
        status = 503;
        break;
    case SBX_ERR_PROTOCOL:
    case SBX_ERR_PROVISIONER:
    case SBX_ERR_UNAUTHORIZED:
        status = 502;
        break;
    case SBX_OK:
    case SBX_ERR_CONFIG:
    case SBX_ERR_LOAD:
    case SBX_ERR_INTERNAL:
    /* Kinds of the sandbox operations, which no lifecycle call returns. */
    case SBX_ERR_NO_SUCH_PATH:
    case SBX_ERR_NOT_A_DIRECTORY:
    case SBX_ERR_IS_A_DIRECTORY:
    case SBX_ERR_EXISTS:
    case SBX_ERR_PERMISSION:
    /* ABI 1.4: of the process operations, which provisiond does not serve yet. */
    case SBX_ERR_NO_SUCH_PROCESS:
        status = 500;
        break;
    }
    char detail[SBX_ERROR_MESSAGE_MAX + 64];
    char message[SBX_ERROR_MESSAGE_MAX];
    clean_message(err->message, message, sizeof message);
    snprintf(detail, sizeof detail, "%s (%s)", message, sbx_status_name(err->kind));
    prov_reply_detail(reply, status, detail);
}

/* Whether `record` says its sandbox is past its expiry now. */
static int expired(const provd_record *record)
{
    return record->expires_at != 0 && record->expires_at <= provd_spec_now_ms();
}

/* Whether the record of `id` says its sandbox is past its expiry now. */
static int record_expired(provd_service *svc, const char *id)
{
    provd_record record;
    int due = provd_owners_get(svc->owners, id, &record) == 1 && expired(&record);
    provd_record_clear(&record);
    return due;
}

static void destroy_locked(provd_service *svc, const char *id, prov_reply *reply);

static const char *phase_of(const sbx_sandbox *sandbox)
{
    return sandbox->status != NULL ? sandbox->status : PHASE_UNKNOWN;
}

/* Whether what the backend itself says of a sandbox's owner (NULL: it
 * cannot tell) agrees with the daemon's record. */
static int backend_agrees(const sbx_sandbox *sandbox, const provd_record *record)
{
    return (sandbox->user_id == NULL || strcmp(sandbox->user_id, record->user_id) == 0) &&
           (sandbox->thread_id == NULL || strcmp(sandbox->thread_id, record->thread_id) == 0);
}

/* The record of an existing sandbox `id`, checked against `want` (NULL
 * members: anything) at the served contract.  Returns 1 with *record
 * filled, or 0 with the 409 in `reply`: no record (made outside the daemon,
 * or before a restart without --state-dir), another contract, owner,
 * thread or mount set, or a backend that names another owner. */
static int existing_verified(provd_service *svc, const char *id, const sbx_sandbox *found,
                             const prov_owner *want, provd_record *record,
                             prov_reply *reply)
{
    int known = provd_owners_get(svc->owners, id, record);
    if (known < 0) {
        prov_reply_out_of_memory(reply);
        return 0;
    }
    if (!known || known == PROVD_RECORD_UNREADABLE ||
        (found != NULL && !backend_agrees(found, record))) {
        provd_record_clear(record);
        prov_answer_existing(id, PROV_UNVERIFIABLE, reply);
        return 0;
    }
    prov_owner have = provd_record_owner(record);
    const char *problem = prov_owner_conflict(&have, svc->contract, want);
    if (problem == NULL)
        return 1;
    provd_record_clear(record);
    prov_answer_existing(id, problem, reply);
    return 0;
}

/* Take the lock of `id` for a change, unless its record file could not
 * be read at start-up: nobody may create it anew or remove what is left
 * of it until the operator has looked.  Returns 1 with the lock held, or
 * 0 with the answer (409, or out of memory) in `reply`. */
int provd_service_lock_for_change(provd_service *svc, const char *id, prov_reply *reply)
{
    if (!provd_owners_lock(svc->owners, id)) {
        prov_reply_out_of_memory(reply);
        return 0;
    }
    provd_record record;
    int known = provd_owners_get(svc->owners, id, &record);
    provd_record_clear(&record);
    if (known >= 0 && known != PROVD_RECORD_UNREADABLE)
        return 1;
    if (known < 0)
        prov_reply_out_of_memory(reply);
    else
        prov_answer_existing(id, PROV_UNVERIFIABLE, reply);
    provd_owners_unlock(svc->owners, id);
    return 0;
}

/* The mounts of a signature (a JSON array of [host, container, read_only],
 * prov_mounts_check) as the backend takes them; they point into
 * *parsed, which the caller puts.  Returns the array (NULL when empty),
 * or NULL with *count set when memory runs out. */
static sbx_mount *signature_mounts(const char *signature, json_object **parsed, size_t *count)
{
    size_t offset = 0;
    const char *why = NULL;
    *parsed = prov_json_parse(signature, strlen(signature), &offset, &why);
    /* The signature is the daemon's own text: only memory can fail it. */
    *count = *parsed != NULL ? json_object_array_length(*parsed) : why != NULL;
    if (*parsed == NULL || *count == 0)
        return NULL;
    sbx_mount *mounts = prov_malloc(*count * sizeof *mounts);
    if (mounts == NULL)
        return NULL;
    for (size_t i = 0; i < *count; i++) {
        json_object *m = json_object_array_get_idx(*parsed, i);
        mounts[i].host_path = json_object_get_string(json_object_array_get_idx(m, 0));
        mounts[i].container_path = json_object_get_string(json_object_array_get_idx(m, 1));
        mounts[i].read_only = json_object_get_boolean(json_object_array_get_idx(m, 2));
    }
    return mounts;
}

/* Forget the record of a new sandbox whose create failed, unless the
 * backend made it all the same (a container left for destroy): then it is
 * this owner's, and a retry must find it so. */
static void forget_unless_made(provd_service *svc, const char *id)
{
    sbx_sandbox *found = NULL;
    sbx_error err;
    char why[512];
    if (sbx_backend_discover(svc->backend, id, &found, &err) == SBX_ERR_NOT_FOUND)
        provd_owners_remove(svc->owners, id, why, sizeof why);
    sbx_backend_free_sandboxes(svc->backend, found, found != NULL ? 1 : 0);
}

/* The sandbox_url answered for a sandbox: the daemon's sandbox API when
 * it serves one and the sandbox has a token (into `buffer`, PROVD_URL_MAX
 * bytes), else what the backend says (a record from before the daemon
 * served the API). */
static const char *answered_url(provd_service *svc, const char *token,
                                const char *backend_url, char *buffer)
{
    if (token == NULL || svc->api == NULL)
        return backend_url;
    provd_sandbox_api_url(svc->api, token, buffer);
    return buffer;
}

/* Create `req` (its mounts are `want`'s) for `want` with the backend, or
 * have it return the one there, which the daemon has verified (`existing`
 * its record; NULL for a new sandbox), and answer.  A new sandbox's owner,
 * fresh token and `expires_at` (0: none) are recorded first, so that no
 * sandbox exists without its record.  The id's lock is held. */
static void create_with_backend(provd_service *svc, sbx_create_request *req,
                                const prov_owner *want, const provd_record *existing,
                                int64_t expires_at, prov_reply *reply)
{
    char why[512];
    char fresh[PROVD_TOKEN_LEN + 1];
    const char *token = existing != NULL ? existing->token : NULL;
    int recorded = 1;
    if (existing == NULL && svc->api != NULL && !provd_sandbox_token_new(fresh)) {
        snprintf(why, sizeof why, "no random bytes for the sandbox's token");
        recorded = 0;
    } else if (existing == NULL) {
        token = svc->api != NULL ? fresh : NULL;
        provd_keep keep = {token, expires_at};
        recorded = provd_owners_put(svc->owners, req->sandbox_id, want, &keep, why, sizeof why);
    } else {
        expires_at = existing->expires_at;
    }
    if (recorded < 0)
        prov_reply_out_of_memory(reply);
    else if (recorded == 0)
        prov_reply_detail(reply, 500, why);
    if (recorded <= 0)
        return;
    json_object *parsed = NULL;
    size_t mount_count = 0;
    sbx_mount *mounts = signature_mounts(want->mounts, &parsed, &mount_count);
    if (mounts == NULL && mount_count > 0) {
        prov_reply_out_of_memory(reply);
        if (existing == NULL)
            forget_unless_made(svc, req->sandbox_id);
        json_object_put(parsed);
        return;
    }
    req->thread_id = want->thread_id;
    req->user_id = want->user_id;
    req->extra_mounts = mounts;
    req->extra_mount_count = mount_count;
    sbx_sandbox *created = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_create(svc->backend, req, &created, &err);
    if (st != SBX_OK) {
        provd_service_answer_error(&err, reply);
        if (existing == NULL)
            forget_unless_made(svc, req->sandbox_id);
    } else {
        char url[PROVD_URL_MAX];
        json_object *answer = prov_sandbox_json(
            created->sandbox_id, answered_url(svc, token, created->sandbox_url, url),
            phase_of(created), want, svc->contract >= 1);
        prov_reply_json(reply, 200,
                        provd_spec_answer(answer, req->labels, req->label_count, expires_at));
    }
    sbx_backend_free_sandboxes(svc->backend, created, created != NULL ? 1 : 0);
    free(mounts);
    json_object_put(parsed);
}

/* The boolean member `key` of the request (absent: false). */
static int flag(const prov_create_request *request, const char *key)
{
    json_object *value = NULL;
    return json_object_object_get_ex(request->root, key, &value) &&
           json_object_get_boolean(value);
}

/* The backend's request for `request`: its id, flags and spec members
 * (pointing into `request` and *spec).  Returns 1, or 0 with the 422 in
 * `reply`. */
static int backend_request(const prov_create_request *request, sbx_create_request *req,
                           prov_create_spec *spec, prov_reply *reply)
{
    sbx_create_request init = SBX_CREATE_REQUEST_INIT;
    *req = init;
    req->sandbox_id = request->sandbox_id;
    req->include_legacy_skills = flag(request, "include_legacy_skills");
    req->provision_lark_cli_runtime = flag(request, "provision_lark_cli_runtime");
    req->provision_lark_cli_broker = flag(request, "provision_lark_cli_broker");
    return prov_create_spec_read(request->root, req, spec, reply);
}

/* A sandbox past its expiry is gone for every client: destroy it (the
 * id's lock held) so that a create makes a new one instead of handing it
 * over.  Returns 1 when nothing expired is in the way, else 0 with why
 * the destroy failed in `reply`. */
static int clear_expired_locked(provd_service *svc, const char *id, prov_reply *reply)
{
    if (!record_expired(svc, id))
        return 1;
    destroy_locked(svc, id, reply);
    return reply->status == 200;
}

/* Discover `req`'s id and create it for `want` (a new sandbox expiring at
 * `expires_at`), or answer with the existing one when it proves to be the
 * one asked for.  The id's lock is held. */
static void create_locked(provd_service *svc, sbx_create_request *req, const prov_owner *want,
                          int64_t expires_at, prov_reply *reply)
{
    const char *id = req->sandbox_id;
    sbx_sandbox *found = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_discover(svc->backend, id, &found, &err);
    provd_record record = {0};
    if (st == SBX_OK) {
        /* Never hand a sandbox over: it must prove to be the one asked
         * for, whatever contract the client validates. */
        if (existing_verified(svc, id, found, want, &record, reply))
            create_with_backend(svc, req, want, &record, 0, reply);
    } else if (st == SBX_ERR_NOT_FOUND) {
        create_with_backend(svc, req, want, NULL, expires_at, reply);
    } else {
        provd_service_answer_error(&err, reply);
    }
    provd_record_clear(&record);
    sbx_backend_free_sandboxes(svc->backend, found, found != NULL ? 1 : 0);
}

static void answer_create(provd_service *svc, const prov_request *http,
                          prov_reply *reply)
{
    prov_create_request request;
    if (!prov_create_parse(http->body, http->body_len, http->content_type, 1, &request,
                               reply))
        return;
    sbx_create_request req;
    prov_create_spec spec;
    int64_t expires_at = 0;
    if (!backend_request(&request, &req, &spec, reply) ||
        !provd_spec_check(svc->backend, &req, &expires_at, reply)) {
        prov_create_spec_clear(&spec);
        prov_create_request_clear(&request);
        return;
    }
    const char *id = request.sandbox_id;
    /* A legacy daemon (a chained backend without a contract) ignores the
     * precondition it does not serve, as a legacy provisioner does. */
    if (svc->contract >= 1 && request.has_required_version &&
        request.required_version != svc->contract) {
        prov_answer_contract_changed(request.required_version, svc->contract, reply);
        prov_create_spec_clear(&spec);
        prov_create_request_clear(&request);
        return;
    }
    const char *thread = request.thread_id != NULL ? request.thread_id : id;
    char *signature = prov_mounts_check(request.extra_mounts, request.user_id, thread,
                                            svc->mount_base, reply);
    if (signature == NULL) {
        prov_create_spec_clear(&spec);
        prov_create_request_clear(&request);
        return;
    }
    prov_owner want = {request.user_id, thread, signature, svc->contract};
    if (!provd_service_lock_for_change(svc, id, reply)) {
        free(signature);
        prov_create_spec_clear(&spec);
        prov_create_request_clear(&request);
        return;
    }
    if (clear_expired_locked(svc, id, reply))
        create_locked(svc, &req, &want, expires_at, reply);
    provd_owners_unlock(svc->owners, id);
    free(signature);
    prov_create_spec_clear(&spec);
    prov_create_request_clear(&request);
}

/* The sandbox answer with the record's incarnation_id when it has one:
 * the incarnation its sandbox_url serves (a client keeps what it learns at
 * that URL, such as the home directory, for it and no other). */
static json_object *with_incarnation(json_object *answer, const sbx_sandbox_record *record)
{
    int built = answer != NULL && (record->incarnation_id == NULL ||
                                   prov_json_add_string(answer, "incarnation_id",
                                                        record->incarnation_id));
    return prov_json_built(answer, built);
}

/* `answer` with the labels of `record` (when it holds them) and
 * `expires_at` (provd_spec_answer). */
static json_object *with_spec(json_object *answer, const sbx_sandbox_record *record,
                              int64_t expires_at)
{
    int has = SBX_RECORD_HAS(record, label_count);
    return provd_spec_answer(answer, has ? record->labels : NULL, has ? record->label_count : 0,
                             expires_at);
}

static void answer_get(provd_service *svc, const char *id, prov_reply *reply)
{
    sbx_sandbox_record *found = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_discover_record(svc->backend, id, &found, &err);
    if (st == SBX_ERR_NOT_FOUND) {
        prov_answer_sandbox_not_found(id, reply);
        return;
    }
    if (st != SBX_OK) {
        provd_service_answer_error(&err, reply);
        return;
    }
    static const prov_owner anything = {NULL, NULL, NULL, 0};
    provd_record record = {0};
    if (existing_verified(svc, id, &found->sandbox, &anything, &record, reply) &&
        expired(&record)) {
        /* Past its expiry: gone for the client now, whoever destroys it. */
        prov_reply done = {0};
        provd_service_expire(svc, id, &done);
        prov_reply_clear(&done);
        prov_answer_sandbox_not_found(id, reply);
    } else if (record.user_id != NULL) {
        prov_owner owner = provd_record_owner(&record);
        char url[PROVD_URL_MAX];
        json_object *answer = prov_sandbox_json(
            id, answered_url(svc, record.token, found->sandbox.sandbox_url, url),
            phase_of(&found->sandbox), &owner, svc->contract >= 1);
        prov_reply_json(reply, 200, with_spec(with_incarnation(answer, found), found,
                                              record.expires_at));
    }
    provd_record_clear(&record);
    sbx_backend_free_records(svc->backend, found);
}

/* Destroy `id` with the backend and forget its record, answering as a
 * DELETE does.  The id's lock is held. */
static void destroy_locked(provd_service *svc, const char *id, prov_reply *reply)
{
    sbx_error err;
    char why[512];
    sbx_status st = sbx_backend_destroy(svc->backend, id, &err);
    if (st == SBX_OK)
        provd_sandbox_api_sandbox_gone(svc->api, id);
    if (st != SBX_OK)
        provd_service_answer_error(&err, reply);
    else if (!provd_owners_remove(svc->owners, id, why, sizeof why))
        prov_reply_detail(reply, 500, why);
    else
        prov_answer_deleted(id, reply);
}

static void answer_delete(provd_service *svc, const char *id, prov_reply *reply)
{
    if (!provd_service_lock_for_change(svc, id, reply))
        return;
    destroy_locked(svc, id, reply);
    provd_owners_unlock(svc->owners, id);
}

int provd_service_expire(provd_service *svc, const char *id, prov_reply *reply)
{
    if (!provd_service_lock_for_change(svc, id, reply))
        return 1;
    int due = record_expired(svc, id);
    if (due)
        destroy_locked(svc, id, reply);
    provd_owners_unlock(svc->owners, id);
    return due;
}

static void answer_list(provd_service *svc, prov_reply *reply)
{
    sbx_sandbox_record *records = NULL;
    size_t count = 0;
    sbx_error err;
    if (sbx_backend_list_records(svc->backend, &records, &count, &err) != SBX_OK) {
        provd_service_answer_error(&err, reply);
        return;
    }
    json_object *entries = json_object_new_array();
    int built = entries != NULL;
    for (const sbx_sandbox_record *r = records; built && r != NULL; r = r->next) {
        const sbx_sandbox *sandbox = &r->sandbox;
        provd_record record;
        char url[PROVD_URL_MAX];
        int known = provd_owners_get(svc->owners, sandbox->sandbox_id, &record);
        built = known >= 0;
        /* An address-less sandbox is not listed (list_running's rule); an
         * expired one is gone for clients before the reaper reaches it. */
        if (built && sandbox->sandbox_url[0] != '\0' && !expired(&record)) {
            /* The real list reads no identity: with a contract, it is null. */
            json_object *entry = prov_sandbox_json(
                sandbox->sandbox_id, answered_url(svc, record.token, sandbox->sandbox_url, url),
                phase_of(sandbox), NULL, svc->contract >= 1);
            built = prov_json_append(entries, with_spec(entry, r, record.expires_at));
        }
        provd_record_clear(&record);
    }
    sbx_backend_free_records(svc->backend, records);
    prov_answer_list(prov_json_built(entries, built), reply);
}

static void answer_reconcile(provd_service *svc, const char *id, prov_reply *reply)
{
    sbx_reconciliation result;
    memset(&result, 0, sizeof result);
    sbx_error err;
    sbx_status st = sbx_backend_reconcile(svc->backend, id, &result, &err);
    if (st != SBX_OK) {
        provd_service_answer_error(&err, reply);
        return;
    }
    if (result.status == SBX_RECONCILE_UNKNOWN) {
        /* Clients read a 503 as "unknown", which never licenses deleting. */
        prov_answer_words(reply, 503, "Could not verify sandbox backend: backend '",
                              svc->backend_name, "' could not tell (see the daemon's log)");
    } else if (result.status == SBX_RECONCILE_ABSENT) {
        json_object *obj = prov_reconciliation_json(id, result.backend_namespace, NULL);
        prov_reply_json(reply, 200, prov_reconciliation_identity(obj, NULL, NULL));
    } else {
        static const prov_owner anything = {NULL, NULL, NULL, 0};
        provd_record record = {0};
        if (existing_verified(svc, id, result.sandbox, &anything, &record, reply)) {
            json_object *obj = prov_reconciliation_json(id, result.backend_namespace,
                                                            result.incarnation_id);
            prov_owner owner = provd_record_owner(&record);
            char url[PROVD_URL_MAX];
            /* A sandbox without an address is found without a URL. */
            obj = prov_reconciliation_identity(
                obj,
                result.sandbox != NULL
                    ? answered_url(svc, record.token, result.sandbox->sandbox_url, url)
                    : NULL,
                &owner);
            prov_reply_json(reply, 200, obj);
        }
        provd_record_clear(&record);
    }
    sbx_backend_clear_reconciliation(svc->backend, &result);
}

static int route_enabled(void *cls, prov_route route)
{
    const provd_service *svc = cls;
    /* A backend without reconciliation is a provisioner without the route:
     * clients read its 404 as "unknown". */
    if (route == PROV_ROUTE_RECONCILE) {
        const sbx_backend_descriptor *d = sbx_backend_descriptor_of(svc->backend);
        return SBX_DESCRIPTOR_HAS(d, reconcile) && d->reconcile != NULL;
    }
    return 1;
}

static void answer_route(void *cls, const prov_request *req, prov_route route,
                         const char *id, prov_reply *reply)
{
    provd_service *svc = cls;
    /* An id no backend accepts reaches none (the emulator passes them on,
     * as the real provisioner does to Kubernetes).  The backends' own check
     * comes first: it accepts the ids of the 422's pattern without running
     * the regex on every request. */
    if (id[0] != '\0' && !common_sandbox_id_is_valid(id) && !prov_path_id_valid(id, reply))
        return;
    switch (route) {
    case PROV_ROUTE_HEALTH:
        prov_answer_health(reply);
        break;
    case PROV_ROUTE_CAPABILITIES:
        provd_spec_answer_capabilities(svc->contract, svc->backend, reply);
        break;
    case PROV_ROUTE_CREATE:
        answer_create(svc, req, reply);
        break;
    case PROV_ROUTE_GET:
        answer_get(svc, id, reply);
        break;
    case PROV_ROUTE_DELETE:
        answer_delete(svc, id, reply);
        break;
    case PROV_ROUTE_LIST:
        answer_list(svc, reply);
        break;
    case PROV_ROUTE_RECONCILE:
        answer_reconcile(svc, id, reply);
        break;
    case PROV_ROUTE_NONE:
    case PROV_ROUTE_COUNT:
        prov_answer_no_route(reply);
        break;
    }
}

static int answer_outside(void *cls, const prov_request *req, prov_reply *reply)
{
    provd_service *svc = cls;
    return provd_extend_answer(svc, req, reply) ||
           (svc->api != NULL && provd_sandbox_api_answer(svc->api, req, reply));
}

prov_handlers provd_service_handlers(provd_service *service)
{
    return (prov_handlers){service, answer_outside, NULL, route_enabled, answer_route};
}
