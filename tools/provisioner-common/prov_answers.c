/* Answer bodies, one builder per shape of the protocol. */
#include <config.h>

#include "tools/provisioner-common/prov_answers.h"

#include "tools/provisioner-common/prov_routes.h"

#include <stdio.h>
#include <string.h>

/* A detail longer than any id the router passes, plus its words. */
#define DETAIL_MAX (SBX_PROV_ID_MAX + 1024)

void sbx_prov_answer_health(sbx_prov_reply *reply)
{
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "status", json_object_new_string("ok"));
    sbx_prov_reply_json(reply, 200, obj);
}

void sbx_prov_answer_capabilities(int version, sbx_prov_reply *reply)
{
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "lark_cli_init_image", json_object_new_boolean(0));
    json_object_object_add(obj, "lark_cli_broker_image", json_object_new_boolean(0));
    if (version >= 1)
        json_object_object_add(obj, "mount_contract_version", json_object_new_int(version));
    sbx_prov_reply_json(reply, 200, obj);
}

void sbx_prov_answer_no_route(sbx_prov_reply *reply)
{
    sbx_prov_reply_detail(reply, 404, "Not Found");
}

void sbx_prov_answer_sandbox_not_found(const char *id, sbx_prov_reply *reply)
{
    sbx_prov_answer_words(reply, 404, "Sandbox '", id, "' not found");
}

void sbx_prov_answer_internal_error(sbx_prov_reply *reply)
{
    sbx_prov_reply_text(reply, 500, "Internal Server Error", "text/plain; charset=utf-8");
}

void sbx_prov_answer_words(sbx_prov_reply *reply, unsigned status, const char *a,
                           const char *b, const char *c)
{
    char detail[DETAIL_MAX];
    snprintf(detail, sizeof detail, "%s%s%s", a, b, c);
    sbx_prov_reply_detail(reply, status, detail);
}

void sbx_prov_answer_contract_changed(int64_t expected, int actual, sbx_prov_reply *reply)
{
    json_object *detail = json_object_new_object();
    json_object_object_add(detail, "code", json_object_new_string("mount_contract_changed"));
    json_object_object_add(detail, "expected", json_object_new_int64(expected));
    json_object_object_add(detail, "actual", json_object_new_int(actual));
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "detail", detail);
    sbx_prov_reply_json(reply, 409, obj);
}

/* A NULL expectation asks nothing; a NULL fact matches nothing else. */
static int differs(const char *want, const char *have)
{
    return want != NULL && (have == NULL || strcmp(want, have) != 0);
}

const char *sbx_prov_owner_conflict(const sbx_prov_owner *have, int version,
                                    const sbx_prov_owner *want)
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

void sbx_prov_answer_existing(const char *id, const char *problem, sbx_prov_reply *reply)
{
    sbx_prov_answer_words(reply, 409, "Existing sandbox '", id, problem);
}

/* A string member, or JSON null for NULL. */
static json_object *string_or_null(const char *text)
{
    return text != NULL ? json_object_new_string(text) : NULL;
}

json_object *sbx_prov_sandbox_json(const char *id, const char *url, const char *phase,
                                   const sbx_prov_owner *owner, int with_identity)
{
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "sandbox_id", json_object_new_string(id));
    json_object_object_add(obj, "sandbox_url", json_object_new_string(url));
    json_object_object_add(obj, "status", json_object_new_string(phase));
    if (with_identity) {
        json_object_object_add(obj, "user_id", string_or_null(owner ? owner->user_id : NULL));
        json_object_object_add(obj, "thread_id",
                               string_or_null(owner ? owner->thread_id : NULL));
        json_object_object_add(obj, "mount_contract_version",
                               owner != NULL ? json_object_new_int(owner->contract_version)
                                             : NULL);
    }
    return obj;
}

void sbx_prov_answer_deleted(const char *id, sbx_prov_reply *reply)
{
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "ok", json_object_new_boolean(1));
    json_object_object_add(obj, "sandbox_id", json_object_new_string(id));
    sbx_prov_reply_json(reply, 200, obj);
}

void sbx_prov_answer_list(json_object *entries, sbx_prov_reply *reply)
{
    json_object *obj = json_object_new_object();
    int count = (int)json_object_array_length(entries);
    json_object_object_add(obj, "sandboxes", entries);
    json_object_object_add(obj, "count", json_object_new_int(count));
    sbx_prov_reply_json(reply, 200, obj);
}

json_object *sbx_prov_reconciliation_json(const char *id, const char *namespace_uid,
                                          const char *incarnation)
{
    json_object *obj = json_object_new_object();
    json_object_object_add(obj, "sandbox_id", json_object_new_string(id));
    json_object_object_add(obj, "status",
                           json_object_new_string(incarnation != NULL ? "found" : "absent"));
    json_object_object_add(obj, "backend_namespace", json_object_new_string(namespace_uid));
    json_object_object_add(obj, "incarnation_id", string_or_null(incarnation));
    return obj;
}

void sbx_prov_reconciliation_identity(json_object *obj, const char *url,
                                      const sbx_prov_owner *owner)
{
    json_object_object_add(obj, "sandbox_url", string_or_null(url));
    json_object_object_add(obj, "user_id", string_or_null(owner ? owner->user_id : NULL));
    json_object_object_add(obj, "thread_id", string_or_null(owner ? owner->thread_id : NULL));
    json_object_object_add(obj, "mount_contract_version",
                           owner != NULL ? json_object_new_int(owner->contract_version) : NULL);
}
