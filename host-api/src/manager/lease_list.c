/* sbx_manager_list_leases: what an operator's `sbxctl leases` shows, read
 * from the configured store without a manager. */
#include <config.h>

#include "host-api/src/manager/lease_store.h"
#include "host-api/src/manager/manager_config.h"
#include "host-api/src/manager/process_lock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Owner id of the short-lived store handle: it writes nothing. */
#define LISTING_OWNER "sbx-lease-listing"

/* Open the sqlite or redis store `c` names; *out NULL (SBX_OK) when the
 * sqlite file does not exist yet, so there is nothing to list. */
static sbx_status open_for_listing(const sbx_manager_config *c, mgr_lease_store **out,
                                   sbx_error *err)
{
    *out = NULL;
    int64_t ttl = c->renewal_interval_ms * (int64_t)c->ttl_multiplier;
    if (c->store == SBX_MANAGER_STORE_REDIS)
        return mgr_lease_store_redis_open(c->redis_url != NULL ? c->redis_url
                                                               : "redis://127.0.0.1:6379/0",
                                          c->key_prefix != NULL ? c->key_prefix
                                                                : "sbx:sandbox:owner",
                                          LISTING_OWNER, ttl, out, err);
    if (c->store != SBX_MANAGER_STORE_SQLITE)
        return sbx_error_set(err, SBX_ERR_UNSUPPORTED, "the memory lease store lives inside "
                             "one process: only sqlite and redis leases can be listed");
    char *path = c->store_path != NULL ? strdup(c->store_path) : mgr_state_path("leases.db", err);
    if (path == NULL)
        return c->store_path != NULL ? sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory")
                                     : err->kind;
    sbx_status st = SBX_OK;
    if (access(path, F_OK) == 0)
        st = mgr_lease_store_sqlite_open(path, LISTING_OWNER, ttl, out, err);
    else if (errno != ENOENT)
        st = sbx_error_set(err, SBX_ERR_CONFIG, "sqlite lease store %s: %s", path,
                           strerror(errno));
    free(path);
    return st;
}

sbx_status sbx_manager_list_leases(const sbx_manager_config *config, sbx_lease_record **out,
                                   size_t *count, sbx_error *err)
{
    sbx_error_clear(err);
    if (config == NULL || out == NULL || count == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "manager: listing leases needs a configuration");
    *out = NULL;
    *count = 0;
    sbx_manager_config c;
    sbx_status st = mgr_read_config(config, &c, err);
    if (st != SBX_OK || (st = mgr_check_config(&c, err)) != SBX_OK)
        return st;
    mgr_lease_store *store = NULL;
    if ((st = open_for_listing(&c, &store, err)) != SBX_OK || store == NULL)
        return st;
    st = store->ops->list(store, out, count, err);
    mgr_lease_store_close(store);
    return st;
}
