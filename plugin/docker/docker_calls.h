/*
 * The engine calls on one sandbox's container that create, destroy,
 * discover and reconcile share: inspect it, start or stop it, remove it.
 */
#ifndef SBX_DOCKER_CALLS_H
#define SBX_DOCKER_CALLS_H

#include "plugin/docker/docker_instance.h"

/* One request on a sandbox's container: METHOD /containers/NAME<action><query>,
 * which may take extra_ms beyond the call timeout. */
typedef struct docker_container_call {
    const char *method;   /* "POST", "DELETE" */
    const char *action;   /* "/start", "/stop", or "" for the container itself */
    const char *query;    /* "" or "?...", at most 32 bytes */
    long extra_ms;
} docker_container_call;

/* GET the inspect answer of the container of sandbox `id` (the caller
 * puts *out).  SBX_ERR_NOT_FOUND for 404; transport, protocol and engine
 * errors naming `what` otherwise. */
sbx_status docker_inspect_json(sbx_backend_instance *inst, const char *id, const char *what,
                               json_object **out, sbx_error *err);

/* What an inspect of a sandbox's container is to read back (every
 * pointer the caller's). */
typedef struct docker_inspect_wants {
    const common_answer *to;                 /* the sandbox answered as it asks, or NULL */
    const docker_engine_identity *engine;    /* NULL, or the engine a record names */
    int *running;                            /* State.Running */
    char *container_id;                      /* NULL, or DOCKER_CONTAINER_ID_MAX bytes */
    char *spec;                              /* NULL, or COMMON_SPEC_DIGEST_SIZE bytes: its
                                              * sbx.spec label ("" when it has none) */
} docker_inspect_wants;

/* Inspect the container of `id` and read back what `wants` asks.
 * SBX_ERR_NOT_FOUND for 404; transport, protocol and engine errors
 * otherwise. */
sbx_status docker_inspect_container(sbx_backend_instance *inst, const char *id,
                                    const docker_inspect_wants *wants, sbx_error *err);

/* docker_inspect_container without the container's ID. */
sbx_status docker_inspect_sandbox(sbx_backend_instance *inst, const char *id,
                                  const common_answer *to,
                                  const docker_engine_identity *engine, int *running,
                                  sbx_error *err);

/* Make `call` on the container of sandbox `id` (`container_id`: that very
 * container, NULL: whichever holds the sandbox's name): 2xx done, 304
 * already so; else the engine's error (SBX_ERR_NOT_FOUND for 404). */
sbx_status docker_container_action(sbx_backend_instance *inst, const char *id,
                                   const char *container_id, const docker_container_call *call,
                                   sbx_error *err);

/* Force-remove the container of sandbox `id` (`container_id`: that very
 * container, NULL: whichever holds the sandbox's name); SBX_ERR_NOT_FOUND
 * when there is none. */
sbx_status docker_remove_container(sbx_backend_instance *inst, const char *id,
                                   const char *container_id, sbx_error *err);

#endif
