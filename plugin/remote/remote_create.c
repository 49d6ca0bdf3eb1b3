/* Create: body builder, mount filter, contract rules 2-6 (see remote_create.h). */
#include <config.h>

#include "plugin/remote/remote_create.h"

#include "common/create_request.h"
#include "common/json_fields.h"
#include "common/printable.h"
#include "common/sandbox_ids.h"
#include "common/record_chain.h"
#include "common/sandbox_records.h"
#include "plugin/remote/remote_answer_errors.h"
#include "plugin/remote/remote_create_spec.h"
#include "plugin/remote/remote_decode.h"
#include "plugin/remote/remote_sandbox_rules.h"

#include <sbx/backend_support.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a failed create's errors begin with (the reference client's words). */
#define CREATE_FAILED "Provisioner create failed for "

/* The mount the provisioner replaces with its own lark-cli runtime. */
#define LARK_RUNTIME_MOUNT "/mnt/integrations/lark-cli/runtime"

static int allowed(const char *path, const char *const *allowlist, size_t allow_count);

int remote_mount_forwarded(const sbx_mount *mount, const char *const *allowlist,
                           size_t allow_count, int lark_runtime, int lark_broker)
{
    const char *path = mount->container_path;
    if (path == NULL)
        return 0;
    if ((lark_runtime || lark_broker) && strcmp(path, LARK_RUNTIME_MOUNT) == 0)
        return 0;
    return allowed(path, allowlist, allow_count);
}

/* Lexical normalisation of an absolute POSIX path into buf[cap] ("//",
 * "." and ".." folded, no trailing '/'), as the reference client compares
 * them.  0 when it does not fit or is not absolute. */
static int normalise_path(const char *path, char *buf, size_t cap)
{
    if (path[0] != '/' || cap < 2)
        return 0;
    size_t used = 0;
    const char *p = path;
    while (*p != '\0') {
        while (*p == '/')
            p++;
        const char *end = strchrnul(p, '/');
        size_t n = (size_t)(end - p);
        if (n == 0 || (n == 1 && p[0] == '.')) {
            /* nothing */
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            while (used > 0 && buf[used - 1] != '/')
                used--;
            if (used > 0)
                used--;
        } else {
            if (used + 1 + n + 1 > cap)
                return 0;
            buf[used++] = '/';
            memcpy(buf + used, p, n);
            used += n;
        }
        p = end;
    }
    if (used == 0)
        buf[used++] = '/';
    buf[used] = '\0';
    return 1;
}

static int allowed(const char *path, const char *const *allowlist, size_t allow_count)
{
    for (size_t i = 0; i < allow_count; i++)
        if (strcmp(path, allowlist[i]) == 0)
            return 1;
    return 0;
}

sbx_status remote_check_upload_conversions(const sbx_create_request *req,
                                           const char *const *allowlist,
                                           size_t allow_count, sbx_error *err)
{
    if (!allowed(REMOTE_UPLOAD_CONVERSIONS_CONTAINER_PATH, allowlist, allow_count))
        return SBX_OK;
    const char *uploads = NULL;
    for (size_t i = 0; i < req->extra_mount_count && uploads == NULL; i++)
        if (strcmp(req->extra_mounts[i].container_path, REMOTE_UPLOADS_CONTAINER_PATH) == 0)
            uploads = req->extra_mounts[i].host_path;
    for (size_t i = 0; i < req->extra_mount_count; i++) {
        const sbx_mount *m = &req->extra_mounts[i];
        if (strcmp(m->container_path, REMOTE_UPLOAD_CONVERSIONS_CONTAINER_PATH) != 0)
            continue;
        const char *broken = NULL;
        /* Normalising never lengthens an absolute path: what is shorter
         * than the buffers fits them. */
        char expected[4096], got[4096];
        if (!m->read_only)
            broken = "must be read-only";
        else if (uploads == NULL)
            broken = "needs the thread's " REMOTE_UPLOADS_CONTAINER_PATH " mount beside it";
        else if (strlen(uploads) >= sizeof expected - 20 || strlen(m->host_path) >= sizeof got)
            broken = "has a host path, or an uploads host path, too long to compare "
                     "(4076 bytes or more)";
        else if (!normalise_path(uploads, expected, sizeof expected - 20) ||
                 !normalise_path(m->host_path, got, sizeof got))
            broken = "needs absolute host paths";
        else {
            char *slash = strrchr(expected, '/');
            strcpy(slash + 1, ".upload-conversions");
            if (strcmp(expected, got) != 0)
                broken = "must be the .upload-conversions folder beside the uploads mount's "
                         "host path";
        }
        if (broken != NULL)
            return sbx_backend_error_set(
                err, SBX_ERR_USAGE, "create request for %s: the upload conversions mount (%s) %s",
                req->sandbox_id, REMOTE_UPLOAD_CONVERSIONS_CONTAINER_PATH, broken);
    }
    return SBX_OK;
}

