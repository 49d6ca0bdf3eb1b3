/* Opening and closing an instance, finishing the destroys a crash left,
 * and a sandbox's paths (see local_instance.h). */
#include <config.h>

#include "plugin/local/local_instance.h"

#include "common/sandbox_ids.h"
#include "plugin/local/local_tomb.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void local_sweep_tomb(sbx_backend_instance *inst, const char *id)
{
    sbx_error err;
    int finished = 0;
    sbx_status st = local_tomb_sweep_one(inst->options.state_dir, id,
                                         inst->options.stop_timeout_ms, &finished, &err);
    if (st != SBX_OK)
        LOCAL_LOG(inst, SBX_LOG_WARN, "skipping the tomb of sandbox %s: %s", id, err.message);
    else if (finished)
        LOCAL_LOG(inst, SBX_LOG_INFO, "finished the interrupted destroy of sandbox %s", id);
}

/* At open: finish every destroy that a killed process left.  An unreadable
 * state directory is left for the operations to report. */
static void sweep_tombs(sbx_backend_instance *inst)
{
    DIR *dir = opendir(inst->options.state_dir);
    if (dir == NULL)
        return;
    struct dirent *entry;
    char id[256];
    while ((entry = readdir(dir)) != NULL)
        if (local_tomb_entry_id(entry->d_name, id, sizeof id))
            local_sweep_tomb(inst, id);
    closedir(dir);
}

sbx_status local_open(const sbx_option *options, size_t option_count,
                      const sbx_host_services *services,
                      sbx_backend_instance **out, sbx_error *err)
{
    sbx_backend_instance *inst = calloc(1, sizeof *inst);
    if (inst == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    sbx_status st = local_options_parse(options, option_count, &inst->options, err);
    if (st != SBX_OK) {
        free(inst);
        return st;
    }
    inst->cache = local_cache_new();
    if (inst->cache == NULL) {
        local_options_clear(&inst->options);
        free(inst);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    inst->services = services;
    LOCAL_LOG(inst, SBX_LOG_DEBUG, "state directory %s, %s", inst->options.state_dir,
              inst->options.command ? "sandboxes run a command" : "directory sandboxes");
    if (inst->options.isolation.mode == LOCAL_ISOLATION_NONE)
        LOCAL_LOG(inst, SBX_LOG_WARN, "isolation=none: the sandboxes of %s do not isolate: "
                  "their commands run as this user, with its files, processes and network",
                  inst->options.state_dir);
    sweep_tombs(inst);
    st = local_cgroup_open(inst, err);
    if (st != SBX_OK) {
        local_close(inst);
        return st;
    }
    *out = inst;
    return SBX_OK;
}

void local_close(sbx_backend_instance *inst)
{
    if (inst == NULL)
        return;
    local_cache_free(inst->cache);
    local_cgroup_layout_clear(&inst->cgroups);
    local_options_clear(&inst->options);
    free(inst);
}

sbx_status local_sandbox_paths(const sbx_backend_instance *inst, const char *sandbox_id,
                               local_paths *paths, sbx_error *err)
{
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st == SBX_OK)
        st = local_paths_for(inst->options.state_dir, sandbox_id, paths, err);
    return st;
}
