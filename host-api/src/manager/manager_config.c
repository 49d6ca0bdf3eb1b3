/* Reading and checking the manager's configuration (see
 * manager_config.h). */
#include <config.h>

#include "host-api/src/manager/manager_config.h"

#include "host-api/src/manager/lease_store.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Copy the members of `in` within its struct_size over the defaults. */
sbx_status mgr_read_config(const sbx_manager_config *in, sbx_manager_config *out,
                           sbx_error *err)
{
    static const sbx_manager_config defaults = SBX_MANAGER_CONFIG_INIT;
    *out = defaults;
    if (in == NULL)
        return SBX_OK;
    if (in->struct_size < offsetof(sbx_manager_config, idle_timeout_ms))
        return sbx_error_set(err, SBX_ERR_USAGE, "manager: configuration struct_size %zu is too "
                             "small", in->struct_size);
    memcpy(out, in, in->struct_size < sizeof *out ? in->struct_size : sizeof *out);
    out->struct_size = sizeof *out;
    return SBX_OK;
}

sbx_status mgr_check_config(const sbx_manager_config *c, sbx_error *err)
{
    const char *bad = NULL;
    if (c->idle_timeout_ms < 0)
        bad = "idle_timeout must be >= 0";
    else if (c->replicas < 1)
        bad = "replicas must be >= 1";
    else if (c->check_interval_ms <= 0)
        bad = "check_interval must be > 0";
    else if (c->ready_timeout_ms < 0)
        bad = "ready_timeout must be >= 0";
    else if (c->ready_interval_ms <= 0)
        bad = "ready_interval must be > 0";
    else if (c->ready_path != NULL && c->ready_path[0] != '/')
        bad = "ready_path must start with '/'";
    else if (c->store != SBX_MANAGER_STORE_MEMORY && c->store != SBX_MANAGER_STORE_SQLITE &&
             c->store != SBX_MANAGER_STORE_REDIS)
        bad = "ownership.store must be memory, sqlite or redis";
    else if (c->renewal_interval_ms <= 0)
        bad = "ownership.renewal_interval must be > 0";
    else if (c->ttl_multiplier < 2)
        bad = "ownership.ttl_multiplier must be >= 2";
    else if (c->renewal_interval_ms > INT64_MAX / c->ttl_multiplier)
        bad = "ownership.renewal_interval x ttl_multiplier is too large";
    else if (c->shutdown != SBX_MANAGER_SHUTDOWN_DESTROY &&
             c->shutdown != SBX_MANAGER_SHUTDOWN_KEEP &&
             c->shutdown != SBX_MANAGER_SHUTDOWN_KEEP_LEASES)
        bad = "shutdown must be destroy or keep";
    else if (c->default_lifetime_ms < 0 || c->max_lifetime_ms < 0)
        bad = "default_lifetime and max_lifetime must be >= 0";
    else if (c->max_lifetime_ms > 0 && c->default_lifetime_ms > c->max_lifetime_ms)
        bad = "default_lifetime must not be longer than max_lifetime";
    else if (c->owner_id != NULL && !mgr_lease_text_ok(c->owner_id, strlen(c->owner_id)))
        bad = "owner_id must be 1 to 256 printable ASCII characters without spaces";
    if (bad != NULL)
        return sbx_error_set(err, SBX_ERR_CONFIG, "manager: %s", bad);
    return SBX_OK;
}