/* Add `value` under `key`; a NULL value (json-c out of memory) clears *ok.
 * `nullable` marks the one place a JSON null is meant. */
static void put(struct json_object *object, const char *key, struct json_object *value,
                int nullable, int *ok)
{
    if (value == NULL && !nullable) {
        *ok = 0;
        return;
    }
    if (json_object_object_add(object, key, value) != 0) {
        json_object_put(value);
        *ok = 0;
    }
}

static struct json_object *mounts_json(const sbx_create_request *req,
                                       const char *const *allowlist, size_t allow_count,
                                       int *ok)
{
    struct json_object *array = NULL;
    for (size_t i = 0; i < req->extra_mount_count; i++) {
        const sbx_mount *m = &req->extra_mounts[i];
        if (!remote_mount_forwarded(m, allowlist, allow_count,
                                    req->provision_lark_cli_runtime,
                                    req->provision_lark_cli_broker))
            continue;
        if (array == NULL && (array = json_object_new_array()) == NULL) {
            *ok = 0;
            return NULL;
        }
        struct json_object *entry = json_object_new_object();
        if (entry == NULL || json_object_array_add(array, entry) != 0) {
            json_object_put(entry);
            *ok = 0;
            return array;
        }
        put(entry, "host_path", json_object_new_string(m->host_path), 0, ok);
        put(entry, "container_path", json_object_new_string(m->container_path), 0, ok);
        put(entry, "read_only", json_object_new_boolean(m->read_only != 0), 0, ok);
    }
    return array;
}

