/* Expiry of local sandboxes: enforced by whoever sees it, moved by extend
 * (see local_expiry.h). */
#include <config.h>

#include "plugin/local/local_expiry.h"

#include "common/expiry.h"
#include "plugin/local/local_cache.h"
#include "plugin/local/local_ops.h"
#include "plugin/local/local_records.h"

#include <sbx/backend_support.h>

#include <string.h>

sbx_status local_expiry_enforce_locked(sbx_backend_instance *inst, const local_paths *paths,
                                       local_metadata *meta, sbx_error *err)
{
    if (!common_expiry_passed(meta->expires_at, common_epoch_now_ms()))
        return SBX_OK;
    LOCAL_LOG(inst, SBX_LOG_INFO, "sandbox %s is past its expiry (%lld): destroying it",
              paths->id, (long long)meta->expires_at);
    local_metadata_clear(meta);
    sbx_status st = local_destroy_locked(inst, paths, err);
    local_cache_forget(inst->cache, paths->metadata);
    if (st != SBX_OK)
        return st;
    return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND,
                                 "sandbox '%s' not found (it passed its expiry and was "
                                 "destroyed)", paths->id);
}

int local_expiry_reap(sbx_backend_instance *inst, const local_paths *paths,
                      const local_metadata *meta)
{
    if (!common_expiry_passed(meta->expires_at, common_epoch_now_ms()))
        return 0;
    int lock_fd = -1;
    sbx_error err;
    sbx_status st = local_lock(paths, inst->options.lock_timeout_ms, &lock_fd, &err);
    if (st != SBX_OK) {
        LOCAL_LOG(inst, SBX_LOG_WARN, "sandbox %s is past its expiry but stays for now: %s",
                  paths->id, err.message);
        return 0;
    }
    local_metadata now;
    memset(&now, 0, sizeof now);
    st = local_load_complete(inst, paths, paths->id, &now, &err);
    if (st == SBX_OK)
        st = local_expiry_enforce_locked(inst, paths, &now, &err);
    local_metadata_clear(&now);
    local_unlock(paths, lock_fd, st == SBX_ERR_NOT_FOUND);
    if (st != SBX_OK && st != SBX_ERR_NOT_FOUND)
        LOCAL_LOG(inst, SBX_LOG_WARN, "sandbox %s is past its expiry but stays for now: %s",
                  paths->id, err.message);
    return st == SBX_ERR_NOT_FOUND;
}

sbx_status local_extend(sbx_backend_instance *inst, const char *sandbox_id, int64_t expires_at,
                        sbx_error *err)
{
    local_paths paths;
    int lock_fd = -1;
    sbx_status st = local_lock_sandbox(inst, sandbox_id, &paths, &lock_fd, err);
    if (st != SBX_OK)
        return st;
    local_metadata meta;
    memset(&meta, 0, sizeof meta);
    st = local_load_complete(inst, &paths, sandbox_id, &meta, err);
    if (st == SBX_OK)
        st = local_expiry_enforce_locked(inst, &paths, &meta, err);
    if (st == SBX_OK && meta.expires_at == 0)
        st = sbx_backend_error_set(err, SBX_ERR_USAGE,
                                   "extend: sandbox '%s' was created without an expiry "
                                   "(expires_at): there is none to move", sandbox_id);
    if (st == SBX_OK) {
        meta.expires_at = expires_at;
        st = local_metadata_write(paths.metadata, paths.metadata_tmp, &meta, err);
    }
    if (st == SBX_OK)
        LOCAL_LOG(inst, SBX_LOG_INFO, "sandbox %s now expires at %lld", sandbox_id,
                  (long long)expires_at);
    local_metadata_clear(&meta);
    local_unlock(&paths, lock_fd, st == SBX_ERR_NOT_FOUND);
    return st;
}
