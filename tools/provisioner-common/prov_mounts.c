/* Mount rules in the order the real provisioner applies them: count, then
 * per mount host path, container path, overlay rules, duplicates. */
#include <config.h>

#include "tools/provisioner-common/prov_mounts.h"

#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"
#include "tools/provisioner-common/prov_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UPLOAD_CONVERSIONS_PATH "/mnt/user-data/.upload-conversions"

/* The container paths the real provisioner knows how to mount.
 * (Not /mnt/integrations/lark-cli/config/locks: it answers 400 for it.) */
static const char *const allowed_container_paths[] = {
    UPLOAD_CONVERSIONS_PATH,
    "/mnt/acp-workspace",
    "/mnt/skills/custom",
    "/mnt/skills/integrations",
    "/mnt/integrations/lark-cli/config",
    "/mnt/integrations/lark-cli/data",
    "/mnt/integrations/lark-cli/runtime",
};

static int allowed(const char *container_path)
{
    size_t n = sizeof allowed_container_paths / sizeof allowed_container_paths[0];
    for (size_t i = 0; i < n; i++) {
        if (strcmp(allowed_container_paths[i], container_path) == 0)
            return 1;
    }
    return 0;
}

static const char *string_member(json_object *obj, const char *key)
{
    json_object *v = NULL;
    json_object_object_get_ex(obj, key, &v);
    return json_object_get_string(v);
}

/* What a check answers when memory runs out. */
static const char out_of_memory[] = "out of memory";

/* Whose mounts are checked: the request's user and thread, and the
 * normalised state directory their host paths must be under.  Borrowed. */
typedef struct mount_owner {
    const char *user_id;
    const char *thread_id;
    const char *base;
} mount_owner;

/* The overlay must be read-only and be exactly this user's and thread's
 * upload-conversions folder.  Returns the problem (out_of_memory when
 * the expected path cannot be built), or NULL. */
static const char *overlay_problem(const char *host, int read_only, const mount_owner *owner)
{
    if (!read_only)
        return "Upload conversion mount must be read-only";
    const char *const parts[] = {"users", owner->user_id, "threads", owner->thread_id,
                                 "user-data", ".upload-conversions"};
    char *expected = prov_path_join(owner->base, parts, 6);
    if (expected == NULL)
        return out_of_memory;
    int same = strcmp(expected, host) == 0;
    free(expected);
    return same ? NULL : "Upload conversion mount must match the requested user and thread";
}

/* Check mount `m`; on success add its normalised form to `signature`, else
 * write the 400 detail into `detail` (out_of_memory when memory ran out). */
static void check_one(json_object *m, const mount_owner *owner, json_object *signature,
                      char *detail, size_t detail_len)
{
    const char *base = owner->base;
    const char *host_raw = string_member(m, "host_path");
    const char *container_raw = string_member(m, "container_path");
    json_object *ro = NULL;
    int read_only = json_object_object_get_ex(m, "read_only", &ro) && json_object_get_boolean(ro);
    char *host = prov_normpath(host_raw);
    char *container = prov_normpath(container_raw);
    const char *problem = NULL;
    int under = host != NULL ? prov_path_is_under(host, base) : -1;
    if (container == NULL || under < 0)
        snprintf(detail, detail_len, "%s", out_of_memory);
    else if (host[0] != '/')
        snprintf(detail, detail_len, "Extra mount host path must be absolute: %s", host_raw);
    else if (!under)
        snprintf(detail, detail_len, "Extra mount host path is outside DeerFlow state: %s",
                 host_raw);
    else if (container[0] != '/')
        snprintf(detail, detail_len, "Extra mount path must be absolute: %s", container_raw);
    else if (!allowed(container))
        snprintf(detail, detail_len, "Unsupported extra mount path: %s", container_raw);
    else if (strcmp(container, UPLOAD_CONVERSIONS_PATH) == 0 &&
             (problem = overlay_problem(host, read_only, owner)) != NULL)
        snprintf(detail, detail_len, "%s", problem);
    for (size_t i = 0; detail[0] == '\0' && i < json_object_array_length(signature); i++) {
        json_object *earlier = json_object_array_get_idx(signature, i);
        if (strcmp(json_object_get_string(json_object_array_get_idx(earlier, 1)), container) == 0)
            snprintf(detail, detail_len, "Duplicate extra mount path: %s", container);
    }
    if (detail[0] == '\0') {
        json_object *entry = json_object_new_array();
        int built = entry != NULL &&
                    prov_json_append(entry, json_object_new_string(host)) &&
                    prov_json_append(entry, json_object_new_string(container)) &&
                    prov_json_append(entry, json_object_new_boolean(read_only));
        if (!prov_json_append(signature, prov_json_built(entry, built)))
            snprintf(detail, detail_len, "%s", out_of_memory);
    }
    free(host);
    free(container);
}

char *prov_mounts_check(json_object *mounts, const char *user_id, const char *thread_id,
                            const char *state_dir, prov_reply *reply)
{
    size_t n = mounts != NULL ? json_object_array_length(mounts) : 0;
    char detail[2048] = "";
    if (n > PROV_MAX_EXTRA_MOUNTS) {
        snprintf(detail, sizeof detail, "Too many extra mounts; max is %d",
                 PROV_MAX_EXTRA_MOUNTS);
        prov_reply_detail(reply, 400, detail);
        return NULL;
    }
    char *base = prov_normpath(state_dir);
    json_object *signature = json_object_new_array();
    if (base == NULL || signature == NULL)
        snprintf(detail, sizeof detail, "%s", out_of_memory);
    const mount_owner owner = {user_id, thread_id, base};
    for (size_t i = 0; i < n && detail[0] == '\0'; i++)
        check_one(json_object_array_get_idx(mounts, i), &owner, signature, detail, sizeof detail);
    free(base);
    char *text = detail[0] == '\0' ? prov_strdup(prov_json_text(signature)) : NULL;
    json_object_put(signature);
    if (strcmp(detail, out_of_memory) == 0 || (detail[0] == '\0' && text == NULL))
        prov_reply_out_of_memory(reply);
    else if (detail[0] != '\0')
        prov_reply_detail(reply, 400, detail);
    return text;
}
