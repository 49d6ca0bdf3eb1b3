/* The extend route of sbx-provisiond (see provd_extend.h). */
#include <config.h>

#include "tools/provisiond/provd_extend.h"

#include "common/sandbox_ids.h"
#include "tools/provisioner-common/prov_answers.h"
#include "tools/provisioner-common/prov_create.h"
#include "tools/provisioner-common/prov_json.h"
#include "tools/provisiond/provd_spec.h"

#include <stdio.h>
#include <string.h>

#define SANDBOXES "/api/sandboxes/"
#define EXTEND "/extend"

/* The id of an extend path into id[size]: 1, or 0 when `path` is not one. */
static int extend_path_id(const char *path, char *id, size_t size)
{
    size_t len = strlen(path), head = strlen(SANDBOXES), tail = strlen(EXTEND);
    if (len <= head + tail || strncmp(path, SANDBOXES, head) != 0 ||
        strcmp(path + len - tail, EXTEND) != 0)
        return 0;
    size_t id_len = len - head - tail;
    if (id_len >= size || memchr(path + head, '/', id_len) != NULL)
        return 0;
    memcpy(id, path + head, id_len);
    id[id_len] = '\0';
    return 1;
}

/* What an extend body asks: the new expiry and whom the sandbox must
 * belong to (NULL: not checked); strings borrowed from the parsed body. */
typedef struct extend_body {
    int64_t expires_at;
    const char *user_id, *thread_id;
} extend_body;

/* 422 naming `key` and what it must be. */
static int refuse(prov_reply *reply, const char *key, const char *must)
{
    char detail[160];
    snprintf(detail, sizeof detail, "extend field '%s' must be %s", key, must);
    prov_reply_detail(reply, 422, detail);
    return 0;
}

/* An optional string member (absent or null: NULL) into *out; 0 with the
 * 422 when it is another type. */
static int optional_string(json_object *root, const char *key, const char **out,
                           prov_reply *reply)
{
    *out = NULL;
    json_object *value = NULL;
    if (!json_object_object_get_ex(root, key, &value) || value == NULL)
        return 1;
    if (!json_object_is_type(value, json_type_string) ||
        strlen(json_object_get_string(value)) != (size_t)json_object_get_string_len(value))
        return refuse(reply, key, "a string without NUL");
    *out = json_object_get_string(value);
    return 1;
}

/* Read the body (a JSON object; `root` is the caller's to put): 1, or 0
 * with the 422 (ill-typed) or 400 (an expiry not in the future). */
static int read_body(const prov_request *req, json_object **root, extend_body *out,
                     prov_reply *reply)
{
    memset(out, 0, sizeof *out);
    size_t offset = 0;
    const char *why = NULL;
    *root = prov_json_parse(req->body, req->body_len, &offset, &why);
    json_object *at = NULL;
    if (*root == NULL || !json_object_is_type(*root, json_type_object)) {
        prov_reply_detail(reply, 422, "extend request: the body must be a JSON object");
        return 0;
    }
    if (!json_object_object_get_ex(*root, "expires_at", &at) ||
        !json_object_is_type(at, json_type_int))
        return refuse(reply, "expires_at", "an integer (ms since the Unix epoch)");
    out->expires_at = json_object_get_int64(at);
    if (!optional_string(*root, "user_id", &out->user_id, reply) ||
        !optional_string(*root, "thread_id", &out->thread_id, reply))
        return 0;
    if (out->expires_at <= provd_spec_now_ms()) {
        prov_reply_detail(reply, 400,
                          "extend request: expires_at is not in the future (usage)");
        return 0;
    }
    return 1;
}

/* Move the expiry of `id`, whose lock is held: its record (which must
 * belong to whom `body` names and have an expiry), then the backend's. */
static void extend_locked(provd_service *svc, const char *id, const extend_body *body,
                          prov_reply *reply)
{
    provd_record record;
    int known = provd_owners_get(svc->owners, id, &record);
    if (known < 0) {
        prov_reply_out_of_memory(reply);
        return;
    }
    prov_owner have = provd_record_owner(&record);
    const prov_owner want = { body->user_id, body->thread_id, NULL, have.contract_version };
    const char *problem = known == 1 ? prov_owner_conflict(&have, have.contract_version, &want)
                                     : NULL;
    sbx_error err;
    char why[512];
    if (known != 1) {
        prov_answer_sandbox_not_found(id, reply);
    } else if (problem != NULL) {
        prov_answer_existing(id, problem, reply);
    } else if (record.expires_at == 0) {
        prov_reply_detail(reply, 400, "extend request: the sandbox was created without an "
                                      "expiry (expires_at): there is none to move (usage)");
    } else if ((provd_spec_backend_fields(svc->backend) & SBX_CREATE_EXPIRY) &&
               sbx_backend_extend(svc->backend, id, body->expires_at, &err) != SBX_OK) {
        provd_service_answer_error(&err, reply);
    } else {
        provd_keep keep = { record.token, body->expires_at };
        if (provd_owners_put(svc->owners, id, &have, &keep, why, sizeof why) != 1) {
            prov_reply_detail(reply, 500, why);
        } else {
            json_object *answer = json_object_new_object();
            int built = answer != NULL && prov_json_add_string(answer, "sandbox_id", id) &&
                        prov_json_add(answer, "expires_at",
                                      json_object_new_int64(body->expires_at));
            prov_reply_json(reply, 200, prov_json_built(answer, built));
        }
    }
    provd_record_clear(&record);
}

int provd_extend_answer(provd_service *svc, const prov_request *req, prov_reply *reply)
{
    char id[COMMON_SANDBOX_ID_MAX + 2];
    if (strcmp(req->method, "POST") != 0 || !extend_path_id(req->path, id, sizeof id))
        return 0;
    if (!common_sandbox_id_is_valid(id) && !prov_path_id_valid(id, reply))
        return 1;
    json_object *root = NULL;
    extend_body body;
    if (read_body(req, &root, &body, reply)) {
        /* One already past its expiry is destroyed, and gone. */
        prov_reply expired = {0};
        int tried = provd_service_expire(svc, id, &expired);
        if (tried && expired.status != 200) {
            *reply = expired;   /* why it could not be destroyed: moved */
        } else if (tried) {
            prov_reply_clear(&expired);
            prov_answer_sandbox_not_found(id, reply);
        } else if (provd_service_lock_for_change(svc, id, reply)) {
            extend_locked(svc, id, &body, reply);
            provd_owners_unlock(svc->owners, id);
        }
    }
    json_object_put(root);
    return 1;
}
