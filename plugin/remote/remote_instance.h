/*
 * An open remote-backend instance: immutable options, a thread-safe HTTP
 * client of the provisioner, the sandboxes' clients and the mount-contract
 * cache.  Every operation may run on many threads at once; nothing here is
 * mutated after open except inside the cache, the sandboxes' table and the
 * clients' handle pools (each locks).
 */
#ifndef SBX_REMOTE_INSTANCE_H
#define SBX_REMOTE_INSTANCE_H

#include <sbx/backend.h>
#include <sbx/backend_support.h>

#include "common/http_client.h"
#include "plugin/remote/remote_address_cache.h"
#include "plugin/remote/remote_contract_cache.h"
#include "plugin/remote/remote_options.h"
#include "plugin/remote/remote_sandbox_clients.h"

struct sbx_backend_instance {
    remote_options options;
    common_http_client *http;
    remote_contract_cache contract;
    remote_sandbox_clients sandboxes;    /* the sandboxes' AIO clients, by URL */
    const sbx_host_services *services;   /* kept alive by the host until close */
    remote_address_cache addresses;      /* where the file calls' sandboxes were found */
};

/* Open an instance (descriptor `open`): parse options, build the client
 * (X-API-Key header only when a key is set) and an empty contract cache.
 * SBX_ERR_CONFIG for bad options, SBX_ERR_INTERNAL for resources. */
sbx_status remote_open(const sbx_option *options, size_t option_count,
                       const sbx_host_services *services,
                       sbx_backend_instance **out, sbx_error *err);

/* Release an instance (descriptor `close`).  NULL is accepted. */
void remote_close(sbx_backend_instance *inst);

/* Log one line through the host's callback (nothing when it has none).
 * Callers never pass the API key. */
#define REMOTE_LOG(inst, level, ...) \
    sbx_backend_log((inst)->services, (level), REMOTE_NAME, __VA_ARGS__)

#endif /* SBX_REMOTE_INSTANCE_H */