char *remote_create_body(const sbx_create_request *req, const char *user_id,
                         int frozen_version, const char *const *allowlist,
                         size_t allow_count, sbx_error *err)
{
    int ok = 1;
    struct json_object *body = json_object_new_object();
    if (body == NULL) {
        sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    put(body, "sandbox_id", json_object_new_string(req->sandbox_id), 0, &ok);
    put(body, "thread_id",
        req->thread_id != NULL ? json_object_new_string(req->thread_id) : NULL,
        req->thread_id == NULL, &ok);
    put(body, "user_id", json_object_new_string(user_id), 0, &ok);
    put(body, "required_mount_contract_version", json_object_new_int(frozen_version), 0, &ok);
    put(body, "include_legacy_skills",
        json_object_new_boolean(req->include_legacy_skills != 0), 0, &ok);
    put(body, "provision_lark_cli_runtime",
        json_object_new_boolean(req->provision_lark_cli_runtime != 0), 0, &ok);
    put(body, "provision_lark_cli_broker",
        json_object_new_boolean(req->provision_lark_cli_broker != 0), 0, &ok);
    struct json_object *mounts = mounts_json(req, allowlist, allow_count, &ok);
    if (mounts != NULL)
        put(body, "extra_mounts", mounts, 0, &ok);
    sbx_create_request full;
    common_create_request_read(req, &full);
    ok = ok && remote_create_spec_put(body, &full);

    char *text = NULL;
    if (ok)
        text = strdup(json_object_to_json_string_ext(
            body, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(body);
    if (text == NULL)
        sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory building the create request");
    return text;
}

/* Arguments a caller can get wrong, checked before anything else; *full
 * is the request with every 1.5 member readable.  (Whether the
 * provisioner takes the members set is checked against the frozen
 * capabilities, remote_create_refuse_unadvertised.) */
static sbx_status check_request(const sbx_create_request *req, sbx_create_request *full,
                                const char **user, sbx_error *err)
{
    sbx_status st = common_create_request_check(REMOTE_NAME, req, err);
    if (st != SBX_OK)
        return st;
    common_create_request_read(req, full);
    st = common_create_request_check_fields(full, err);
    if (st != SBX_OK)
        return st;
    *user = common_create_request_user(req);
    if (req->extra_mount_count > 0 && req->extra_mounts == NULL)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "create request for %s: extra_mounts is NULL",
                                     req->sandbox_id);
    for (size_t i = 0; i < req->extra_mount_count; i++)
        if (req->extra_mounts[i].host_path == NULL ||
            req->extra_mounts[i].container_path == NULL)
            return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                         "create request for %s: extra mount #%zu lacks a path",
                                         req->sandbox_id, i);
    return SBX_OK;
}

static sbx_status contract_changed(sbx_error *err, int expected, int actual, int http_status,
                                   const char *fmt_what, const char *sandbox_id)
{
    sbx_backend_error_set(err, SBX_ERR_CONTRACT_CHANGED,
                          "mount contract changed for %s: %s (expected version %d, actual %d)",
                          sandbox_id, fmt_what, expected, actual);
    err->expected_contract = expected;
    err->actual_contract = actual;
    err->http_status = http_status;
    return SBX_ERR_CONTRACT_CHANGED;
}

/* Rule 6: a 409 whose detail says the provisioner's contract moved. */
static int is_contract_conflict(const common_http_response *resp, int *expected, int *actual)
{
    *expected = SBX_CONTRACT_NONE;
    *actual = SBX_CONTRACT_NONE;
    if (resp->status != 409)
        return 0;
    struct json_object *root = common_json_parse(resp->body, resp->body_len);
    struct json_object *detail = NULL;
    const char *code = NULL;
    int match = root != NULL && json_object_object_get_ex(root, "detail", &detail) &&
                common_json_get_string(detail, "code", &code) == COMMON_JSON_OK &&
                strcmp(code, "mount_contract_changed") == 0;
    if (match) {
        common_json_get_int(detail, "expected", expected);
        common_json_get_int(detail, "actual", actual);
    }
    json_object_put(root);
    return match;
}

/* One create call after its checks: what posting it and judging the
 * answer need.  Borrowed pointers, valid for the call. */
typedef struct create_call {
    sbx_backend_instance *inst;
    const sbx_create_request *req;
    const char *user;       /* the effective user */
    int frozen;             /* the mount contract version frozen for the call (rule 3) */
    const char *what;       /* "Provisioner create failed for ID", prefixing errors */
} create_call;

/* Rule 5 for frozen >= 1: the answer names the requested user and thread (an
 * anonymous thread may come back as null, absent, or the sandbox id).  Then
 * the record carries the request's identity: *f's user and thread become
 * the request's (an anonymous thread NULL), borrowed from it. */
static sbx_status settle_identity(const create_call *call, remote_fields *f, sbx_error *err)
{
    const sbx_create_request *req = call->req;
    char shown[80], wanted[80];
    const char *got = f->state[REMOTE_FIELD_USER] == COMMON_JSON_OK ? f->text[REMOTE_FIELD_USER]
                                                                     : NULL;
    if (got == NULL || strcmp(got, call->user) != 0)
        return sbx_backend_error_set(
            err, SBX_ERR_PROTOCOL,
            "mount contract response for %s names user_id '%s' instead of '%s'",
            req->sandbox_id, common_printable(got != NULL ? got : "(none)", shown, sizeof shown),
            call->user);
    common_json_field tf = f->state[REMOTE_FIELD_THREAD];
    got = f->text[REMOTE_FIELD_THREAD];
    int ok;
    if (req->thread_id == NULL)
        ok = tf == COMMON_JSON_ABSENT || tf == COMMON_JSON_NULL ||
             (tf == COMMON_JSON_OK && strcmp(got, req->sandbox_id) == 0);
    else
        ok = tf == COMMON_JSON_OK && strcmp(got, req->thread_id) == 0;
    if (!ok)
        return sbx_backend_error_set(
            err, SBX_ERR_PROTOCOL,
            "mount contract response for %s names thread_id '%s' instead of '%s'",
            req->sandbox_id,
            common_printable(tf == COMMON_JSON_OK ? got : "(none)", shown, sizeof shown),
            common_printable(req->thread_id != NULL ? req->thread_id : "(null)", wanted,
                             sizeof wanted));
    f->text[REMOTE_FIELD_USER] = call->user;
    f->text[REMOTE_FIELD_THREAD] = req->thread_id;
    return SBX_OK;
}

/* Read a 2xx answer's sandbox into *sb, checked against the request (rule
 * 5 when frozen >= 1) before the record is made, and made once. */
static sbx_status decode_answer(const create_call *call, struct json_object *root,
                                sbx_sandbox *sb, sbx_error *err)
{
    remote_fields f;
    sbx_error cause;
    sbx_backend_error_clear(&cause);
    if (remote_read_sandbox(root, &f, &cause) != SBX_OK)
        return remote_wrap_error(&cause, call->what, err);
    if (strcmp(f.text[REMOTE_FIELD_ID], call->req->sandbox_id) != 0)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "%s: the answer is about another sandbox", call->what);
    sbx_status st = call->frozen >= 1 ? settle_identity(call, &f, err) : SBX_OK;
    f.version = call->frozen;
    if (st == SBX_OK && (st = remote_fields_fill(&f, sb, &cause)) != SBX_OK)
        remote_wrap_error(&cause, call->what, err);
    return st;
}

