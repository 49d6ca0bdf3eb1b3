/* The running container of an operation (see docker_target.h). */
#include <config.h>

#include "plugin/docker/docker_target.h"

#include "common/json_fields.h"
#include "common/sandbox_ids.h"
#include "plugin/docker/docker_container.h"

#include <stdio.h>
#include <string.h>

sbx_status docker_target_gone(const docker_target *t, sbx_error *err)
{
    return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND,
                                 "docker: %s: the sandbox does not exist or is not running",
                                 t->what);
}

sbx_status docker_target_find(sbx_backend_instance *inst, const char *sandbox_id, const char *op,
                              docker_target *t, sbx_error *err)
{
    memset(t, 0, sizeof *t);
    t->sandbox_id = sandbox_id;
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    sbx_backend_format(t->what, sizeof t->what, "%s in sandbox '%s'", op, sandbox_id);
    json_object *o = NULL;
    st = docker_inspect_json(inst, sandbox_id, t->what, &o, err);
    if (st == SBX_ERR_NOT_FOUND)
        return docker_target_gone(t, err);
    if (st != SBX_OK)
        return st;
    docker_sandbox_view view;
    int running = 0;
    st = docker_view_from_inspect(&inst->options, o, sandbox_id, &view, &running, err);
    if (st == SBX_OK && view.facts.container_id == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                   "docker: %s: the inspect answer has no container Id", t->what);
    if (st == SBX_OK && !running)
        st = docker_target_gone(t, err);
    if (st == SBX_OK) {
        snprintf(t->container_id, sizeof t->container_id, "%s", view.facts.container_id);
        json_object *config = NULL;
        const char *dir = NULL;
        json_object_object_get_ex(o, "Config", &config);
        if (common_json_get_string(config, "WorkingDir", &dir) != COMMON_JSON_OK || dir[0] != '/' ||
            docker_path_resolve("/", dir, t->working_dir) != 0)
            snprintf(t->working_dir, sizeof t->working_dir, "/");
    }
    json_object_put(o);
    return st;
}

sbx_status docker_target_path(const docker_target *t, const char *path, char *out,
                              sbx_error *err)
{
    if (docker_path_resolve(t->working_dir, path, out) != 0)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "docker: %s: the path is empty or longer than %d bytes",
                                     t->what, DOCKER_PATH_MAX - 1);
    return SBX_OK;
}
