/* Decoders of provisioner answers (see remote_decode.h). */
#include <config.h>

#include "plugin/remote/remote_decode.h"

#include "common/json_fields.h"
#include "common/sandbox_records.h"
#include "common/utf8.h"
#include "plugin/remote/remote_sandbox_rules.h"

#include <sbx/backend_support.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Classify a sandbox object's members (remote_sandbox_rules.h) walking them once,
 * instead of one hash lookup per field: a 10k list has 60k fields.  The
 * strings of f->text are borrowed from `object`. */
static remote_problem read_members(struct json_object *object, remote_fields *f)
{
    if (object == NULL || !json_object_is_type(object, json_type_object))
        return REMOTE_NOT_OBJECT;
    struct json_object *value[REMOTE_FIELD_COUNT] = { NULL };
    json_object_iter member;
    json_object_object_foreachC(object, member) {
        int i = remote_field_index(member.key, strlen(member.key));
        if (i < REMOTE_FIELD_COUNT)
            value[i] = member.val;
    }
    for (int i = REMOTE_FIELD_ID; i < REMOTE_FIELD_VERSION; i++) {
        f->text[i] = NULL;
        f->state[i] = common_json_string_value(value[i], &f->text[i]);
    }
    f->version = SBX_CONTRACT_NONE;
    f->state[REMOTE_FIELD_VERSION] =
        common_json_int_value(value[REMOTE_FIELD_VERSION], &f->version);
    return remote_check_fields(f);
}

sbx_status remote_read_sandbox(struct json_object *object, remote_fields *f, sbx_error *err)
{
    remote_problem problem = read_members(object, f);
    return problem != 0 ? remote_problem_error(problem, err) : SBX_OK;
}

sbx_status remote_fields_fill(const remote_fields *f, sbx_sandbox *out, sbx_error *err)
{
    common_sandbox_fields fields = { f->text[REMOTE_FIELD_ID], f->text[REMOTE_FIELD_URL],
                                     f->text[REMOTE_FIELD_USER], f->text[REMOTE_FIELD_THREAD],
                                     f->text[REMOTE_FIELD_STATUS], f->version };
    return common_sandbox_record_fill(out, &fields, err);
}

sbx_status remote_decode_sandbox(struct json_object *object, sbx_sandbox *out,
                                 sbx_error *err)
{
    memset(out, 0, sizeof *out);
    out->mount_contract_version = SBX_CONTRACT_NONE;
    remote_fields f;
    sbx_status st = remote_read_sandbox(object, &f, err);
    return st != SBX_OK ? st : remote_fields_fill(&f, out, err);
}

sbx_status remote_decode_list_each(const char *body, size_t len, const remote_warner *warn,
                                   const remote_list_visitor *visit, sbx_error *err)
{
    int too_deep;
    struct json_object *root = common_json_parse_ex(body, len, &too_deep);
    if (root == NULL)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "list answer is %s",
                                     too_deep ? COMMON_JSON_TOO_DEEP : "not JSON");
    struct json_object *items = NULL;
    if (!json_object_is_type(root, json_type_object)) {
        remote_warn_not_object(warn);
        json_object_put(root);
        return SBX_OK;
    }
    if (!json_object_object_get_ex(root, "sandboxes", &items) ||
        !json_object_is_type(items, json_type_array)) {
        remote_warn_not_array(warn);
        json_object_put(root);
        return SBX_OK;
    }
    size_t n = json_object_array_length(items);
    sbx_status st = visit->start(visit->ctx, n);
    for (size_t i = 0; i < n && st == SBX_OK; i++) {
        sbx_error entry_err;
        sbx_backend_error_clear(&entry_err);
        sbx_status taken = visit->entry(visit->ctx, json_object_array_get_idx(items, i),
                                        &entry_err);
        if (taken == SBX_ERR_INTERNAL)
            st = taken;
        else if (taken != SBX_OK)
            remote_warn_skipped(warn, i, entry_err.message);
    }
    json_object_put(root);
    if (st != SBX_OK)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    return SBX_OK;
}

/* remote_decode_list's visitor: the sandboxes into one array. */
typedef struct sandbox_array {
    sbx_sandbox *items;
    size_t kept;
} sandbox_array;

static sbx_status sandbox_array_start(void *ctx, size_t n)
{
    sandbox_array *list = ctx;
    list->items = n > 0 ? calloc(n, sizeof *list->items) : NULL;
    return n > 0 && list->items == NULL ? SBX_ERR_INTERNAL : SBX_OK;
}

static sbx_status sandbox_array_entry(void *ctx, struct json_object *entry, sbx_error *err)
{
    sandbox_array *list = ctx;
    sbx_status st = remote_decode_sandbox(entry, &list->items[list->kept], err);
    if (st == SBX_OK)
        list->kept++;
    return st;
}

