/* destroy, is_alive, discover, reconcile (see docker_ops.h). */
#include <config.h>

#include "plugin/docker/docker_ops.h"

#include "common/record_chain.h"
#include "common/sandbox_ids.h"
#include "plugin/docker/docker_calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sbx_status docker_destroy(sbx_backend_instance *inst, const char *sandbox_id,
                          sbx_error *err)
{
    int running = 0;
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    /* Never stop a container that only happens to carry our name. */
    if (st == SBX_OK)
        st = docker_inspect_sandbox(inst, sandbox_id, NULL, NULL, &running, err);
    /* An explicit grace: podman's default is none, Docker's 10 s. */
    char query[32];
    snprintf(query, sizeof query, "?t=%ld", inst->options.stop_grace_s);
    const docker_container_call stop = { "POST", "/stop", query,
                                         inst->options.stop_grace_s * 1000L };
    if (st == SBX_OK && running)
        st = docker_container_action(inst, sandbox_id, NULL, &stop, err);
    if (st == SBX_OK || st == SBX_ERR_NOT_FOUND)
        st = docker_remove_container(inst, sandbox_id, NULL, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        return SBX_OK;
    }
    if (st == SBX_OK)
        DOCKER_LOG(inst, SBX_LOG_INFO, "destroyed sandbox %s", sandbox_id);
    return st;
}

sbx_status docker_is_alive(sbx_backend_instance *inst, const char *sandbox_id,
                           int *alive, sbx_error *err)
{
    *alive = 0;
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st == SBX_OK)
        st = docker_inspect_sandbox(inst, sandbox_id, NULL, NULL, alive, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        *alive = 0;
        return SBX_OK;
    }
    return st;
}

/* discover and discover_record. */
static sbx_status discover_sandbox(sbx_backend_instance *inst, const char *sandbox_id,
                                   const common_answer *to, sbx_error *err)
{
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    char what[96];
    sbx_backend_format(what, sizeof what, "discover of sandbox '%s'", sandbox_id);
    const docker_engine_identity *engine = NULL;
    int running = 0;
    st = docker_instance_engine_for(inst, to, what, &engine, err);
    if (st == SBX_OK)
        st = docker_inspect_sandbox(inst, sandbox_id, to, engine, &running, err);
    if (st == SBX_ERR_NOT_FOUND)
        sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "docker: sandbox '%s' not found", sandbox_id);
    return st;
}

sbx_status docker_discover(sbx_backend_instance *inst, const char *sandbox_id,
                           sbx_sandbox **out, sbx_error *err)
{
    return discover_sandbox(inst, sandbox_id, &(common_answer){ out, NULL }, err);
}

sbx_status docker_discover_record(sbx_backend_instance *inst, const char *sandbox_id,
                                  sbx_sandbox_record **out, sbx_error *err)
{
    return discover_sandbox(inst, sandbox_id, &(common_answer){ NULL, out }, err);
}

/* What reconcile learnt, moved into *out: FOUND (the sandbox, an array of
 * one or NULL, kept only while it runs with a published port: a stopped
 * one has no address; it is consumed either way) or ABSENT.  0 when out of
 * memory: then *out is left UNKNOWN. */
static int settle_reconciliation(sbx_reconciliation *out, sbx_reconcile_status status,
                                 const char *engine_id, const char *container_id,
                                 sbx_sandbox *sandbox, int running)
{
    out->status = status;
    out->backend_namespace = strdup(engine_id);
    int ok = out->backend_namespace != NULL;
    if (status == SBX_RECONCILE_FOUND) {
        out->incarnation_id = strdup(container_id);
        ok = ok && out->incarnation_id != NULL;
    }
    if (ok && sandbox != NULL && running && sandbox->sandbox_url[0] != '\0')
        out->sandbox = sandbox;
    else
        common_sandbox_records_free(sandbox, sandbox != NULL ? 1 : 0);
    if (!ok)
        common_reconciliation_clear(out);
    return ok;
}

/* The namespace reconcile reports: Docker's engine ID (GET /info, kept in
 * its data root); podman answers a new random ID at every call, so there
 * it is "podman:HOSTNAME:STORAGE_ROOT", as stable as the engine's
 * storage. */
static sbx_status engine_namespace(sbx_backend_instance *inst, const char *what, char *buf,
                                   size_t size, sbx_error *err)
{
    const docker_engine_identity *engine = NULL;
    sbx_status st = docker_instance_identity(inst, what, &engine, err);
    docker_engine_facts facts;
    if (st == SBX_OK)
        st = docker_engine_info(&inst->engine, what, &facts, err);
    if (st != SBX_OK)
        return st;
    int podman = engine->is_podman;
    if (podman ? facts.name[0] == '\0' || facts.root_dir[0] == '\0' : facts.id[0] == '\0')
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "docker: %s: the engine's /info gives no %s",
                                     what, podman ? "Name and DockerRootDir" : "ID");
    if (podman)
        snprintf(buf, size, "podman:%s:%s", facts.name, facts.root_dir);
    else
        snprintf(buf, size, "%s", facts.id);
    return SBX_OK;
}

sbx_status docker_reconcile(sbx_backend_instance *inst, const char *sandbox_id,
                            sbx_reconciliation *out, sbx_error *err)
{
    sbx_status st = common_reconcile_start(out, sandbox_id, err);
    if (st != SBX_OK)
        return st;
    char what[96], container_id[DOCKER_CONTAINER_ID_MAX];
    sbx_backend_format(what, sizeof what, "reconciliation of sandbox '%s'", sandbox_id);
    sbx_error cause;
    sbx_backend_error_clear(&cause);
    char name_space[512];
    st = engine_namespace(inst, what, name_space, sizeof name_space, &cause);
    sbx_sandbox *sandbox = NULL;
    int running = 0;
    if (st == SBX_OK)
        st = docker_inspect_container(inst, sandbox_id,
                                      &(docker_inspect_wants){
                                          .to = &(common_answer){ &sandbox, NULL },
                                          .running = &running, .container_id = container_id },
                                      &cause);
    if (st != SBX_OK && st != SBX_ERR_NOT_FOUND)
        DOCKER_LOG(inst, SBX_LOG_WARN, "%s is unknown: %s", what, cause.message);
    else if (!settle_reconciliation(out, st == SBX_OK ? SBX_RECONCILE_FOUND
                                                      : SBX_RECONCILE_ABSENT,
                                    name_space, container_id, sandbox, running))
        DOCKER_LOG(inst, SBX_LOG_WARN, "%s is unknown: out of memory", what);
    return SBX_OK;
}
