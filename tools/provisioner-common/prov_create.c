/* Create-body validation.  The error entries copy pydantic 2's shapes
 * (type, loc, msg, input, ctx) as FastAPI sends them, in the model's field
 * order, because clients show or match them. */
#include <config.h>

#include "tools/provisioner-common/prov_create.h"

#include "tools/provisioner-common/prov_json.h"
#include "tools/provisioner-common/prov_json_strict.h"

#include <ctype.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

/* The patterns as the reference writes them in its messages, and as POSIX
 * extended regexes (where a backslash in brackets is a literal). */
#define THREAD_ID_PATTERN "^[A-Za-z0-9_-]{1,64}$"
#define THREAD_ID_REGEX THREAD_ID_PATTERN
#define USER_ID_PATTERN "^[A-Za-z0-9_\\-]+$"
#define USER_ID_REGEX "^[A-Za-z0-9_-]+$"

/* A pydantic error location; NULL when memory ran out. */
static json_object *location_in(const char *where, const char *field, int index,
                                const char *member)
{
    json_object *loc = json_object_new_array();
    int built = loc != NULL && prov_json_append(loc, json_object_new_string(where)) &&
                (field == NULL || prov_json_append(loc, json_object_new_string(field))) &&
                (index < 0 || prov_json_append(loc, json_object_new_int(index))) &&
                (member == NULL || prov_json_append(loc, json_object_new_string(member)));
    return prov_json_built(loc, built);
}

static json_object *location(const char *field, int index, const char *member)
{
    return location_in("body", field, index, member);
}

/* The errors of a 422 as they are found; `out_of_memory` once building one
 * failed (or the array could not be made): the answer is then the
 * out-of-memory one, never a 422 that misses an error. */
typedef struct error_list {
    json_object *array;
    int out_of_memory;
} error_list;

static error_list new_error_list(void)
{
    json_object *array = json_object_new_array();
    return (error_list){array, array == NULL};
}

/* Whether the request has errors to answer (or memory ran out finding them). */
static int has_errors(const error_list *errors)
{
    return errors->out_of_memory || json_object_array_length(errors->array) > 0;
}

/* Member "input": a new reference to `input` (NULL is JSON null). */
static int add_input(json_object *e, json_object *input)
{
    json_object *ref = json_object_get(input);
    if (json_object_object_add(e, "input", ref) == 0)
        return 1;
    json_object_put(ref);
    return 0;
}

/* Append one error; `loc` (NULL: its building failed) and `ctx` (NULL:
 * none) are taken, `input` is borrowed (a reference is taken). */
static void add_error(error_list *errors, const char *type, json_object *loc,
                      const char *msg, json_object *input, json_object *ctx)
{
    json_object *e = errors->out_of_memory ? NULL : json_object_new_object();
    int built = e != NULL && prov_json_add_string(e, "type", type);
    built = built ? prov_json_add(e, "loc", loc) : (json_object_put(loc), 0);
    built = built && prov_json_add_string(e, "msg", msg) && add_input(e, input);
    if (ctx != NULL)
        built = built ? prov_json_add(e, "ctx", ctx) : (json_object_put(ctx), 0);
    if (!prov_json_append(errors->array, prov_json_built(e, built)))
        errors->out_of_memory = 1;
}

/* The regexes ids are checked with, compiled once per process: compiling
 * one cost more than all the rest of a create's handling (a benchmark of
 * concurrent creates spent most of the server's time in regcomp).  Never
 * freed.  regexec on one regex_t from several threads is safe in glibc only
 * through a lock of its own that ThreadSanitizer cannot see (it reports the
 * DFA's state cache written by two workers), so ours serializes the call:
 * a match takes microseconds against a create's milliseconds. */
typedef enum id_regex { RE_SANDBOX_ID, RE_THREAD_ID, RE_STRICT_USER_ID, RE_USER_ID, RE_COUNT } id_regex;
static const char *const regex_text[RE_COUNT] = {
    [RE_SANDBOX_ID] = PROV_SANDBOX_ID_PATTERN,
    [RE_THREAD_ID] = THREAD_ID_REGEX,
    [RE_STRICT_USER_ID] = PROV_STRICT_USER_ID_PATTERN,
    [RE_USER_ID] = USER_ID_REGEX,
};
static regex_t regex_compiled[RE_COUNT];
static int regex_ready[RE_COUNT];
static pthread_once_t regex_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t regex_lock = PTHREAD_MUTEX_INITIALIZER;

