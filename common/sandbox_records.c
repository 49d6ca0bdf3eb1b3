/* Sandbox records as backends return them (see sandbox_records.h). */
#include "common/sandbox_records.h"

#include <sbx/host.h>

#include <stdlib.h>
#include <string.h>

void sbx_sandbox_record_clear(sbx_sandbox *s)
{
    free(s->sandbox_id);
    free(s->sandbox_url);
    free(s->user_id);
    free(s->thread_id);
    free(s->status);
    memset(s, 0, sizeof *s);
    s->mount_contract_version = SBX_CONTRACT_NONE;
}

static int copy_optional(char **dst, const char *src)
{
    *dst = NULL;
    if (src == NULL)
        return 1;
    *dst = strdup(src);
    return *dst != NULL;
}

sbx_status sbx_sandbox_record_fill(sbx_sandbox *out, const char *sandbox_id,
                                   const char *sandbox_url, const char *user_id,
                                   const char *thread_id, const char *status,
                                   int mount_contract_version, sbx_error *err)
{
    memset(out, 0, sizeof *out);
    out->mount_contract_version = mount_contract_version;
    if (sandbox_id == NULL || sandbox_url == NULL) {
        sbx_sandbox_record_clear(out);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "sandbox record without id or url");
    }
    int ok = copy_optional(&out->sandbox_id, sandbox_id) &&
             copy_optional(&out->sandbox_url, sandbox_url) &&
             copy_optional(&out->user_id, user_id) &&
             copy_optional(&out->thread_id, thread_id) &&
             copy_optional(&out->status, status);
    if (!ok) {
        sbx_sandbox_record_clear(out);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    return SBX_OK;
}

void sbx_sandbox_records_free(sbx_sandbox *sandboxes, size_t count)
{
    if (sandboxes == NULL)
        return;
    for (size_t i = 0; i < count; i++)
        sbx_sandbox_record_clear(&sandboxes[i]);
    free(sandboxes);
}

sbx_status sbx_sandbox_record_box(sbx_sandbox *record, sbx_sandbox **out, sbx_error *err)
{
    *out = malloc(sizeof **out);
    if (*out == NULL) {
        sbx_sandbox_record_clear(record);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    **out = *record;
    memset(record, 0, sizeof *record);
    record->mount_contract_version = SBX_CONTRACT_NONE;
    return SBX_OK;
}

void sbx_reconciliation_clear(sbx_reconciliation *result)
{
    if (result == NULL)
        return;
    sbx_sandbox_records_free(result->sandbox, result->sandbox != NULL ? 1 : 0);
    free(result->backend_namespace);
    free(result->incarnation_id);
    memset(result, 0, sizeof *result);
    result->status = SBX_RECONCILE_UNKNOWN;
}

sbx_sandbox *sbx_sandbox_list_append(sbx_sandbox_list *list, sbx_error *err)
{
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? list->capacity * 2 : 8;
        sbx_sandbox *grown = realloc(list->items, cap * sizeof *grown);
        if (grown == NULL) {
            sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
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

void sbx_sandbox_list_drop_last(sbx_sandbox_list *list)
{
    if (list->count > 0)
        sbx_sandbox_record_clear(&list->items[--list->count]);
}

sbx_status sbx_sandbox_list_finish(sbx_sandbox_list *list, sbx_status st,
                                   sbx_sandbox **out, size_t *count)
{
    if (st != SBX_OK || list->count == 0) {
        sbx_sandbox_records_free(list->items, list->count);
        *out = NULL;
    } else {
        *out = list->items;
    }
    *count = st == SBX_OK ? list->count : 0;
    memset(list, 0, sizeof *list);
    return st;
}
