/*
 * An open remote-backend instance: immutable options, a thread-safe HTTP
 * client and the mount-contract cache.  Every operation may run on many
 * threads at once; nothing here is mutated after open except inside the
 * cache (which locks) and the client's handle pool (which locks).
 */
#ifndef SBX_REMOTE_INSTANCE_H
#define SBX_REMOTE_INSTANCE_H

#include <sbx/backend.h>

#include "common/http_client.h"
#include "plugin/remote/remote_contract_cache.h"
#include "plugin/remote/remote_options.h"

/* The name the backend registers and logs under. */
#define REMOTE_NAME "remote"

struct sbx_backend_instance {
    remote_options options;
    common_http_client *http;
    remote_contract_cache contract;
    sbx_log_fn log;
    void *log_ctx;
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
void remote_log(const sbx_backend_instance *inst, sbx_log_level level,
                const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif /* SBX_REMOTE_INSTANCE_H */
