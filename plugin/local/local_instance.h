/*
 * A local backend instance: its immutable options and the cache of records
 * it read; all shared state lives in the state directory, so instances in
 * any number of threads and processes see the same sandboxes.
 */
#ifndef SBX_LOCAL_INSTANCE_H
#define SBX_LOCAL_INSTANCE_H

#include "common/record_chain.h"
#include "plugin/local/local_cache.h"
#include "plugin/local/local_cgroup.h"
#include "plugin/local/local_metadata.h"
#include "plugin/local/local_options.h"
#include "plugin/local/local_state.h"
#include <sbx/backend_support.h>

struct sbx_backend_instance {
    local_options options;
    local_cache *cache;                  /* the records read (thread-safe) */
    const sbx_host_services *services;   /* kept alive by the host until close */
    local_cgroup_layout cgroups;         /* where limits go (immutable) */
};

#define LOCAL_LOG(inst, level, ...) \
    sbx_backend_log((inst)->services, (level), LOCAL_NAME, __VA_ARGS__)

/* The descriptor's open: parse the options, mark or check the state
 * directory and finish the destroys a crash left (tombs).  SBX_ERR_CONFIG
 * naming a bad option or directory; *out is the caller's (local_close). */
sbx_status local_open(const sbx_option *options, size_t option_count,
                      const sbx_host_services *services,
                      sbx_backend_instance **out, sbx_error *err);

/* The descriptor's close; NULL is accepted. */
void local_close(sbx_backend_instance *inst);

/* Finish, if it is not under way, the destroy of sandbox `id` whose tomb
 * was found in the state directory; a failure is logged (the tomb stays
 * for the next try), never the caller's. */
void local_sweep_tomb(sbx_backend_instance *inst, const char *id);

/* The files of a sandbox the caller names: its id is refused (never
 * reaching a file name) unless valid. */
sbx_status local_sandbox_paths(const sbx_backend_instance *inst, const char *sandbox_id,
                               local_paths *paths, sbx_error *err);

#endif
