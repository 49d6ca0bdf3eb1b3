/* A sandbox's env joined to its execs and processes (see
 * local_sandbox_env.h). */
#include <config.h>

#include "plugin/local/local_sandbox_env.h"

#include <sbx/backend_support.h>

#include <stdlib.h>

sbx_status local_sandbox_env_join(sbx_backend_instance *inst, const local_paths *paths,
                                  sbx_exec_request *request, local_sandbox_env *held,
                                  sbx_error *err)
{
    sbx_status st = local_load_complete(inst, paths, paths->id, &held->meta, err);
    if (st != SBX_OK || held->meta.env_count == 0)
        return st;
    size_t own = held->meta.env_count, total = own + request->env_count;
    held->vars = calloc(total, sizeof *held->vars);
    if (held->vars == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory joining the env of "
                                     "sandbox '%s'", paths->id);
    for (size_t i = 0; i < own; i++)
        held->vars[i] = (sbx_env_var){ held->meta.env[i].key, held->meta.env[i].value };
    for (size_t i = 0; i < request->env_count; i++)
        held->vars[own + i] = request->env[i];
    request->env = held->vars;
    request->env_count = total;
    return SBX_OK;
}

void local_sandbox_env_release(local_sandbox_env *held)
{
    local_metadata_clear(&held->meta);
    free(held->vars);
    held->vars = NULL;
}
