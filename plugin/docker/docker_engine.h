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

/* Bytes of an operation's name in messages ("read_file in sandbox 'ID'"). */
#define DOCKER_WHAT_MAX 160

/* A connection to the engine.  Thread-safe (the HTTP client is); the
 * strings are borrowed from the instance's options. */
typedef struct docker_engine {
    common_http_client *http;
    const char *socket_path;
    const char *api_version;
    long timeout_ms;
} docker_engine;

/* Open a client for the engine's socket (no request is sent).
 * SBX_ERR_CONFIG / SBX_ERR_INTERNAL from the HTTP client. */
sbx_status docker_engine_open(docker_engine *engine, const docker_options *options,
                              const sbx_host_services *services, sbx_error *err);

/* Release the client.  Zeroed storage is accepted. */
void docker_engine_close(docker_engine *engine);

/* Send `call` to the engine: call->path (begins with '/', query already
 * escaped) goes under /VERSION, and call->timeout_ms is the time the call
 * may take beyond the engine's timeout (0 for most calls); a sink gets its
 * answer's body as common_http_perform says.  Any answer is SBX_OK with
 * *resp filled (released with common_http_response_clear);
 * SBX_ERR_TRANSPORT when the engine cannot be reached or does not answer in
 * time: the message names `what` (the operation and sandbox, "inspect of
 * sandbox 'x'"), the socket path and why (the connect error, or the
 * timeout); SBX_ERR_INTERNAL for memory or a sink that stopped. */
sbx_status docker_engine_call(docker_engine *engine, const common_http_call *call,
                              const char *what, common_http_response *resp, sbx_error *err);

/* Turn a failed answer into an error: `kind_404` for a 404 (SBX_ERR_NOT_FOUND
 * where the path names a sandbox's container, SBX_ERR_PROVISIONER where a
 * 404 means something else, such as a missing image), else
 * SBX_ERR_PROVISIONER, with the HTTP status and the engine's `message` (or
 * the start of the body).  `what` names the call ("create of sandbox
 * 'x'").  Returns the kind it set. */
sbx_status docker_engine_error(const common_http_response *resp, const char *what,
                               sbx_status kind_404, sbx_error *err);

/* 1 when the answer says the container name is taken: 409 (Docker), or
 * 500 whose message contains "already in use" (podman). */
int docker_engine_is_name_conflict(const common_http_response *resp);

/* 1 when the answer refuses a create because the engine has no init
 * binary (podman without catatonit: 500 "container-init binary not
 * found"). */
int docker_engine_is_init_missing(const common_http_response *resp);

/* Whether the engine says it has an init binary (GET /info). */
typedef enum docker_engine_init {
    DOCKER_ENGINE_INIT_UNSAID = 0, /* the engine does not say (podman) */
    DOCKER_ENGINE_INIT_YES = 1,    /* Docker: InitBinary runs */
    DOCKER_ENGINE_INIT_NO = 2      /* Docker: InitCommit.ID "N/A" */
} docker_engine_init;

/* What GET /info says of the engine. */
typedef struct docker_engine_facts {
    docker_engine_init init;
    char id[128];        /* the engine's ID ("" when it gives none or an odd one) */
    char version[64];    /* ServerVersion ("" when none) */
    char name[128];      /* Name: the engine's host name ("" when none) */
    char root_dir[256];  /* DockerRootDir: its storage ("" when none) */
} docker_engine_facts;

/* GET /info into *facts (strings that are not printable ASCII words are
 * left "").  Transport, engine and protocol errors name `what`. */
sbx_status docker_engine_info(docker_engine *engine, const char *what,
                              docker_engine_facts *facts, sbx_error *err);

/* What GET /version says of the engine. */
typedef struct docker_engine_identity {
    int is_podman;       /* 1 when a component is podman's ("Podman Engine"), else 0 */
    char version[64];    /* its Version, e.g. "20.10.24" or "4.3.1" ("" when none) */
} docker_engine_identity;

/* GET /version into *identity (a version that is not a printable ASCII
 * word is left "").  Errors as docker_engine_info. */
sbx_status docker_engine_identify(docker_engine *engine, const char *what,
                                  docker_engine_identity *identity, sbx_error *err);

/* The error of an answer that is not JSON or whose top level is not of
 * `type`: SBX_ERR_PROTOCOL naming `what`.  Returns it. */
sbx_status docker_engine_wrong_answer(const char *what, json_type type, sbx_error *err);

/* Parse a JSON answer whose top level must be of type `type`; NULL (with
 * SBX_ERR_PROTOCOL naming `what`) otherwise.  An object answer must hold
 * only valid text (docker_json_text_ok: SBX_ERR_PROTOCOL naming the
 * field); the entries of an array answer are the caller's to check (a
 * list skips a bad entry).  The caller puts the result. */
json_object *docker_engine_parse(const common_http_response *resp, json_type type,
                                 const char *what, sbx_error *err);

#endif
