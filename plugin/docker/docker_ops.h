/* The docker backend's operations on existing sandboxes: destroy,
 * is_alive, discover and reconcile, each a few engine calls (the lists:
 * docker_list.h). */
#ifndef SBX_DOCKER_OPS_H
#define SBX_DOCKER_OPS_H

#include "plugin/docker/docker_instance.h"

/* Stop (with the stop_grace_s grace) and remove the sandbox's container;
 * one that is gone already is SBX_OK.  A container that only carries our
 * name is never touched. */
sbx_status docker_destroy(sbx_backend_instance *inst, const char *sandbox_id,
                          sbx_error *err);

/* *alive: the sandbox's container runs (0 when there is none). */
sbx_status docker_is_alive(sbx_backend_instance *inst, const char *sandbox_id,
                           int *alive, sbx_error *err);

/* The sandbox (an array of one, the caller's), SBX_ERR_NOT_FOUND when the
 * engine has no container of ours by that name. */
sbx_status docker_discover(sbx_backend_instance *inst, const char *sandbox_id,
                           sbx_sandbox **out, sbx_error *err);

/* docker_discover answered as a record naming the engine (ABI 1.2). */
sbx_status docker_discover_record(sbx_backend_instance *inst, const char *sandbox_id,
                                  sbx_sandbox_record **out, sbx_error *err);

/* found: the engine's identity (engine_namespace) is the namespace, the
 * container's ID the incarnation; absent: the engine says no container of that name
 * exists; unknown: anything else (logged at WARN), including a container
 * of that name that is not our sandbox. */
sbx_status docker_reconcile(sbx_backend_instance *inst, const char *sandbox_id,
                            sbx_reconciliation *out, sbx_error *err);

#endif
