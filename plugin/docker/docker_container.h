/*
 * The containers that are sandboxes: the create body the backend sends, and
 * reading a sandbox back from an inspect answer or a list entry.  A
 * container is a sandbox of ours when it carries the label
 * sbx.managed=true and sbx.sandbox_id equal to its id; identity (thread,
 * user) lives in labels, the URL in the published port.  Pure functions.
 */
#ifndef SBX_DOCKER_CONTAINER_H
#define SBX_DOCKER_CONTAINER_H

#include <json-c/json.h>
#include <sbx/backend.h>

#include "plugin/docker/docker_options.h"

/* Longest container name: prefix (64), '-', sandbox id (51). */
#define DOCKER_NAME_MAX 128

/* Label keys the backend sets. */
#define DOCKER_LABEL_MANAGED "sbx.managed"
#define DOCKER_LABEL_SANDBOX "sbx.sandbox_id"
#define DOCKER_LABEL_THREAD "sbx.thread_id"
#define DOCKER_LABEL_USER "sbx.user_id"

/* The container name PREFIX-ID into `buf` (DOCKER_NAME_MAX bytes). */
void docker_container_name(const docker_options *o, const char *sandbox_id,
                           char *buf, size_t size);

/* The body of POST /containers/create for a validated request: image,
 * labels, env, Cmd (sh -c command), the exposed and published port, Binds
 * for extra mounts, and HostConfig.Init = `init` (0 or 1).  SBX_ERR_USAGE
 * naming a mount whose paths are not absolute or hold ':' or ',';
 * SBX_ERR_INTERNAL when out of memory.  On success *out is the body, freed
 * by the caller. */
sbx_status docker_create_body(const docker_options *o, const sbx_create_request *req,
                              int init, char **out, sbx_error *err);

/* Fill *out from an inspect answer of sandbox `sandbox_id`; *running is
 * State.Running.  SBX_ERR_PROTOCOL when the container is not that managed
 * sandbox or the answer is ill-typed.  The URL is http://BIND_HOST:PORT from
 * the published sandbox port, "" when the container publishes none now
 * (stopped). */
sbx_status docker_sandbox_from_inspect(const docker_options *o, json_object *inspect,
                                       const char *sandbox_id, sbx_sandbox *out,
                                       int *running, sbx_error *err);

/* Why a list entry is not a sandbox of this instance. */
typedef enum docker_skip {
    DOCKER_SKIP_INVALID = 0,      /* bad text, labels or port: a warning */
    DOCKER_SKIP_OTHER_PREFIX = 1  /* managed under another name_prefix: normal */
} docker_skip;

/* The container's "Id" of an inspect answer (hex digits, as both engines
 * make them), or NULL when it has none of that shape.  Borrowed from
 * `inspect`. */
const char *docker_container_id(json_object *inspect);

/* Fill *out from one entry of GET /containers/json.  Returns 0 (and leaves
 * *out empty) when the entry is not a sandbox of this instance (a field
 * with a NUL or invalid UTF-8, foreign name, missing or invalid labels, no
 * published sandbox port); *skip and `why` (`why_size` > 0 bytes) then
 * say which.  -1 when out of memory, 1 on success. */
int docker_sandbox_from_list_entry(const docker_options *o, json_object *entry,
                                   sbx_sandbox *out, docker_skip *skip, char *why,
                                   size_t why_size);

#endif
