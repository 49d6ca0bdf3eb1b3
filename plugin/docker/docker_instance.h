/*
 * A docker backend instance: its immutable options, its thread-safe engine
 * client and what it learns of the engine once (its init binary, its
 * identity).  Everything else is the engine's state, so any number of
 * instances (threads, processes) share the sandboxes.
 */
#ifndef SBX_DOCKER_INSTANCE_H
#define SBX_DOCKER_INSTANCE_H

#include "common/record_chain.h"
#include "common/sandbox_ids.h"
#include "plugin/docker/docker_container.h"
#include "plugin/docker/docker_engine.h"
#include "plugin/docker/docker_kept_reads.h"
#include "plugin/docker/docker_options.h"
#include "plugin/docker/docker_proc_links.h"
#include "plugin/docker/docker_paths.h"
#include <sbx/backend_support.h>

#include <pthread.h>
#include <stdatomic.h>

/* What the instance has learnt of the engine's init binary. */
enum docker_learnt_init {
    DOCKER_LEARNT_INIT_UNASKED = 0,   /* GET /info not sent yet */
    DOCKER_LEARNT_INIT_UNSAID = 1,    /* /info does not say (podman): learnt from a create */
    DOCKER_LEARNT_INIT_PRESENT = 2,
    DOCKER_LEARNT_INIT_ABSENT = 3
};

/* A sandbox's running container as an exec found it (docker_target.c). */
typedef struct docker_kept_target {
    char sandbox_id[COMMON_SANDBOX_ID_MAX + 1];   /* "" for a free slot */
    char container_id[DOCKER_CONTAINER_ID_MAX];
    char working_dir[DOCKER_PATH_MAX];
} docker_kept_target;

/* How many sandboxes' containers an instance keeps for exec. */
#define DOCKER_KEPT_TARGETS 8

struct sbx_backend_instance {
    docker_options options;
    docker_engine engine;
    const sbx_host_services *services;   /* kept alive by the host until close */
    atomic_int engine_init;              /* enum docker_learnt_init; racing learners agree */
    /* Which engine answers (GET /version), learnt once for reconcile and
     * records; `identity` is written once under the lock, then only read. */
    pthread_mutex_t identity_lock;
    int identity_known;
    docker_engine_identity identity;
    /* The containers the last execs ran in, so that the next exec in one
     * skips its inspect: a container's id is never reused and its labels
     * never change, so a kept id names that sandbox's container until it is
     * removed (then the exec's create says so and the sandbox is looked up
     * again).  Under the lock; replaced in turn. */
    pthread_mutex_t kept_lock;
    docker_kept_target kept[DOCKER_KEPT_TARGETS];
    unsigned kept_next;
    docker_kept_reads reads;             /* reads kept open between calls */
    docker_proc_links proc_links;        /* connections to the process servers */
};

#define DOCKER_LOG(inst, level, ...) \
    sbx_backend_log((inst)->services, (level), DOCKER_NAME, __VA_ARGS__)

/* The descriptor's open: parse the options and open the engine client
 * (nothing is sent yet).  SBX_ERR_CONFIG naming a bad option, or
 * SBX_ERR_INTERNAL; *out is the caller's, released with docker_close. */
sbx_status docker_open(const sbx_option *options, size_t option_count,
                       const sbx_host_services *services,
                       sbx_backend_instance **out, sbx_error *err);

/* The descriptor's close; NULL is accepted. */
void docker_close(sbx_backend_instance *inst);

/* The engine's identity, asked once per instance (GET /version); *out
 * stays valid until close. */
sbx_status docker_instance_identity(sbx_backend_instance *inst, const char *what,
                                    const docker_engine_identity **out, sbx_error *err);

/* Name the engine in what a record will say: "docker" or "podman" and its
 * version (NULL when it gave none). */
void docker_instance_name_engine(const docker_engine_identity *engine, common_record_facts *f);

/* For an answer in the shape `to` asks: the engine's identity when it is a
 * record (*engine NULL for a 1.1 answer, which does not name it). */
sbx_status docker_instance_engine_for(sbx_backend_instance *inst, const common_answer *to,
                                      const char *what, const docker_engine_identity **engine,
                                      sbx_error *err);

#endif
