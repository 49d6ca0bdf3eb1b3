/* Answer bodies, one builder per shape of the protocol. */
#include <config.h>

#include "tools/provisioner-common/prov_answers.h"

#include "tools/provisioner-common/prov_json.h"
#include "tools/provisioner-common/prov_routes.h"

#include <stdio.h>
#include <string.h>

/* A detail longer than any id the router passes, plus its words. */
#define DETAIL_MAX (PROV_ID_MAX + 1024)

void prov_answer_health(prov_reply *reply)
{
    json_object *obj = json_object_new_object();
    int built = obj != NULL && prov_json_add_string(obj, "status", "ok");
    prov_reply_json(reply, 200, prov_json_built(obj, built));
}

json_object *prov_capabilities_json(int version)
{
    json_object *obj = json_object_new_object();
    int built = obj != NULL &&
                prov_json_add(obj, "lark_cli_init_image", json_object_new_boolean(0)) &&
                prov_json_add(obj, "lark_cli_broker_image", json_object_new_boolean(0)) &&
                (version < 1 ||
                 prov_json_add(obj, "mount_contract_version", json_object_new_int(version)));
    return prov_json_built(obj, built);
}

void prov_answer_capabilities(int version, prov_reply *reply)
{
    prov_reply_json(reply, 200, prov_capabilities_json(version));
}

void prov_answer_no_route(prov_reply *reply)
{
    prov_reply_detail(reply, 404, "Not Found");
}

void prov_answer_sandbox_not_found(const char *id, prov_reply *reply)
{
    prov_answer_words(reply, 404, "Sandbox '", id, "' not found");
}

void prov_answer_internal_error(prov_reply *reply)
{
    prov_reply_text(reply, 500, "Internal Server Error", "text/plain; charset=utf-8");
}

void prov_answer_words(prov_reply *reply, unsigned status, const char *a,
                           const char *b, const char *c)
{
    char detail[DETAIL_MAX];
    snprintf(detail, sizeof detail, "%s%s%s", a, b, c);
    prov_reply_detail(reply, status, detail);
}

void prov_answer_contract_changed(int64_t expected, int actual, prov_reply *reply)
{
    json_object *detail = json_object_new_object();
    int built = detail != NULL &&
                prov_json_add_string(detail, "code", "mount_contract_changed") &&
                prov_json_add(detail, "expected", json_object_new_int64(expected)) &&
                prov_json_add(detail, "actual", json_object_new_int(actual));
    detail = prov_json_built(detail, built);
    json_object *obj = detail != NULL ? json_object_new_object() : NULL;
    built = obj != NULL && prov_json_add(obj, "detail", detail);
    if (obj == NULL)
        json_object_put(detail);
    prov_reply_json(reply, 409, prov_json_built(obj, built));
}

/* A NULL expectation asks nothing; a NULL fact matches nothing else. */
static int differs(const char *want, const char *have)
{
    return want != NULL && (have == NULL || strcmp(want, have) != 0);
}

const char *prov_owner_conflict(const prov_owner *have, int version,
                                    const prov_owner *want)
{
    if (have->contract_version != version)
        return "' uses an incompatible or unverifiable mount contract; "
               "destroy it before retrying";
    if (differs(want->user_id, have->user_id))
        return "' belongs to another user";
    if (differs(want->thread_id, have->thread_id))
        return "' belongs to another thread";
    if (differs(want->mounts, have->mounts))
        return "' does not match the requested mount contract";
    return NULL;
}

void prov_answer_existing(const char *id, const char *problem, prov_reply *reply)
{
    prov_answer_words(reply, 409, "Existing sandbox '", id, problem);
}

/* Add user_id, thread_id and mount_contract_version of `owner` (all null
 * for a NULL owner); 1, or 0 when memory ran out. */
static int add_identity(json_object *obj, const prov_owner *owner)
{
    if (owner == NULL)
        return json_object_object_add(obj, "user_id", NULL) == 0 &&
               json_object_object_add(obj, "thread_id", NULL) == 0 &&
               json_object_object_add(obj, "mount_contract_version", NULL) == 0;
    return prov_json_add_string(obj, "user_id", owner->user_id) &&
           prov_json_add_string(obj, "thread_id", owner->thread_id) &&
           prov_json_add(obj, "mount_contract_version",
                             json_object_new_int(owner->contract_version));
}

json_object *prov_sandbox_json(const char *id, const char *url, const char *phase,
                                   const prov_owner *owner, int with_identity)
{
    json_object *obj = json_object_new_object();
    int built = obj != NULL && prov_json_add(obj, "sandbox_id", json_object_new_string(id)) &&
                prov_json_add(obj, "sandbox_url", json_object_new_string(url)) &&
                prov_json_add(obj, "status", json_object_new_string(phase)) &&
                (!with_identity || add_identity(obj, owner));
    return prov_json_built(obj, built);
}

void prov_answer_deleted(const char *id, prov_reply *reply)
{
    json_object *obj = json_object_new_object();
    int built = obj != NULL && prov_json_add(obj, "ok", json_object_new_boolean(1)) &&
                prov_json_add_string(obj, "sandbox_id", id);
    prov_reply_json(reply, 200, prov_json_built(obj, built));
}

void prov_answer_list(json_object *entries, prov_reply *reply)
{
    json_object *obj = entries != NULL ? json_object_new_object() : NULL;
    if (obj == NULL) {
        json_object_put(entries);
        prov_reply_out_of_memory(reply);
        return;
    }
    int count = (int)json_object_array_length(entries);
    int built = prov_json_add(obj, "sandboxes", entries) &&
                prov_json_add(obj, "count", json_object_new_int(count));
    prov_reply_json(reply, 200, prov_json_built(obj, built));
}

json_object *prov_reconciliation_json(const char *id, const char *namespace_uid,
                                          const char *incarnation)
{
    json_object *obj = json_object_new_object();
    int built = obj != NULL && prov_json_add_string(obj, "sandbox_id", id) &&
                prov_json_add_string(obj, "status",
                                         incarnation != NULL ? "found" : "absent") &&
                prov_json_add(obj, "backend_namespace",
                                  json_object_new_string(namespace_uid)) &&
                prov_json_add_string(obj, "incarnation_id", incarnation);
    return prov_json_built(obj, built);
}

json_object *prov_reconciliation_identity(json_object *obj, const char *url,
                                              const prov_owner *owner)
{
    int built = obj != NULL && prov_json_add_string(obj, "sandbox_url", url) &&
                add_identity(obj, owner);
    return prov_json_built(obj, built);
}