sbx_status remote_decode_list(const char *body, size_t len, const remote_warner *warn,
                              sbx_sandbox **out, size_t *count, sbx_error *err)
{
    *out = NULL;
    *count = 0;
    sandbox_array list = {NULL, 0};
    const remote_list_visitor visit = {sandbox_array_start, sandbox_array_entry, &list};
    sbx_status st = remote_decode_list_each(body, len, warn, &visit, err);
    if (st != SBX_OK || list.kept == 0) {
        common_sandbox_records_free(list.items, list.kept);
        return st;
    }
    *out = list.items;
    *count = list.kept;
    return SBX_OK;
}

static sbx_status dup_field(struct json_object *object, const char *key, char **slot)
{
    const char *value = NULL;
    if (common_json_get_string(object, key, &value) != COMMON_JSON_OK)
        return SBX_OK;
    *slot = strdup(value);
    return *slot == NULL ? SBX_ERR_INTERNAL : SBX_OK;
}

/* A "found" answer: a non-empty incarnation_id and a well-typed identity.
 * The address may be missing (null or absent): the Pod is there but its
 * Service is gone, a half-deleted sandbox that must still be adoptable or
 * removable by its incarnation.  *addressed says whether it has one. */
static const char *check_found(struct json_object *root, int *addressed)
{
    if (!common_json_has_nonempty_string(root, "incarnation_id"))
        return "a found answer lacks a non-empty string incarnation_id";
    if (!common_json_has_nonempty_string(root, "user_id"))
        return "a found answer lacks a non-empty string user_id";
    const char *text = NULL;
    common_json_field f = common_json_get_string(root, "thread_id", &text);
    if (f != COMMON_JSON_OK && f != COMMON_JSON_NULL)
        return "a found answer's thread_id is neither a string nor null";
    int version = 0;
    if (common_json_get_int(root, "mount_contract_version", &version) != COMMON_JSON_OK ||
        version < 0)
        return "a found answer's mount_contract_version is not a non-negative integer";
    f = common_json_get_string(root, "sandbox_url", &text);
    if (f == COMMON_JSON_ABSENT || f == COMMON_JSON_NULL)
        *addressed = 0;
    else if (f == COMMON_JSON_OK && text[0] != '\0')
        *addressed = 1;
    else
        return "a found answer's sandbox_url is neither a non-empty string nor null";
    return NULL;
}

sbx_status remote_decode_reconciliation(const char *body, size_t len,
                                        const char *sandbox_id,
                                        sbx_reconciliation *out, const char **why,
                                        sbx_error *err)
{
    memset(out, 0, sizeof *out);
    out->status = SBX_RECONCILE_UNKNOWN;
    *why = NULL;
    int too_deep;
    struct json_object *root = common_json_parse_ex(body, len, &too_deep);
    const char *status = NULL, *answered_id = NULL;
    int addressed = 0;
    if (too_deep)
        *why = "the answer is " COMMON_JSON_TOO_DEEP;
    else if (root == NULL || !json_object_is_type(root, json_type_object))
        *why = "the answer is not a JSON object";
    else if (common_json_get_string(root, "sandbox_id", &answered_id) != COMMON_JSON_OK ||
             strcmp(answered_id, sandbox_id) != 0)
        *why = "the answer is about another sandbox_id";
    else if (common_json_get_string(root, "status", &status) != COMMON_JSON_OK)
        *why = "the answer has no string status";
    else if (!common_json_has_nonempty_string(root, "backend_namespace"))
        *why = "the answer lacks a non-empty string backend_namespace";
    else if (strcmp(status, "absent") == 0)
        out->status = SBX_RECONCILE_ABSENT;
    else if (strcmp(status, "found") != 0)
        *why = "the answer's status is neither found nor absent";
    else if ((*why = check_found(root, &addressed)) == NULL)
        out->status = SBX_RECONCILE_FOUND;

    sbx_status st = SBX_OK;
    if (out->status == SBX_RECONCILE_FOUND) {
        sbx_sandbox sb, record;
        sbx_error cause;
        if (addressed && (st = remote_decode_sandbox(root, &sb, &cause)) == SBX_OK) {
            /* The answer's "status" is the reconciliation's word, not the
             * Pod phase a record's status holds: the record has none. */
            common_sandbox_fields fields = { sb.sandbox_id, sb.sandbox_url, sb.user_id,
                                             sb.thread_id, NULL, sb.mount_contract_version };
            st = common_sandbox_record_fill(&record, &fields, err);
            common_sandbox_record_clear(&sb);
            if (st == SBX_OK)
                st = common_sandbox_record_box(&record, &out->sandbox, err);
        }
        if (st == SBX_ERR_PROTOCOL) {
            out->status = SBX_RECONCILE_UNKNOWN;
            *why = "a found answer's sandbox fields are ill-typed or not UTF-8 text";
            st = SBX_OK;
        } else if (st == SBX_OK) {
            st = dup_field(root, "incarnation_id", &out->incarnation_id);
        }
    }
    if (st == SBX_OK && out->status != SBX_RECONCILE_UNKNOWN)
        st = dup_field(root, "backend_namespace", &out->backend_namespace);
    json_object_put(root);
    if (st != SBX_OK) {
        common_reconciliation_clear(out);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    return SBX_OK;
}

sbx_status remote_decode_capabilities(const char *body, size_t len, int *version,
                                      sbx_error *err)
{
    int too_deep;
    struct json_object *root = common_json_parse_ex(body, len, &too_deep);
    if (root == NULL || !json_object_is_type(root, json_type_object)) {
        json_object_put(root);
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "capabilities answer is %s",
                                     too_deep ? COMMON_JSON_TOO_DEEP : "not a JSON object");
    }
    int v = 0;
    common_json_field f = common_json_get_int(root, "mount_contract_version", &v);
    json_object_put(root);
    if (f == COMMON_JSON_ABSENT) {
        *version = 0;
        return SBX_OK;
    }
    if (f != COMMON_JSON_OK || v < 0)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "capabilities field mount_contract_version is not a "
                                     "non-negative integer");
    *version = v;
    return SBX_OK;
}

