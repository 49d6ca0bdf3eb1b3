/* The provisioner routes of sbx-provisiond, carried out with an sbx
 * backend: create, get, delete, list, capabilities and reconciliation
 * answered as the real provisioner answers them (shared answers and
 * validation: tools/provisioner-common), with the daemon's own ownership
 * records (provd_owners.h) where the backend cannot tell. */
#ifndef SBX_PROVD_SERVICE_H
#define SBX_PROVD_SERVICE_H

#include <sbx/host.h>

#include "tools/provisioner-common/prov_server.h"
#include "tools/provisiond/provd_owners.h"
#include "tools/provisiond/provd_sandbox_api.h"

/* What the handlers share.  Built before the server starts; every member
 * stays fixed while it runs (the backend and the records lock themselves). */
typedef struct provd_service {
    sbx_backend *backend;
    const char *backend_name;
    provd_owners *owners;
    int contract;               /* the mount contract the daemon serves */
    const char *mount_base;     /* extra mounts' host paths must lie under it */
    provd_sandbox_api *api;     /* the sandboxes' URLs and their AIO routes;
                                 * NULL: none (a backend without operations) */
} provd_service;

/* The mount contract to serve over `backend`: the one its capabilities
 * answer, at most 2 (local and docker: 2; a chained remote: the
 * provisioner's version); 0 (legacy: clients serve only the user
 * "default") when it has no capabilities, or its probe fails or knows no
 * version: such a backend promises nothing.  Never a choice by name. */
int provd_service_contract(sbx_backend *backend);

/* Destroy sandbox `id` when its record says it is past its expiry (the
 * reaper, and a get that finds it so), answering into `reply` as a DELETE
 * does.  Returns 1 when it tried (or could not take the id's lock: the
 * reason is in `reply`), 0 when the sandbox is not due (`reply` untouched). */
int provd_service_expire(provd_service *svc, const char *id, prov_reply *reply);

/* A backend error as the protocol's status and a JSON detail naming the
 * cause, into `reply` (a failure to reach the engine is a 5xx, never 404). */
void provd_service_answer_error(const sbx_error *err, prov_reply *reply);

/* Take the lock of `id` for a change (provd_owners_lock), unless its
 * record file could not be read at start-up.  Returns 1 with the lock
 * held, or 0 with the answer (409, or out of memory) in `reply`. */
int provd_service_lock_for_change(provd_service *svc, const char *id, prov_reply *reply);

/* The server hooks that answer with `service` (which must outlive the
 * server): the protocol's routes, and the sandbox API under /s/. */
prov_handlers provd_service_handlers(provd_service *service);

#endif
