/* The spec members of a create on the wire (see remote_create_spec.h). */
#include <config.h>

#include "plugin/remote/remote_create_spec.h"

#include "common/create_request.h"
#include "common/json_fields.h"
#include "common/utf8.h"
#include "plugin/remote/remote_options.h"

#include <sbx/backend_support.h>

#include <stdlib.h>
#include <string.h>

/* The last SBX_CREATE_* bit. */
#define LAST_FIELD SBX_CREATE_EXPIRY

unsigned remote_decode_create_fields(const char *body, size_t len)
{
    int too_deep;
    struct json_object *root = common_json_parse_ex(body, len, &too_deep);
    struct json_object *names = NULL;
    unsigned fields = 0;
    int valid = root != NULL && json_object_is_type(root, json_type_object) &&
                json_object_object_get_ex(root, "create_fields", &names) &&
                json_object_is_type(names, json_type_array);
    size_t n = valid ? json_object_array_length(names) : 0;
    for (size_t i = 0; valid && i < n; i++) {
        struct json_object *name = json_object_array_get_idx(names, i);
        valid = json_object_is_type(name, json_type_string);
        for (unsigned bit = 1; valid && bit <= LAST_FIELD; bit <<= 1)
            if (strcmp(json_object_get_string(name), common_create_field_name(bit)) == 0)
                fields |= bit;
    }
    json_object_put(root);
    return valid ? fields : 0;
}

/* Add `value` (taken) under `key`; 0 when it is NULL or cannot be added. */
static int put(struct json_object *object, const char *key, struct json_object *value)
{
    if (value != NULL && json_object_object_add(object, key, value) == 0)
        return 1;
    json_object_put(value);
    return 0;
}

/* The request's labels (`labels`) or env as an object of strings (a later
 * env name replaces an earlier one: its later value wins). */
static struct json_object *pairs_json(const sbx_create_request *full, int labels)
{
    struct json_object *object = json_object_new_object();
    size_t count = labels ? full->label_count : full->env_count;
    int ok = object != NULL;
    for (size_t i = 0; ok && i < count; i++)
        ok = labels ? put(object, full->labels[i].key, json_object_new_string(full->labels[i].value))
                    : put(object, full->env[i].name, json_object_new_string(full->env[i].value));
    if (!ok) {
        json_object_put(object);
        return NULL;
    }
    return object;
}

/* Integer member `key` when `value` is a limit set. */
static int put_limit(struct json_object *body, const char *key, int64_t value)
{
    return value == SBX_LIMIT_NONE || put(body, key, json_object_new_int64(value));
}

int remote_create_spec_put(struct json_object *body, const sbx_create_request *full)
{
    int ok = full->image == NULL || put(body, "image", json_object_new_string(full->image));
    ok = ok && (full->env_count == 0 || put(body, "env", pairs_json(full, 0)));
    ok = ok && (full->label_count == 0 || put(body, "labels", pairs_json(full, 1)));
    ok = ok && put_limit(body, "memory_bytes", full->memory_bytes) &&
         put_limit(body, "cpu_millicores", full->cpu_millicores) &&
         put_limit(body, "pids_limit", full->pids_limit) &&
         put_limit(body, "disk_bytes", full->disk_bytes);
    if (ok && full->network != SBX_NETWORK_DEFAULT)
        ok = put(body, "network", json_object_new_string(full->network == SBX_NETWORK_NONE
                                                             ? "none" : "egress"));
    if (ok && full->expires_at != SBX_TIME_UNKNOWN)
        ok = put(body, "expires_at", json_object_new_int64(full->expires_at));
    return ok;
}

sbx_status remote_create_refuse_unadvertised(const sbx_create_request *full,
                                             const remote_contract_state *snapshot,
                                             sbx_error *err)
{
    unsigned advertised = snapshot->known ? snapshot->create_fields : 0;
    unsigned refused = common_create_request_fields_set(full) & ~advertised;
    if (refused == 0)
        return SBX_OK;
    return sbx_backend_error_set(
        err, SBX_ERR_UNSUPPORTED,
        REMOTE_NAME ": create request member '%s' for sandbox %s is not among the create "
        "fields the provisioner advertises (%s); nothing was sent",
        common_create_field_name(refused & -refused), full->sandbox_id,
        snapshot->known ? "its capabilities' create_fields"
                        : "its capabilities are unverified");
}

int remote_labels_read(struct json_object *object, sbx_label **labels, size_t *count)
{
    *labels = NULL;
    *count = 0;
    struct json_object *member = NULL;
    if (!json_object_object_get_ex(object, "labels", &member) || member == NULL)
        return 1;
    if (!json_object_is_type(member, json_type_object))
        return 0;
    size_t n = (size_t)json_object_object_length(member);
    if (n == 0)
        return 1;
    sbx_label *array = calloc(n, sizeof *array);
    if (array == NULL)
        return -1;
    size_t used = 0;
    json_object_object_foreach(member, key, value) {
        const char *text = json_object_is_type(value, json_type_string)
                               ? json_object_get_string(value) : NULL;
        if (text == NULL ||
            !common_text_is_clean(text, (size_t)json_object_get_string_len(value)) ||
            !common_text_is_clean(key, strlen(key))) {
            free(array);
            return 0;
        }
        array[used++] = (sbx_label){key, text};
    }
    *labels = array;
    *count = used;
    return 1;
}

int remote_answer_labels_read(const char *body, size_t len, remote_answer_labels *out)
{
    memset(out, 0, sizeof *out);
    int too_deep;
    out->root = common_json_parse_ex(body, len, &too_deep);
    if (out->root == NULL || !json_object_is_type(out->root, json_type_object))
        return 1;
    int read = remote_labels_read(out->root, &out->labels, &out->count);
    out->unreadable = read == 0;
    return read >= 0;
}

void remote_answer_labels_clear(remote_answer_labels *out)
{
    free(out->labels);
    json_object_put(out->root);
    memset(out, 0, sizeof *out);
}
