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

/* What the handlers share.  Built before the server starts; every member
 * stays fixed while it runs (the backend and the records lock themselves). */
typedef struct provd_service {
    sbx_backend *backend;
    const char *backend_name;
    provd_owners *owners;
    int contract;               /* the mount contract the daemon serves */
    const char *mount_base;     /* extra mounts' host paths must lie under it */
} provd_service;

/* The mount contract to serve over `backend`: the backend's own when it
 * has one (a chained remote backend: its version when known, at most 2,
 * else 0); 2 for the backends known to isolate users (local: a private
 * directory per sandbox and no mounts; docker: a container per sandbox
 * that mounts only what its request names); 0 (legacy: clients serve only
 * the user "default") for any other module, which promises nothing. */
int provd_service_contract(sbx_backend *backend);

/* The server hooks that answer with `service` (which must outlive the
 * server). */
prov_handlers provd_service_handlers(provd_service *service);

#endif