static void compile_regexes(void)
{
    for (int i = 0; i < RE_COUNT; i++)
        regex_ready[i] = regcomp(&regex_compiled[i], regex_text[i], REG_EXTENDED | REG_NOSUB) == 0;
}

static int matches(id_regex which, const char *text)
{
    pthread_once(&regex_once, compile_regexes);
    if (!regex_ready[which])
        return 0;
    pthread_mutex_lock(&regex_lock);
    int matched = regexec(&regex_compiled[which], text, 0, NULL, 0) == 0;
    pthread_mutex_unlock(&regex_lock);
    return matched;
}

typedef enum field_kind { FIELD_STRING, FIELD_INT, FIELD_BOOL, FIELD_LIST } field_kind;

/* What a field must be: its kind, and whether it must be given
 * (`required`) and may be JSON null (`nullable`). */
typedef struct field_rule {
    field_kind kind;
    int required;
    int nullable;
} field_rule;

/* A field of the body: `field`, or member `member` of its item `index`
 * (-1: `field` itself). */
typedef struct field_at {
    const char *field;
    int index;
    const char *member;
} field_at;

/* A top-level field of the body. */
#define TOP_FIELD(name) ((field_at){(name), -1, NULL})

/* Type-check one member of `parent`.  Returns the value when present and
 * well-typed, else NULL (an error is added when it is wrong, or missing
 * and required).  JSON null passes when nullable. */
static json_object *check_field(error_list *errors, json_object *parent, field_at at,
                                field_rule rule)
{
    const char *key = at.member != NULL ? at.member : at.field;
    json_object *value = NULL;
    if (!json_object_object_get_ex(parent, key, &value)) {
        if (rule.required)
            add_error(errors, "missing", location(at.field, at.index, at.member), "Field required",
                      parent, NULL);
        return NULL;
    }
    if (value == NULL && rule.nullable)
        return NULL;
    static const struct { json_type type; const char *code, *msg; } kinds[] = {
        [FIELD_STRING] = {json_type_string, "string_type", "Input should be a valid string"},
        [FIELD_INT] = {json_type_int, "int_type", "Input should be a valid integer"},
        [FIELD_BOOL] = {json_type_boolean, "bool_type", "Input should be a valid boolean"},
        [FIELD_LIST] = {json_type_array, "list_type", "Input should be a valid list"},
    };
    if (!json_object_is_type(value, kinds[rule.kind].type)) {
        add_error(errors, kinds[rule.kind].code, location(at.field, at.index, at.member),
                  kinds[rule.kind].msg, value, NULL);
        return NULL;
    }
    return value;
}

/* A context object {key: value}, taking `value`; NULL when memory ran out. */
static json_object *context(const char *key, json_object *value)
{
    json_object *ctx = json_object_new_object();
    if (ctx == NULL) {
        json_object_put(value);
        return NULL;
    }
    return prov_json_built(ctx, prov_json_add(ctx, key, value));
}

/* Append an error whose context is required: a NULL `ctx` is out of memory. */
static void add_error_with_context(error_list *errors, const char *type, json_object *loc,
                                   const char *msg, json_object *input, json_object *ctx)
{
    if (ctx == NULL) {
        json_object_put(loc);
        errors->out_of_memory = 1;
        return;
    }
    add_error(errors, type, loc, msg, input, ctx);
}

static void add_pattern_error(error_list *errors, json_object *loc, const char *pattern,
                              json_object *value)
{
    char msg[160];
    snprintf(msg, sizeof msg, "String should match pattern '%s'", pattern);
    add_error_with_context(errors, "string_pattern_mismatch", loc, msg, value,
                           context("pattern", json_object_new_string(pattern)));
}

static void check_pattern(error_list *errors, json_object *value, const char *field,
                          const char *pattern, id_regex regex)
{
    if (value == NULL || matches(regex, json_object_get_string(value)))
        return;
    add_pattern_error(errors, location(field, -1, NULL), pattern, value);
}

#define MODEL_ATTRIBUTES_MSG "Input should be a valid dictionary or object to extract fields from"

