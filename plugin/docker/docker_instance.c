/* Opening and closing an instance, and what it learns of the engine once
 * (see docker_instance.h). */
#include <config.h>

#include "plugin/docker/docker_instance.h"

#include <stdlib.h>

sbx_status docker_open(const sbx_option *options, size_t option_count,
                       const sbx_host_services *services,
                       sbx_backend_instance **out, sbx_error *err)
{
    sbx_backend_instance *inst = calloc(1, sizeof *inst);
    if (inst == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    sbx_status st = docker_options_parse(options, option_count, &inst->options, err);
    if (st == SBX_OK)
        st = docker_engine_open(&inst->engine, &inst->options, services, err);
    if (st != SBX_OK) {
        docker_options_clear(&inst->options);
        free(inst);
        return st;
    }
    inst->services = services;
    pthread_mutex_init(&inst->identity_lock, NULL);
    pthread_mutex_init(&inst->kept_lock, NULL);
    docker_kept_reads_init(&inst->reads);
    docker_proc_links_init(&inst->proc_links);
    DOCKER_LOG(inst, SBX_LOG_DEBUG, "engine socket %s, API %s", inst->options.socket_path,
               inst->options.api_version);
    *out = inst;
    return SBX_OK;
}

void docker_close(sbx_backend_instance *inst)
{
    if (inst == NULL)
        return;
    docker_kept_reads_fini(&inst->reads);
    docker_proc_links_fini(&inst->proc_links);
    docker_engine_close(&inst->engine);
    docker_options_clear(&inst->options);
    pthread_mutex_destroy(&inst->identity_lock);
    pthread_mutex_destroy(&inst->kept_lock);
    free(inst);
}

/* The engine's identity, asked once per instance (GET /version); *out
 * stays valid until close. */
sbx_status docker_instance_identity(sbx_backend_instance *inst, const char *what,
                                    const docker_engine_identity **out, sbx_error *err)
{
    sbx_status st = SBX_OK;
    pthread_mutex_lock(&inst->identity_lock);
    if (!inst->identity_known) {
        st = docker_engine_identify(&inst->engine, what, &inst->identity, err);
        inst->identity_known = st == SBX_OK;
    }
    pthread_mutex_unlock(&inst->identity_lock);
    *out = &inst->identity;
    return st;
}

/* Name the engine in what a record will say: "docker" or "podman" and its
 * version (NULL when it gave none). */
void docker_instance_name_engine(const docker_engine_identity *engine, common_record_facts *f)
{
    if (engine == NULL)
        return;
    f->engine = engine->is_podman ? "podman" : "docker";
    f->engine_version = engine->version[0] != '\0' ? engine->version : NULL;
}

/* For an answer in the shape `to` asks: the engine's identity when it is a
 * record (*engine NULL for a 1.1 answer, which does not name it). */
sbx_status docker_instance_engine_for(sbx_backend_instance *inst, const common_answer *to,
                                      const char *what, const docker_engine_identity **engine,
                                      sbx_error *err)
{
    *engine = NULL;
    return to->record != NULL ? docker_instance_identity(inst, what, engine, err) : SBX_OK;
}
