/*
 * The container an operation (exec, the file calls) acts on: the running
 * container of a sandbox of ours, found by one inspect, with the
 * directory relative paths start from.
 */
#ifndef SBX_DOCKER_TARGET_H
#define SBX_DOCKER_TARGET_H

#include "plugin/docker/docker_calls.h"
#include "plugin/docker/docker_paths.h"

typedef struct docker_target {
    const char *sandbox_id;                         /* borrowed from the caller */
    char container_id[DOCKER_CONTAINER_ID_MAX];
    char working_dir[DOCKER_PATH_MAX];              /* Config.WorkingDir, "/" when empty */
    char what[DOCKER_WHAT_MAX];                     /* "OP in sandbox 'ID'", for messages */
    int kept;                                       /* from the instance's kept ones, unchecked */
} docker_target;

/* Find the running container of sandbox `sandbox_id` for operation `op`
 * ("exec", "read_file"...).  SBX_ERR_NOT_FOUND ("sandbox gone") when it
 * is absent or not running; SBX_ERR_REFUSED for an invalid id; protocol
 * errors for a container of that name that is not our sandbox; transport
 * and engine errors as every call. */
sbx_status docker_target_find(sbx_backend_instance *inst, const char *sandbox_id, const char *op,
                              docker_target *t, sbx_error *err);

/* docker_target_find for exec: a container the instance kept for the
 * sandbox (t->kept 1: not asked of the engine, it may be gone since), else
 * the engine's answer, then kept.  An exec whose create finds a kept
 * container gone calls docker_target_forget and asks again. */
sbx_status docker_target_find_kept(sbx_backend_instance *inst, const char *sandbox_id,
                                   const char *op, docker_target *t, sbx_error *err);

/* Drop the kept container of t's sandbox (when it is still t's). */
void docker_target_forget(sbx_backend_instance *inst, const docker_target *t);

/* `path` made absolute from the target's working directory and cleaned
 * into `out` (DOCKER_PATH_MAX bytes); SBX_ERR_USAGE for an empty or too
 * long path. */
sbx_status docker_target_path(const docker_target *t, const char *path, char *out,
                              sbx_error *err);

/* The "sandbox gone" error of the target. */
sbx_status docker_target_gone(const docker_target *t, sbx_error *err);

#endif
