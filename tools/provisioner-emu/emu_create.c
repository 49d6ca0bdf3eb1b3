/* Create-body validation.  The error entries copy pydantic 2's shapes
 * (type, loc, msg, input, ctx) because clients show or match them. */
#include "tools/provisioner-emu/emu_create.h"

#include "tools/provisioner-emu/emu_json.h"

#include <regex.h>
#include <stdio.h>
#include <string.h>

/* The patterns as the reference writes them in its messages, and as POSIX
 * extended regexes (where a backslash in brackets is a literal). */
#define THREAD_ID_PATTERN "^[A-Za-z0-9_-]{1,64}$"
#define THREAD_ID_REGEX THREAD_ID_PATTERN
#define USER_ID_PATTERN "^[A-Za-z0-9_\\-]+$"
#define USER_ID_REGEX "^[A-Za-z0-9_-]+$"
#define MAX_EXTRA_MOUNTS 10

/* The container paths the reference provisioner knows how to recreate. */
static const char *const supported_mount_paths[] = {
    "/mnt/acp-workspace",
    "/mnt/skills/custom",
    "/mnt/skills/integrations",
    "/mnt/integrations/lark-cli/config",
    "/mnt/integrations/lark-cli/config/locks",
    "/mnt/integrations/lark-cli/data",
    "/mnt/integrations/lark-cli/runtime",
};

static json_object *location(const char *field, int index, const char *member)
{
    json_object *loc = json_object_new_array();
    json_object_array_add(loc, json_object_new_string("body"));
    if (field != NULL)
        json_object_array_add(loc, json_object_new_string(field));
    if (index >= 0)
        json_object_array_add(loc, json_object_new_int(index));
    if (member != NULL)
        json_object_array_add(loc, json_object_new_string(member));
    return loc;
}

/* Append one error; `input` is borrowed (a reference is taken). */
static void add_error(json_object *errors, const char *type, json_object *loc,
                      const char *msg, json_object *input, json_object *ctx)
{
    json_object *e = json_object_new_object();
    json_object_object_add(e, "type", json_object_new_string(type));
    json_object_object_add(e, "loc", loc);
    json_object_object_add(e, "msg", json_object_new_string(msg));
    json_object_object_add(e, "input", json_object_get(input));
    if (ctx != NULL)
        json_object_object_add(e, "ctx", ctx);
    json_object_array_add(errors, e);
}

static int matches(const char *pattern, const char *text)
{
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
        return 0;
    int ok = regexec(&re, text, 0, NULL, 0) == 0;
    regfree(&re);
    return ok;
}

typedef enum field_kind { FIELD_STRING, FIELD_INT, FIELD_BOOL, FIELD_LIST } field_kind;

/* Type-check one member of `parent`.  Returns the value when present and
 * well-typed, else NULL (an error is added when it is wrong, or missing
 * and `required`).  JSON null passes when `nullable`. */
static json_object *check_field(json_object *errors, json_object *parent, const char *field,
                                int index, const char *member, field_kind kind,
                                int required, int nullable)
{
    const char *key = member != NULL ? member : field;
    json_object *value = NULL;
    if (!json_object_object_get_ex(parent, key, &value)) {
        if (required)
            add_error(errors, "missing", location(field, index, member), "Field required",
                      parent, NULL);
        return NULL;
    }
    if (value == NULL && nullable)
        return NULL;
    static const struct { json_type type; const char *code, *msg; } kinds[] = {
        [FIELD_STRING] = {json_type_string, "string_type", "Input should be a valid string"},
        [FIELD_INT] = {json_type_int, "int_type", "Input should be a valid integer"},
        [FIELD_BOOL] = {json_type_boolean, "bool_type", "Input should be a valid boolean"},
        [FIELD_LIST] = {json_type_array, "list_type", "Input should be a valid list"},
    };
    if (!json_object_is_type(value, kinds[kind].type)) {
        add_error(errors, kinds[kind].code, location(field, index, member), kinds[kind].msg,
                  value, NULL);
        return NULL;
    }
    return value;
}

static void check_pattern(json_object *errors, json_object *value, const char *field,
                          const char *pattern, const char *regex)
{
    if (value == NULL || matches(regex, json_object_get_string(value)))
        return;
    char msg[160];
    snprintf(msg, sizeof msg, "String should match pattern '%s'", pattern);
    json_object *ctx = json_object_new_object();
    json_object_object_add(ctx, "pattern", json_object_new_string(pattern));
    add_error(errors, "string_pattern_mismatch", location(field, -1, NULL), msg, value, ctx);
}

static void check_mount_shapes(json_object *errors, json_object *mounts)
{
    size_t n = json_object_array_length(mounts);
    for (size_t i = 0; i < n; i++) {
        json_object *m = json_object_array_get_idx(mounts, i);
        if (!json_object_is_type(m, json_type_object)) {
            add_error(errors, "model_type", location("extra_mounts", (int)i, NULL),
                      "Input should be a valid dictionary or instance of ExtraMount", m, NULL);
            continue;
        }
        check_field(errors, m, "extra_mounts", (int)i, "host_path", FIELD_STRING, 1, 0);
        check_field(errors, m, "extra_mounts", (int)i, "container_path", FIELD_STRING, 1, 0);
        check_field(errors, m, "extra_mounts", (int)i, "read_only", FIELD_BOOL, 0, 0);
    }
}

static int supported_mount_path(const char *path)
{
    for (size_t i = 0; i < sizeof supported_mount_paths / sizeof supported_mount_paths[0]; i++) {
        if (strcmp(supported_mount_paths[i], path) == 0)
            return 1;
    }
    return 0;
}

/* The emulator has no state directory: a host path "outside DeerFlow
 * state" is one that climbs out with a ".." component. */
