/* What every lease store shares (see lease_store.h). */
#include <config.h>

#include "host-api/src/manager/lease_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sbx_status sbx_lease_store_init(sbx_lease_store *store, const sbx_lease_store_ops *ops,
                                const char *kind, int cross_process, const char *owner_id,
                                int64_t ttl_ms, sbx_error *err)
{
    store->ops = ops;
    store->kind = kind;
    store->cross_process = cross_process;
    store->ttl_ms = ttl_ms;
    store->owner_id = strdup(owner_id);
    if (store->owner_id == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory opening the %s lease store",
                             kind);
    return SBX_OK;
}

void sbx_lease_store_close(sbx_lease_store *store)
{
    if (store != NULL)
        store->ops->close(store);
}

char *sbx_lease_value(const char *owner_id, int destroying)
{
    size_t n = strlen(owner_id) + 5;
    char *value = malloc(n);
    if (value != NULL)
        snprintf(value, n, "%s%s", destroying ? "del:" : "own:", owner_id);
    return value;
}

int sbx_lease_records_append(sbx_lease_record **records, size_t *count, size_t *cap,
                             const char *sandbox_id, const char *value, int64_t ttl_ms)
{
    if (*count == *cap) {
        size_t grown_cap = *cap ? *cap * 2 : 16;
        sbx_lease_record *grown = realloc(*records, grown_cap * sizeof *grown);
        if (grown == NULL)
            return -1;
        *records = grown;
        *cap = grown_cap;
    }
    int state = strncmp(value, "own:", 4) == 0 ? 0 : strncmp(value, "del:", 4) == 0 ? 1 : -1;
    sbx_lease_record *r = &(*records)[*count];
    r->sandbox_id = strdup(sandbox_id);
    r->owner = strdup(state >= 0 ? value + 4 : value);
    r->destroying = state == 1;
    r->ttl_ms = ttl_ms;
    if (r->sandbox_id == NULL || r->owner == NULL) {
        free(r->sandbox_id);
        free(r->owner);
        return -1;
    }
    (*count)++;
    return 0;
}

static int by_id(const void *a, const void *b)
{
    return strcmp(((const sbx_lease_record *)a)->sandbox_id,
                  ((const sbx_lease_record *)b)->sandbox_id);
}

void sbx_lease_records_sort(sbx_lease_record *records, size_t count)
{
    if (count > 1)
        qsort(records, count, sizeof *records, by_id);
}

void sbx_lease_records_free(sbx_lease_record *records, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(records[i].sandbox_id);
        free(records[i].owner);
    }
    free(records);
}
