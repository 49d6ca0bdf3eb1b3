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
