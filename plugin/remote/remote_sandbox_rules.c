/* The rules of a sandbox object and the list warnings (see remote_sandbox_rules.h). */
#include <config.h>

#include "plugin/remote/remote_sandbox_rules.h"

#include <sbx/backend_support.h>

#include <stdio.h>
#include <string.h>

static const char *const field_names[REMOTE_FIELD_COUNT] = {
    "sandbox_id", "sandbox_url", "user_id", "thread_id", "status", "incarnation_id",
    "mount_contract_version"
};

int remote_field_index(const char *key, size_t key_len)
{
    /* The first bytes pick the one candidate worth a comparison: a 10k list
     * has 60k members. */
    int i;
    if (key_len == 0 || key_len > REMOTE_FIELD_NAME_MAX)
        return REMOTE_FIELD_COUNT;
    switch (key[0]) {
    case 's':
        i = key_len > 8 && key[1] == 'a' && key[8] == 'u' ? REMOTE_FIELD_URL
            : key_len > 1 && key[1] == 't' ? REMOTE_FIELD_STATUS : REMOTE_FIELD_ID;
        break;
    case 'u': i = REMOTE_FIELD_USER; break;
    case 't': i = REMOTE_FIELD_THREAD; break;
    case 'i': i = REMOTE_FIELD_INCARNATION; break;
    case 'm': i = REMOTE_FIELD_VERSION; break;
    default: return REMOTE_FIELD_COUNT;
    }
    return strlen(field_names[i]) == key_len && memcmp(key, field_names[i], key_len) == 0
               ? i : REMOTE_FIELD_COUNT;
}

/* A problem is a kind (high bits) and the field it names (low 3 bits). */
enum { LACKS = 0x10, BAD_TEXT = 0x18, NOT_INTEGER = 0x20, NOT_STRING = 0x28 };

remote_problem remote_check_fields(const remote_fields *f)
{
    for (int i = REMOTE_FIELD_ID; i <= REMOTE_FIELD_URL; i++) {
        if (f->state[i] == COMMON_JSON_BAD_TEXT)
            return (remote_problem)(BAD_TEXT | i);
        if (f->state[i] != COMMON_JSON_OK || f->text[i][0] == '\0')
            return (remote_problem)(LACKS | i);
    }
    /* An optional member that is null is absent: the real provisioner sends
     * user_id, thread_id and mount_contract_version as null in list entries. */
    common_json_field v = f->state[REMOTE_FIELD_VERSION];
    if (v != COMMON_JSON_ABSENT && v != COMMON_JSON_NULL && (v != COMMON_JSON_OK || f->version < 0))
        return (remote_problem)(NOT_INTEGER | REMOTE_FIELD_VERSION);
    for (int i = REMOTE_FIELD_USER; i <= REMOTE_FIELD_STATUS; i++) {
        if (f->state[i] == COMMON_JSON_BAD_TEXT)
            return (remote_problem)(BAD_TEXT | i);
        if (f->state[i] == COMMON_JSON_WRONG_TYPE)
            return (remote_problem)(NOT_STRING | i);
    }
    return 0;
}

sbx_status remote_problem_error(remote_problem problem, sbx_error *err)
{
    const char *field = field_names[(problem & 7) % REMOTE_FIELD_COUNT];
    switch (problem & ~7) {
    case LACKS:
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "sandbox answer lacks a non-empty string %s", field);
    case BAD_TEXT:
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "sandbox field %s holds a NUL byte or invalid UTF-8", field);
    case NOT_INTEGER:
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "sandbox field %s is not a non-negative integer", field);
    case NOT_STRING:
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "sandbox field %s is not a string", field);
    default:
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "sandbox answer is not a JSON object");
    }
}

void remote_warn_not_object(const remote_warner *w)
{
    if (w != NULL && w->fn != NULL)
        w->fn(w->ctx, "list answer is not a JSON object; no sandboxes listed");
}

void remote_warn_not_array(const remote_warner *w)
{
    if (w != NULL && w->fn != NULL)
        w->fn(w->ctx, "list answer's sandboxes is not an array; no sandboxes listed");
}

void remote_warn_skipped(const remote_warner *w, size_t index, const char *why)
{
    if (w == NULL || w->fn == NULL)
        return;
    char line[SBX_ERROR_MESSAGE_MAX + 64];
    snprintf(line, sizeof line, "skipping list entry #%zu: %s", index, why);
    w->fn(w->ctx, line);
}
