/*
 * Talking to a Docker Engine API (Docker, or podman's compatible service)
 * over its unix socket: one call per function, answers classified the same
 * way for both engines (podman's differences: docs/docker.md).
 */
#ifndef SBX_DOCKER_ENGINE_H
#define SBX_DOCKER_ENGINE_H

#include <json-c/json.h>
#include <sbx/backend.h>

#include "common/http_client.h"
#include "plugin/docker/docker_options.h"

/* A connection to the engine.  Thread-safe (the HTTP client is); the
 * strings are borrowed from the instance's options. */
typedef struct sbx_docker_engine {
    sbx_http_client *http;
    const char *api_version;
    long timeout_ms;
} sbx_docker_engine;

/* Open a client for the engine's socket (no request is sent).
 * SBX_ERR_CONFIG / SBX_ERR_INTERNAL from the HTTP client. */
sbx_status sbx_docker_engine_open(sbx_docker_engine *engine, const sbx_docker_options *options,
                                  const sbx_host_services *services, sbx_error *err);

/* Release the client.  Zeroed storage is accepted. */
void sbx_docker_engine_close(sbx_docker_engine *engine);

/* Send `method` to /VERSION`path` (path begins with '/', query already
 * escaped) with an optional JSON body, bounded by the engine timeout plus
 * extra_ms.  Any answer is SBX_OK with *resp filled (released with
 * sbx_http_response_clear); SBX_ERR_TRANSPORT when the engine cannot be
 * reached (the message names the socket path through the client). */
sbx_status sbx_docker_engine_call(sbx_docker_engine *engine, const char *method,
                                  const char *path, const char *json_body, long extra_ms,
                                  sbx_http_response *resp, sbx_error *err);

/* Turn a failed answer into an error: SBX_ERR_NOT_FOUND for 404, else
 * SBX_ERR_PROVISIONER, with the HTTP status and the engine's `message`
 * (or the start of the body).  `what` names the call ("create sandbox
 * 'x'").  Returns the status it set. */
sbx_status sbx_docker_engine_error(const sbx_http_response *resp, const char *what,
                                   sbx_error *err);

/* 1 when the answer says the container name is taken: 409 (Docker), or
 * 500 whose message contains "already in use" (podman). */
int sbx_docker_engine_is_name_conflict(const sbx_http_response *resp);

/* Parse a JSON answer whose top level must be of type `type`; NULL (with
 * SBX_ERR_PROTOCOL naming `what`) otherwise.  The caller puts the result. */
json_object *sbx_docker_engine_parse(const sbx_http_response *resp, json_type type,
                                     const char *what, sbx_error *err);

#endif