/* Validate a 2xx create answer against the frozen version (rule 5). */
static sbx_status accept_answer(const create_call *call, const common_http_response *resp,
                                sbx_sandbox *sb, sbx_error *err)
{
    memset(sb, 0, sizeof *sb);
    sb->mount_contract_version = SBX_CONTRACT_NONE;
    int too_deep;
    struct json_object *root = common_json_parse_ex(resp->body, resp->body_len, &too_deep);
    if (root == NULL || !json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "%s: the answer is %s", call->what,
                                     too_deep ? COMMON_JSON_TOO_DEEP : "not a JSON object");
    }
    int answered = 0;
    common_json_field vf = common_json_get_int(root, "mount_contract_version", &answered);
    sbx_status st;
    /* A null version is an absent one (version 0), as every optional field
     * of an answer; a string or a boolean is a malformed answer. */
    if ((vf != COMMON_JSON_OK && vf != COMMON_JSON_ABSENT && vf != COMMON_JSON_NULL) ||
        answered < 0) {
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                   "mount contract response for %s has a mount_contract_version "
                                   "that is not a non-negative integer", call->req->sandbox_id);
    } else if (answered != call->frozen) {
        remote_contract_cache_mark_stale(&call->inst->contract);
        st = contract_changed(err, call->frozen, answered, (int)resp->status,
                              "the create answer carries another version", call->req->sandbox_id);
    } else {
        st = decode_answer(call, root, sb, err);
    }
    json_object_put(root);
    return st;
}

static sbx_status post_create(const create_call *call, sbx_sandbox *sb, sbx_error *err)
{
    sbx_backend_instance *inst = call->inst;
    char *body = remote_create_body(call->req, call->user, call->frozen,
                                    (const char *const *)inst->options.forward_mounts,
                                    inst->options.forward_mount_count, err);
    if (body == NULL)
        return SBX_ERR_INTERNAL;
    common_http_response resp;
    sbx_error cause;
    sbx_backend_error_clear(&cause);
    common_http_call post = {.method = "POST", .path = "/api/sandboxes", .json_body = body,
                             .timeout_ms = inst->options.create_timeout_ms};
    sbx_status st = common_http_perform(inst->http, &post, &resp, &cause);
    free(body);
    int made = resp.status >= 200 && resp.status < 300;
    if (st != SBX_OK) {
        remote_wrap_error(&cause, call->what, err);
        return made ? common_answer_left_for_destroy(call->req->sandbox_id, err) : st;
    }
    int expected, actual;
    if (made) {
        st = accept_answer(call, &resp, sb, err);
        /* The provisioner has the sandbox; only our memory failed it. */
        if (st == SBX_ERR_INTERNAL)
            common_answer_left_for_destroy(call->req->sandbox_id, err);
    } else if (is_contract_conflict(&resp, &expected, &actual)) {
        remote_contract_cache_mark_stale(&inst->contract);
        st = contract_changed(err, expected, actual, (int)resp.status,
                              "the provisioner refused the frozen version", call->req->sandbox_id);
    } else {
        st = remote_answer_error(&inst->options, &resp, call->what, err);
    }
    common_http_response_clear(&resp);
    return st;
}

/* Rule 2.  Contract 0 isolates no user's mounts; contract 1 isolates the
 * user's but not a thread's data (the reference client refuses it when a
 * thread is given).  Only "default" may be served below what is needed. */
static int cannot_isolate(int frozen, const sbx_create_request *req, const char *user)
{
    if (strcmp(user, COMMON_DEFAULT_USER_ID) == 0)
        return 0;
    return frozen == 0 || (frozen < REMOTE_CONTRACT_CURRENT_VERSION && req->thread_id != NULL);
}

/* The refusal names the user, the contract and, when it is unverified, why
 * the probe failed: a script tells "provisioner down or key wrong" (retry,
 * fix the key) from "provisioner too old" (do not retry) by actual_contract
 * (-1 unverified, else the version) and the message. */