static void check_mount_shapes(error_list *errors, json_object *mounts)
{
    size_t n = json_object_array_length(mounts);
    for (size_t i = 0; i < n; i++) {
        json_object *m = json_object_array_get_idx(mounts, i);
        if (!json_object_is_type(m, json_type_object)) {
            add_error(errors, "model_attributes_type", location("extra_mounts", (int)i, NULL),
                      MODEL_ATTRIBUTES_MSG, m, NULL);
            continue;
        }
        check_field(errors, m, (field_at){"extra_mounts", (int)i, "host_path"},
                    (field_rule){.kind = FIELD_STRING, .required = 1});
        check_field(errors, m, (field_at){"extra_mounts", (int)i, "container_path"},
                    (field_rule){.kind = FIELD_STRING, .required = 1});
        check_field(errors, m, (field_at){"extra_mounts", (int)i, "read_only"},
                    (field_rule){.kind = FIELD_BOOL});
    }
}

/* required_mount_contract_version has ge=0. */
static void check_not_negative(error_list *errors, json_object *value, const char *field)
{
    if (value == NULL || json_object_get_int64(value) >= 0)
        return;
    add_error_with_context(errors, "greater_than_equal", location(field, -1, NULL),
                           "Input should be greater than or equal to 0", value,
                           context("ge", json_object_new_int(0)));
}

/* The 422 {"detail": ERRORS} (the list taken), or the out-of-memory
 * answer when building it failed. */
static void reply_errors(prov_reply *reply, error_list *errors)
{
    json_object *answer = errors->out_of_memory ? NULL : json_object_new_object();
    int built = answer != NULL && prov_json_add(answer, "detail", errors->array);
    if (answer == NULL)
        json_object_put(errors->array);
    errors->array = NULL;
    prov_reply_json(reply, 422, prov_json_built(answer, built));
}

/* One error at loc ["body"] (the body as a whole) and the 422 answer. */
static void reply_body_error(prov_reply *reply, const char *type, const char *msg,
                             json_object *input)
{
    error_list errors = new_error_list();
    add_error(&errors, type, location(NULL, -1, NULL), msg, input, NULL);
    reply_errors(reply, &errors);
}

/* FastAPI reads the body as JSON when there is no Content-Type, or when it
 * is application/json or application/ANYTHING+json (parameters ignored). */
static int json_content_type(const char *content_type)
{
    if (content_type == NULL)
        return 1;
    char type[128];
    size_t n = 0;
    for (const char *p = content_type; *p != '\0' && *p != ';' && n + 1 < sizeof type; p++) {
        if (!isspace((unsigned char)*p))
            type[n++] = (char)tolower((unsigned char)*p);
    }
    type[n] = '\0';
    static const char app[] = "application/", json_suffix[] = "+json";
    if (strncmp(type, app, strlen(app)) != 0)
        return 0;
    const char *subtype = type + strlen(app);
    size_t sub = strlen(subtype);
    return strcmp(subtype, "json") == 0 ||
           (sub >= strlen(json_suffix) &&
            strcmp(subtype + sub - strlen(json_suffix), json_suffix) == 0);
}

/* The 422 of a body that is not JSON: json_invalid at byte `offset`,
 * `why` in its context. */
static void reply_json_invalid(prov_reply *reply, size_t offset, const char *why)
{
    error_list errors = new_error_list();
    json_object *input = json_object_new_object();
    if (input == NULL)
        errors.out_of_memory = 1;
    add_error_with_context(&errors, "json_invalid", location_in("body", NULL, (int)offset, NULL),
                           "JSON decode error", input,
                           context("error", json_object_new_string(why)));
    json_object_put(input);
    reply_errors(reply, &errors);
}

/* The body as FastAPI hands it to the model: the parsed JSON (*root; NULL
 * for JSON null), or 0 with the 422 answer in `reply`.  Only strict JSON
 * reaches json-c's tree (prov_json_strict.h); a body json-c refuses as
 * well is answered with json-c's words, as before that check. */
static int read_body(const char *body, size_t len, const char *content_type,
                     json_object **root, prov_reply *reply)
{
    *root = NULL;
    if (len == 0) {
        reply_body_error(reply, "missing", "Field required", NULL);
        return 0;
    }
    if (!json_content_type(content_type)) {
        /* Not JSON to FastAPI: the model gets the raw bytes. */
        json_object *raw = json_object_new_string_len(body, (int)len);
        if (raw == NULL)
            prov_reply_out_of_memory(reply);
        else
            reply_body_error(reply, "model_attributes_type", MODEL_ATTRIBUTES_MSG, raw);
        json_object_put(raw);
        return 0;
    }
    size_t strict_offset = 0;
    char strict_why[160];
    prov_strict_result strict =
        prov_json_strict_check(body, len, &strict_offset, strict_why, sizeof strict_why);
    size_t offset = 0;
    const char *why = NULL;
    *root = strict == PROV_STRICT_OUT_OF_MEMORY ? NULL
                                                    : prov_json_parse(body, len, &offset, &why);
    if (strict == PROV_STRICT_OUT_OF_MEMORY || why == prov_json_out_of_memory) {
        prov_reply_out_of_memory(reply);
        return 0;
    }
    if (why != NULL || strict == PROV_STRICT_REFUSED) {
        json_object_put(*root);
        *root = NULL;
        if (why != NULL)
            reply_json_invalid(reply, offset, why);
        else
            reply_json_invalid(reply, strict_offset, strict_why);
        return 0;
    }
    if (*root == NULL) {
        reply_body_error(reply, "missing", "Field required", NULL);
        return 0;
    }
    return 1;
}

