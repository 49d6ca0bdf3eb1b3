/* What every lease store shares (see lease_store.h). */
#include <config.h>

#include "host-api/src/manager/lease_store.h"

#include "common/printable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sbx_status mgr_lease_store_init(mgr_lease_store *store, const mgr_lease_store_ops *ops,
                                const char *owner_id, int64_t ttl_ms, sbx_error *err)
{
    store->ops = ops;
    store->kind = ops->kind;
    store->cross_process = ops->cross_process;
    store->ttl_ms = ttl_ms;
    atomic_init(&store->wait_budget_ms, -1);
    store->owner_id = strdup(owner_id);
    if (store->owner_id == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory opening the %s lease store",
                             ops->kind);
    return SBX_OK;
}

void mgr_lease_store_limit_waits(mgr_lease_store *store, int64_t budget_ms)
{
    atomic_store(&store->wait_budget_ms, budget_ms > 0 ? budget_ms : 0);
}

int64_t mgr_lease_store_wait_bound(mgr_lease_store *store, int64_t bound_ms)
{
    int64_t left = atomic_load(&store->wait_budget_ms);
    return left >= 0 && left < bound_ms ? left : bound_ms;
}

void mgr_lease_store_charge(mgr_lease_store *store, int64_t waited_ms)
{
    int64_t left = atomic_load(&store->wait_budget_ms);
    while (left > 0 && !atomic_compare_exchange_weak(&store->wait_budget_ms, &left,
                                                     left > waited_ms ? left - waited_ms : 0))
        ;
}

int mgr_lease_text_ok(const char *text, size_t len)
{
    if (len == 0 || len > MGR_LEASE_TEXT_MAX)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] <= ' ' || text[i] > '~')
            return 0;
    return 1;
}

sbx_status mgr_lease_bad_row(const char *store_name, const char *key, const char *why,
                             sbx_error *err)
{
    char quoted[80];
    return sbx_error_set(err, SBX_ERR_PROTOCOL, "%s: %s %s; nothing is granted on it",
                         store_name, common_printable(key, quoted, sizeof quoted), why);
}

sbx_status mgr_lease_value_check(const char *store_name, const char *key, const char *value,
                                 size_t len, int *destroying, sbx_error *err)
{
    if (value == NULL)
        return mgr_lease_bad_row(store_name, key, "holds no lease value (NULL or not text)", err);
    int state = len < 4 ? -1 : memcmp(value, "own:", 4) == 0 ? 0
                : memcmp(value, "del:", 4) == 0 ? 1 : -1;
    if (state < 0 || !mgr_lease_text_ok(value + 4, len - 4))
        return mgr_lease_bad_row(store_name, key, "holds a malformed lease value (not own:<owner> "
                                 "or del:<owner> with a printable owner of at most 256 bytes)",
                                 err);
    if (destroying != NULL)
        *destroying = state;
    return SBX_OK;
}

void mgr_lease_store_close(mgr_lease_store *store)
{
    if (store != NULL)
        store->ops->close(store);
}

char *mgr_lease_value(const char *owner_id, int destroying)
{
    size_t n = strlen(owner_id) + 5;
    char *value = malloc(n);
    if (value != NULL)
        snprintf(value, n, "%s%s", destroying ? "del:" : "own:", owner_id);
    return value;
}

int mgr_lease_records_append(mgr_lease_records *records, const char *sandbox_id,
                             const char *value, int64_t ttl_ms)
{
    if (records->count == records->cap) {
        size_t grown_cap = records->cap ? records->cap * 2 : 16;
        sbx_lease_record *grown = realloc(records->items, grown_cap * sizeof *grown);
        if (grown == NULL)
            return -1;
        records->items = grown;
        records->cap = grown_cap;
    }
    sbx_lease_record *r = &records->items[records->count];
    r->sandbox_id = strdup(sandbox_id);
    r->owner = strdup(value + 4);
    r->destroying = strncmp(value, "del:", 4) == 0;
    r->ttl_ms = ttl_ms;
    if (r->sandbox_id == NULL || r->owner == NULL) {
        free(r->sandbox_id);
        free(r->owner);
        return -1;
    }
    records->count++;
    return 0;
}

static int by_id(const void *a, const void *b)
{
    return strcmp(((const sbx_lease_record *)a)->sandbox_id,
                  ((const sbx_lease_record *)b)->sandbox_id);
}

void mgr_lease_records_sort(sbx_lease_record *records, size_t count)
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