/* Append printable text to buf, control characters as spaces.  Text that
 * does not fit ends buf in SBX_CUT_MARK (at a character boundary), and
 * nothing is appended after it. */
static void append_text(char *buf, size_t cap, size_t *used, const char *text, size_t len)
{
    size_t i = 0;
    for (; i < len && *used + 1 < cap; i++) {
        unsigned char ch = (unsigned char)text[i];
        buf[(*used)++] = (ch < 0x20 || ch == 0x7F) ? ' ' : (char)ch;
    }
    buf[*used] = '\0';
    if (i == len || cap <= sizeof SBX_CUT_MARK || *used < sizeof SBX_CUT_MARK - 1)
        return;
    size_t end = common_utf8_cut(buf, *used, *used - (sizeof SBX_CUT_MARK - 1));
    memcpy(buf + end, SBX_CUT_MARK, sizeof SBX_CUT_MARK);
    *used = cap - 1;   /* full: later parts are not appended after the mark */
}

/* `text` may be NULL: json-c gives NULL for a JSON null, which a peer may
 * put anywhere (fuzzing found one in a validation "loc"). */
static void append_str(char *buf, size_t cap, size_t *used, const char *text)
{
    if (text == NULL)
        text = "null";
    append_text(buf, cap, used, text, strlen(text));
}

/* A FastAPI validation list: "body.thread_id: String should match ..." */
static void describe_validation(struct json_object *list, char *buf, size_t cap,
                                size_t *used)
{
    struct json_object *first = json_object_array_get_idx(list, 0);
    struct json_object *loc = NULL;
    const char *msg = NULL;
    if (json_object_object_get_ex(first, "loc", &loc) &&
        json_object_is_type(loc, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(loc); i++) {
            if (i > 0)
                append_str(buf, cap, used, ".");
            append_str(buf, cap, used, json_object_get_string(json_object_array_get_idx(loc, i)));
        }
        append_str(buf, cap, used, ": ");
    }
    if (common_json_get_string(first, "msg", &msg) == COMMON_JSON_OK)
        append_str(buf, cap, used, msg);
    else
        append_str(buf, cap, used, json_object_to_json_string_ext(first, JSON_C_TO_STRING_PLAIN));
    size_t more = json_object_array_length(list) - 1;
    if (more > 0) {
        char tail[48];
        snprintf(tail, sizeof tail, " (and %zu more)", more);
        append_str(buf, cap, used, tail);
    }
}

void remote_detail_text(const char *body, size_t len, char *buf, size_t cap)
{
    size_t used = 0;
    if (cap == 0)
        return;
    buf[0] = '\0';
    struct json_object *root = common_json_parse(body, len);
    struct json_object *detail = NULL;
    if (root != NULL && json_object_is_type(root, json_type_object) &&
        json_object_object_get_ex(root, "detail", &detail) && detail != NULL) {
        if (json_object_is_type(detail, json_type_string))
            append_str(buf, cap, &used, json_object_get_string(detail));
        else if (json_object_is_type(detail, json_type_array) &&
                 json_object_array_length(detail) > 0)
            describe_validation(detail, buf, cap, &used);
        else
            append_str(buf, cap, &used,
                       json_object_to_json_string_ext(detail, JSON_C_TO_STRING_PLAIN));
    } else if (body != NULL) {
        while (len > 0 && (body[len - 1] == '\n' || body[len - 1] == '\r' ||
                           body[len - 1] == ' '))
            len--;
        append_text(buf, cap, &used, body, len);
    }
    json_object_put(root);
}
