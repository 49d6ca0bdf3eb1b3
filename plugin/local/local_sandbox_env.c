/* A sandbox's env joined to its execs and processes (see
 * local_sandbox_env.h). */
#include <config.h>

#include "plugin/local/local_sandbox_env.h"

#include <sbx/backend_support.h>

#include <stdlib.h>

sbx_status local_sandbox_env_join(const local_metadata *meta, sbx_exec_request *request,
                                  sbx_env_var **joined, sbx_error *err)
{
    *joined = NULL;
    if (meta->env_count == 0)
        return SBX_OK;
    size_t own = meta->env_count, total = own + request->env_count;
    sbx_env_var *vars = calloc(total, sizeof *vars);
    if (vars == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory joining the env of "
                                     "sandbox '%s'", meta->sandbox_id);
    for (size_t i = 0; i < own; i++)
        vars[i] = (sbx_env_var){ meta->env[i].key, meta->env[i].value };
    for (size_t i = 0; i < request->env_count; i++)
        vars[own + i] = request->env[i];
    request->env = vars;
    request->env_count = total;
    *joined = vars;
    return SBX_OK;
}