int prov_path_id_valid(const char *id, prov_reply *reply)
{
    if (matches(RE_SANDBOX_ID, id))
        return 1;
    error_list errors = new_error_list();
    json_object *input = json_object_new_string(id);
    if (input == NULL)
        errors.out_of_memory = 1;
    add_pattern_error(&errors, location_in("path", "sandbox_id", -1, NULL),
                      PROV_SANDBOX_ID_PATTERN, input);
    json_object_put(input);
    reply_errors(reply, &errors);
    return 0;
}

int prov_create_parse(const char *body, size_t len, const char *content_type,
                          int strict_ids, prov_create_request *out,
                          prov_reply *reply)
{
    memset(out, 0, sizeof *out);
    json_object *root = NULL;
    if (!read_body(body, len, content_type, &root, reply))
        return 0;
    if (!json_object_is_type(root, json_type_object)) {
        reply_body_error(reply, "model_attributes_type", MODEL_ATTRIBUTES_MSG, root);
        json_object_put(root);
        return 0;
    }
    /* Field by field in the model's order, as pydantic lists its errors. */
    error_list list = new_error_list();
    error_list *errors = &list;
    json_object *id = check_field(errors, root, TOP_FIELD("sandbox_id"),
                                  (field_rule){.kind = FIELD_STRING, .required = 1});
    if (strict_ids)
        check_pattern(errors, id, "sandbox_id", PROV_SANDBOX_ID_PATTERN, RE_SANDBOX_ID);
    json_object *thread = check_field(errors, root, TOP_FIELD("thread_id"),
                                      (field_rule){.kind = FIELD_STRING, .nullable = 1});
    check_pattern(errors, thread, "thread_id", THREAD_ID_PATTERN, RE_THREAD_ID);
    json_object *user =
        check_field(errors, root, TOP_FIELD("user_id"), (field_rule){.kind = FIELD_STRING});
    if (strict_ids)
        check_pattern(errors, user, "user_id", PROV_STRICT_USER_ID_PATTERN,
                      RE_STRICT_USER_ID);
    else
        check_pattern(errors, user, "user_id", USER_ID_PATTERN, RE_USER_ID);
    json_object *required = check_field(errors, root, TOP_FIELD("required_mount_contract_version"),
                                        (field_rule){.kind = FIELD_INT, .nullable = 1});
    check_not_negative(errors, required, "required_mount_contract_version");
    json_object *mounts =
        check_field(errors, root, TOP_FIELD("extra_mounts"), (field_rule){.kind = FIELD_LIST});
    if (mounts != NULL)
        check_mount_shapes(errors, mounts);
    check_field(errors, root, TOP_FIELD("include_legacy_skills"), (field_rule){.kind = FIELD_BOOL});
    check_field(errors, root, TOP_FIELD("provision_lark_cli_runtime"),
                (field_rule){.kind = FIELD_BOOL});
    check_field(errors, root, TOP_FIELD("provision_lark_cli_broker"),
                (field_rule){.kind = FIELD_BOOL});

    if (has_errors(errors)) {
        json_object_put(root);
        reply_errors(reply, errors);
        return 0;
    }
    json_object_put(list.array);
    out->root = root;
    out->sandbox_id = json_object_get_string(id);
    out->thread_id = thread != NULL ? json_object_get_string(thread) : NULL;
    out->user_id = user != NULL ? json_object_get_string(user) : "default";
    out->extra_mounts = mounts;
    if (required != NULL) {
        out->has_required_version = 1;
        out->required_version = json_object_get_int64(required);
    }
    return 1;
}

void prov_create_request_clear(prov_create_request *request)
{
    json_object_put(request->root);
    memset(request, 0, sizeof *request);
}
