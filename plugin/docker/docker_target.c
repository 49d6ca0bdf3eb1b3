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

/* The kept slot of `sandbox_id`, or NULL; under the lock. */
static docker_kept_target *kept_slot(sbx_backend_instance *inst, const char *sandbox_id)
{
    for (unsigned i = 0; i < DOCKER_KEPT_TARGETS; i++)
        if (strcmp(inst->kept[i].sandbox_id, sandbox_id) == 0)
            return &inst->kept[i];
    return NULL;
}

sbx_status docker_target_find_kept(sbx_backend_instance *inst, const char *sandbox_id,
                                   const char *op, docker_target *t, sbx_error *err)
{
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    /* The exec's create would wait for dockerd's lock a kept read holds. */
    docker_kept_reads_drop(&inst->reads, sandbox_id);
    pthread_mutex_lock(&inst->kept_lock);
    docker_kept_target *k = kept_slot(inst, sandbox_id);
    if (k != NULL) {
        memset(t, 0, sizeof *t);
        t->sandbox_id = sandbox_id;
        t->kept = 1;
        sbx_backend_format(t->what, sizeof t->what, "%s in sandbox '%s'", op, sandbox_id);
        memcpy(t->container_id, k->container_id, sizeof t->container_id);
        memcpy(t->working_dir, k->working_dir, sizeof t->working_dir);
    }
    pthread_mutex_unlock(&inst->kept_lock);
    if (k != NULL)
        return SBX_OK;
    st = docker_target_find(inst, sandbox_id, op, t, err);
    if (st != SBX_OK)
        return st;
    pthread_mutex_lock(&inst->kept_lock);
    k = kept_slot(inst, sandbox_id);
    if (k == NULL) {
        k = &inst->kept[inst->kept_next];
        inst->kept_next = (inst->kept_next + 1) % DOCKER_KEPT_TARGETS;
    }
    snprintf(k->sandbox_id, sizeof k->sandbox_id, "%s", sandbox_id);
    memcpy(k->container_id, t->container_id, sizeof k->container_id);
    memcpy(k->working_dir, t->working_dir, sizeof k->working_dir);
    pthread_mutex_unlock(&inst->kept_lock);
    return SBX_OK;
}

void docker_target_forget(sbx_backend_instance *inst, const docker_target *t)
{
    pthread_mutex_lock(&inst->kept_lock);
    docker_kept_target *k = kept_slot(inst, t->sandbox_id);
    if (k != NULL && strcmp(k->container_id, t->container_id) == 0)
        k->sandbox_id[0] = '\0';
    pthread_mutex_unlock(&inst->kept_lock);
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
