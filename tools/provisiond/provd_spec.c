/* The spec members of a create in sbx-provisiond (see provd_spec.h). */
#include <config.h>

#include "tools/provisiond/provd_spec.h"

#include "common/create_request.h"
#include "tools/provisioner-common/prov_answers.h"
#include "tools/provisioner-common/prov_json.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Every SBX_CREATE_* bit, in the request's order. */
#define ALL_FIELDS 0x1ffu

int64_t provd_spec_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

unsigned provd_spec_backend_fields(sbx_backend *backend)
{
    sbx_operations_info info = {.struct_size = sizeof info};
    sbx_error ignored;
    if (sbx_backend_operations_info(backend, &info, &ignored) != SBX_OK)
        return 0;
    return info.create_fields & ALL_FIELDS;
}

unsigned provd_spec_fields(sbx_backend *backend)
{
    return provd_spec_backend_fields(backend) | SBX_CREATE_EXPIRY;
}

void provd_spec_answer_capabilities(int contract, sbx_backend *backend, prov_reply *reply)
{
    unsigned fields = provd_spec_fields(backend);
    json_object *obj = prov_capabilities_json(contract);
    json_object *names = json_object_new_array();
    int built = names != NULL;
    for (unsigned bit = 1; built && bit <= ALL_FIELDS; bit <<= 1)
        if (fields & bit)
            built = prov_json_append(names, json_object_new_string(common_create_field_name(bit)));
    if (!built) {
        json_object_put(names);
        names = NULL;
    }
    built = obj != NULL && prov_json_add(obj, "create_fields", names) &&
            prov_json_add(obj, "extend", json_object_new_boolean(1));
    if (obj == NULL)
        json_object_put(names);
    prov_reply_json(reply, 200, prov_json_built(obj, built));
}

int provd_spec_check(sbx_backend *backend, sbx_create_request *req, int64_t *expires_at,
                     prov_reply *reply)
{
    *expires_at = 0;
    if (common_create_request_fields_set(req) == 0)
        return 1;
    sbx_error err;
    sbx_error_clear(&err);
    unsigned own = provd_spec_backend_fields(backend);
    sbx_status st = common_create_request_check_fields(req, &err);
    char prefix[96];
    snprintf(prefix, sizeof prefix, "sbx-provisiond (backend '%s')",
             sbx_backend_descriptor_of(backend)->name);
    if (st == SBX_OK)
        st = common_create_request_refuse_unhonoured(prefix, req, own | SBX_CREATE_EXPIRY, &err);
    if (st != SBX_OK) {
        char detail[SBX_ERROR_MESSAGE_MAX + 32];
        snprintf(detail, sizeof detail, "%s (%s)", err.message, sbx_status_name(st));
        prov_reply_detail(reply, 400, detail);
        return 0;
    }
    *expires_at = req->expires_at;
    if (!(own & SBX_CREATE_EXPIRY))
        req->expires_at = SBX_TIME_UNKNOWN;
    return 1;
}

json_object *provd_spec_answer(json_object *answer, const sbx_label *labels,
                               size_t label_count, int64_t expires_at)
{
    int built = answer != NULL;
    if (built && label_count > 0) {
        json_object *object = json_object_new_object();
        built = object != NULL;
        for (size_t i = 0; built && i < label_count; i++)
            built = prov_json_add_string(object, labels[i].key, labels[i].value);
        built = built ? prov_json_add(answer, "labels", object) : (json_object_put(object), 0);
    }
    if (built && expires_at != 0)
        built = prov_json_add(answer, "expires_at", json_object_new_int64(expires_at));
    return prov_json_built(answer, built);
}
