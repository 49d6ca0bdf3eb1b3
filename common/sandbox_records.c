/* Sandbox records as backends return them (see sandbox_records.h). */
#include <config.h>

#include "common/sandbox_records.h"

#include "common/sandbox_ids.h"

#include <sbx/backend_support.h>

#include <stdlib.h>
#include <string.h>

void common_sandbox_record_clear(sbx_sandbox *s)
{
    free(s->sandbox_id); /* the one allocation holding every string */
    memset(s, 0, sizeof *s);
    s->mount_contract_version = SBX_CONTRACT_NONE;
}

/* Copy `src` (NULL: none) to *at and point *slot at the copy. */
static void place_string(char **slot, char **at, const char *src, size_t len)
{
    if (src == NULL)
        return;
    memcpy(*at, src, len + 1);
    *slot = *at;
    *at += len + 1;
}

sbx_status common_sandbox_record_fill(sbx_sandbox *out, const common_sandbox_fields *fields,
                                      sbx_error *err)
{
    const char *sandbox_id = fields->sandbox_id, *sandbox_url = fields->sandbox_url;
    const char *user_id = fields->user_id, *thread_id = fields->thread_id;
    const char *status = fields->status;
    memset(out, 0, sizeof *out);
    out->mount_contract_version = SBX_CONTRACT_NONE;
    if (sandbox_id == NULL || sandbox_url == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "sandbox record without id or url");
    size_t id_len = strlen(sandbox_id), url_len = strlen(sandbox_url);
    size_t user_len = user_id != NULL ? strlen(user_id) : 0;
    size_t thread_len = thread_id != NULL ? strlen(thread_id) : 0;
    size_t status_len = status != NULL ? strlen(status) : 0;
    /* Five lengths of strings that exist in memory cannot overflow this. */
    char *at = malloc(id_len + url_len + user_len + thread_len + status_len + 5);
    if (at == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    place_string(&out->sandbox_id, &at, sandbox_id, id_len); /* first: the block's start */
    place_string(&out->sandbox_url, &at, sandbox_url, url_len);
    place_string(&out->user_id, &at, user_id, user_len);
    place_string(&out->thread_id, &at, thread_id, thread_len);
    place_string(&out->status, &at, status, status_len);
    out->mount_contract_version = fields->mount_contract_version;
    return SBX_OK;
}

void common_sandbox_records_free(sbx_sandbox *sandboxes, size_t count)
{
    if (sandboxes == NULL)
        return;
    for (size_t i = 0; i < count; i++)
        common_sandbox_record_clear(&sandboxes[i]);
    free(sandboxes);
}

sbx_status common_sandbox_record_box(sbx_sandbox *record, sbx_sandbox **out, sbx_error *err)
{
    *out = malloc(sizeof **out);
    if (*out == NULL) {
        common_sandbox_record_clear(record);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    **out = *record;
    memset(record, 0, sizeof *record);
    record->mount_contract_version = SBX_CONTRACT_NONE;
    return SBX_OK;
}

void common_reconciliation_clear(sbx_reconciliation *result)
{
    if (result == NULL)
        return;
    common_sandbox_records_free(result->sandbox, result->sandbox != NULL ? 1 : 0);
    free(result->backend_namespace);
    free(result->incarnation_id);
    memset(result, 0, sizeof *result);
    result->status = SBX_RECONCILE_UNKNOWN;
}

sbx_status common_reconcile_start(sbx_reconciliation *out, const char *sandbox_id,
                                  sbx_error *err)
{
    memset(out, 0, sizeof *out);
    out->status = SBX_RECONCILE_UNKNOWN;
    return common_check_sandbox_id(sandbox_id, err);
}

sbx_sandbox *common_sandbox_list_append(common_sandbox_list *list, sbx_error *err)
{
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? list->capacity * 2 : 8;
        sbx_sandbox *grown = realloc(list->items, cap * sizeof *grown);
        if (grown == NULL) {
            sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
            return NULL;
        }
        list->items = grown;
        list->capacity = cap;
    }
    sbx_sandbox *s = &list->items[list->count++];
    memset(s, 0, sizeof *s);
    s->mount_contract_version = SBX_CONTRACT_NONE;
    return s;
}

void common_sandbox_list_drop_last(common_sandbox_list *list)
{
    if (list->count > 0)
        common_sandbox_record_clear(&list->items[--list->count]);
}

sbx_status common_sandbox_list_finish(common_sandbox_list *list, sbx_status st,
                                      sbx_sandbox **out, size_t *count)
{
    if (st != SBX_OK || list->count == 0) {
        common_sandbox_records_free(list->items, list->count);
        *out = NULL;
    } else {
        *out = list->items;
    }
    *count = st == SBX_OK ? list->count : 0;
    memset(list, 0, sizeof *list);
    return st;
}