static sbx_status refuse_isolation(const remote_contract_state *snapshot,
                                   const sbx_create_request *req, const char *user,
                                   sbx_error *err)
{
    char contract[sizeof "unverified (the capability probe failed: : )" + 32 +
                  sizeof snapshot->failure];
    if (!snapshot->known)
        snprintf(contract, sizeof contract, "unverified (the capability probe failed: %s: %s)",
                 sbx_backend_status_name(snapshot->failure_kind), snapshot->failure);
    else if (snapshot->version == 0)
        snprintf(contract, sizeof contract, "legacy (version 0)");
    else
        snprintf(contract, sizeof contract,
                 "version %d, which does not isolate a thread's data", snapshot->version);
    sbx_backend_error_set(
        err, SBX_ERR_REFUSED,
        "cannot isolate user '%s' for sandbox %s: the provisioner's mount contract "
        "is %s, so only the default user may be served", user, req->sandbox_id, contract);
    err->expected_contract = REMOTE_CONTRACT_CURRENT_VERSION;
    err->actual_contract = snapshot->known ? snapshot->version : SBX_CONTRACT_NONE;
    return SBX_ERR_REFUSED;
}

unsigned remote_create_fields(sbx_backend_instance *inst)
{
    remote_contract_state snapshot;
    remote_contract_cache_current(&inst->contract, &snapshot);
    return snapshot.known ? snapshot.create_fields : 0;
}

/* Create as `to` asks (a sandbox or a record, with the request's labels:
 * the provisioner advertised them and made or adopted the sandbox with
 * them). */
static sbx_status create_answering(sbx_backend_instance *inst,
                                   const sbx_create_request *original,
                                   const common_answer *to, sbx_error *err)
{
    const char *user = NULL;
    sbx_create_request full;
    sbx_status st = check_request(original, &full, &user, err);
    if (st != SBX_OK)
        return st;
    const sbx_create_request *req = &full;

    /* Rule 3: freeze the version once; everything below uses the snapshot. */
    remote_contract_state snapshot;
    remote_contract_cache_current(&inst->contract, &snapshot);
    int frozen = remote_contract_effective_version(&snapshot);

    if (req->required_contract != SBX_CONTRACT_NONE && req->required_contract != frozen)
        return contract_changed(err, req->required_contract, frozen, 0,
                                "the caller's required version is not the provisioner's",
                                req->sandbox_id);
    if (!snapshot.known && snapshot.probe_out_of_memory)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                     "out of memory probing the provisioner's capabilities for "
                                     "sandbox %s", req->sandbox_id);
    st = remote_create_refuse_unadvertised(req, &snapshot, err);
    if (st != SBX_OK)
        return st;
    if (cannot_isolate(frozen, req, user))
        return refuse_isolation(&snapshot, req, user, err);
    st = remote_check_upload_conversions(
        req, (const char *const *)inst->options.forward_mounts,
        inst->options.forward_mount_count, err);
    if (st != SBX_OK)
        return st;

    /* The id was checked: a DNS label of at most COMMON_SANDBOX_ID_MAX. */
    char what[sizeof CREATE_FAILED + COMMON_SANDBOX_ID_MAX];
    snprintf(what, sizeof what, CREATE_FAILED "%s", req->sandbox_id);
    const create_call call = { inst, req, user, frozen, what };
    sbx_sandbox sb;
    st = post_create(&call, &sb, err);
    if (st != SBX_OK)
        return st;
    REMOTE_LOG(inst, SBX_LOG_INFO, "created sandbox %s for user %s (mount contract %d)",
               sb.sandbox_id, user, frozen);
    common_record_facts facts;
    common_record_facts_of_sandbox(&sb, &facts);
    facts.labels = req->labels;
    facts.label_count = req->label_count;
    st = common_answer_one(to, &facts, err);
    common_sandbox_record_clear(&sb);
    return st == SBX_OK ? st : common_answer_left_for_destroy(req->sandbox_id, err);
}

sbx_status remote_create(sbx_backend_instance *inst, const sbx_create_request *req,
                         sbx_sandbox **out, sbx_error *err)
{
    *out = NULL;
    const common_answer to = {out, NULL};
    return create_answering(inst, req, &to, err);
}

sbx_status remote_create_record(sbx_backend_instance *inst, const sbx_create_request *req,
                                sbx_sandbox_record **out, sbx_error *err)
{
    *out = NULL;
    const common_answer to = {NULL, out};
    return create_answering(inst, req, &to, err);
}