static int climbs_out(const char *path)
{
    for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2) {
        int starts = p == path || p[-1] == '/';
        int ends = p[2] == '\0' || p[2] == '/';
        if (starts && ends)
            return 1;
    }
    return 0;
}

/* The provisioner's own mount rules, after the shape is known good.
 * Returns 1 when they pass, else fills `reply` with 400. */
static int check_mount_rules(json_object *mounts, sbx_emu_reply *reply)
{
    size_t n = json_object_array_length(mounts);
    char detail[1024];
    if (n > MAX_EXTRA_MOUNTS) {
        snprintf(detail, sizeof detail, "Too many extra mounts; max is %d", MAX_EXTRA_MOUNTS);
        sbx_emu_reply_detail(reply, 400, detail);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        json_object *m = json_object_array_get_idx(mounts, i), *v = NULL;
        json_object_object_get_ex(m, "container_path", &v);
        const char *container = json_object_get_string(v);
        json_object_object_get_ex(m, "host_path", &v);
        const char *host = json_object_get_string(v);
        detail[0] = '\0';
        if (!supported_mount_path(container))
            snprintf(detail, sizeof detail, "Unsupported extra mount path: %s", container);
        else if (host[0] != '/')
            snprintf(detail, sizeof detail, "Extra mount host path must be absolute: %s", host);
        else if (climbs_out(host))
            snprintf(detail, sizeof detail, "Extra mount host path is outside DeerFlow state: %s",
                     host);
        for (size_t j = 0; detail[0] == '\0' && j < i; j++) {
            json_object *earlier = json_object_array_get_idx(mounts, j);
            json_object_object_get_ex(earlier, "container_path", &v);
            if (strcmp(json_object_get_string(v), container) == 0)
                snprintf(detail, sizeof detail, "Duplicate extra mount path: %s", container);
        }
        if (detail[0] != '\0') {
            sbx_emu_reply_detail(reply, 400, detail);
            return 0;
        }
    }
    return 1;
}

static void reply_errors(sbx_emu_reply *reply, json_object *errors)
{
    json_object *answer = json_object_new_object();
    json_object_object_add(answer, "detail", errors);
    sbx_emu_reply_json(reply, 422, answer);
}

static int parse_json(const char *body, size_t len, json_object **root, sbx_emu_reply *reply)
{
    size_t offset = 0;
    const char *why = NULL;
    *root = sbx_emu_json_parse(body, len, &offset, &why);
    if (why == NULL)
        return 1;
    json_object *errors = json_object_new_array();
    json_object *loc = json_object_new_array();
    json_object_array_add(loc, json_object_new_string("body"));
    json_object_array_add(loc, json_object_new_int((int)offset));
    json_object *ctx = json_object_new_object();
    json_object_object_add(ctx, "error", json_object_new_string(why));
    json_object *input = json_object_new_object();
    add_error(errors, "json_invalid", loc, "JSON decode error", input, ctx);
    json_object_put(input);
    reply_errors(reply, errors);
    return 0;
}

int sbx_emu_create_parse(const char *body, size_t len, sbx_emu_create_request *out,
                         sbx_emu_reply *reply)
{
    memset(out, 0, sizeof *out);
    json_object *root = NULL;
    if (!parse_json(body, len, &root, reply))
        return 0;
    json_object *errors = json_object_new_array();
    if (!json_object_is_type(root, json_type_object)) {
        add_error(errors, "model_attributes_type", location(NULL, -1, NULL),
                  "Input should be a valid dictionary or object to extract fields from",
                  root, NULL);
        json_object_put(root);
        reply_errors(reply, errors);
        return 0;
    }
    json_object *id = check_field(errors, root, "sandbox_id", -1, NULL, FIELD_STRING, 1, 0);
    json_object *thread = check_field(errors, root, "thread_id", -1, NULL, FIELD_STRING, 1, 1);
    json_object *user = check_field(errors, root, "user_id", -1, NULL, FIELD_STRING, 0, 0);
    json_object *required = check_field(errors, root, "required_mount_contract_version", -1,
                                        NULL, FIELD_INT, 0, 1);
    check_field(errors, root, "include_legacy_skills", -1, NULL, FIELD_BOOL, 0, 0);
    check_field(errors, root, "provision_lark_cli_runtime", -1, NULL, FIELD_BOOL, 0, 0);
    check_field(errors, root, "provision_lark_cli_broker", -1, NULL, FIELD_BOOL, 0, 0);
    json_object *mounts = check_field(errors, root, "extra_mounts", -1, NULL, FIELD_LIST, 0, 1);
    check_pattern(errors, thread, "thread_id", THREAD_ID_PATTERN, THREAD_ID_REGEX);
    check_pattern(errors, user, "user_id", USER_ID_PATTERN, USER_ID_REGEX);
    if (mounts != NULL)
        check_mount_shapes(errors, mounts);

    if (json_object_array_length(errors) > 0) {
        json_object_put(root);
        reply_errors(reply, errors);
        return 0;
    }
    json_object_put(errors);
    if (mounts != NULL && !check_mount_rules(mounts, reply)) {
        json_object_put(root);
        return 0;
    }
    out->root = root;
    out->sandbox_id = json_object_get_string(id);
    out->thread_id = thread != NULL ? json_object_get_string(thread) : NULL;
    out->user_id = user != NULL ? json_object_get_string(user) : "default";
    if (required != NULL) {
        out->has_required_version = 1;
        out->required_version = json_object_get_int(required);
    }
    return 1;
}

void sbx_emu_create_request_clear(sbx_emu_create_request *request)
{
    json_object_put(request->root);
    memset(request, 0, sizeof *request);
}
