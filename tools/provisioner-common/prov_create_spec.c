/* Reading a create body's spec members (see prov_create_spec.h). */
#include <config.h>

#include "tools/provisioner-common/prov_create_spec.h"

#include "tools/provisioner-common/prov_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *prov_network_name(sbx_network network)
{
    switch (network) {
    case SBX_NETWORK_NONE:
        return "none";
    case SBX_NETWORK_EGRESS:
        return "egress";
    case SBX_NETWORK_DEFAULT:
        break;
    }
    return NULL;
}

/* The 422 naming member `key` and what it must be. */
static int refuse(prov_reply *reply, const char *key, const char *must)
{
    char detail[256];
    snprintf(detail, sizeof detail, "create field '%s' must be %s", key, must);
    prov_reply_detail(reply, 422, detail);
    return 0;
}

/* Member `key` of `root` when present and not null, else NULL. */
static json_object *member(json_object *root, const char *key)
{
    json_object *value = NULL;
    return json_object_object_get_ex(root, key, &value) ? value : NULL;
}

/* A string-valued object's members as name/value pairs written through
 * `set` into a new array (*out; NULL when empty).  Returns 1, 0 for a
 * member that is not a string (422), -1 out of memory. */
static int read_pairs(json_object *object, size_t pair_size,
                      void (*set)(void *pair, const char *name, const char *value),
                      void **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    size_t n = (size_t)json_object_object_length(object);
    if (n == 0)
        return 1;
    char *pairs = prov_malloc(n * pair_size);
    if (pairs == NULL)
        return -1;
    json_object_object_foreach(object, name, value) {
        if (!json_object_is_type(value, json_type_string)) {
            free(pairs);
            return 0;
        }
        set(pairs + *count * pair_size, name, json_object_get_string(value));
        (*count)++;
    }
    *out = pairs;
    return 1;
}

static void set_env(void *pair, const char *name, const char *value)
{
    *(sbx_env_var *)pair = (sbx_env_var){name, value};
}

static void set_label(void *pair, const char *name, const char *value)
{
    *(sbx_label *)pair = (sbx_label){name, value};
}

/* Object member `key` read as pairs.  Returns 1, or 0 with the answer. */
static int read_object(json_object *root, const char *key, size_t pair_size,
                       void (*set)(void *, const char *, const char *), void **out,
                       size_t *count, prov_reply *reply)
{
    json_object *value = member(root, key);
    *out = NULL;
    *count = 0;
    if (value == NULL)
        return 1;
    if (!json_object_is_type(value, json_type_object))
        return refuse(reply, key, "an object whose values are strings");
    int read = read_pairs(value, pair_size, set, out, count);
    if (read < 0)
        prov_reply_out_of_memory(reply);
    else if (read == 0)
        refuse(reply, key, "an object whose values are strings");
    return read > 0;
}

/* Integer member `key` into *out (absent or null: unchanged). */
static int read_integer(json_object *root, const char *key, int64_t *out, prov_reply *reply)
{
    json_object *value = member(root, key);
    if (value == NULL)
        return 1;
    if (!json_object_is_type(value, json_type_int))
        return refuse(reply, key, "an integer");
    *out = json_object_get_int64(value);
    return 1;
}

static int read_network(json_object *root, sbx_network *out, prov_reply *reply)
{
    json_object *value = member(root, "network");
    if (value == NULL)
        return 1;
    const char *name = json_object_is_type(value, json_type_string)
                           ? json_object_get_string(value) : "";
    if (strcmp(name, "none") == 0)
        *out = SBX_NETWORK_NONE;
    else if (strcmp(name, "egress") == 0)
        *out = SBX_NETWORK_EGRESS;
    else
        return refuse(reply, "network", "\"none\" or \"egress\"");
    return 1;
}

int prov_create_spec_read(json_object *root, sbx_create_request *req, prov_create_spec *spec,
                          prov_reply *reply)
{
    memset(spec, 0, sizeof *spec);
    json_object *image = member(root, "image");
    if (image != NULL && !json_object_is_type(image, json_type_string))
        return refuse(reply, "image", "a string");
    req->image = image != NULL ? json_object_get_string(image) : NULL;
    void *env = NULL, *labels = NULL;
    int ok = read_object(root, "env", sizeof(sbx_env_var), set_env, &env, &req->env_count,
                         reply);
    spec->env = env;
    ok = ok && read_object(root, "labels", sizeof(sbx_label), set_label, &labels,
                           &req->label_count, reply);
    spec->labels = labels;
    ok = ok && read_integer(root, "memory_bytes", &req->memory_bytes, reply) &&
         read_integer(root, "cpu_millicores", &req->cpu_millicores, reply) &&
         read_integer(root, "pids_limit", &req->pids_limit, reply) &&
         read_integer(root, "disk_bytes", &req->disk_bytes, reply) &&
         read_network(root, &req->network, reply) &&
         read_integer(root, "expires_at", &req->expires_at, reply);
    if (!ok)
        prov_create_spec_clear(spec);
    req->env = spec->env;
    req->labels = spec->labels;
    return ok;
}

void prov_create_spec_clear(prov_create_spec *spec)
{
    free(spec->env);
    free(spec->labels);
    memset(spec, 0, sizeof *spec);
}
