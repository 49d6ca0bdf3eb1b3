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

#include "common/record_chain.h"

#include "plugin/docker/docker_options.h"

/* Longest container name: prefix (64), '-', sandbox id (51). */
#define DOCKER_NAME_MAX 128

/* Longest container ID kept (both engines make 64 hex digits). */
#define DOCKER_CONTAINER_ID_MAX 129

/* Label keys the backend sets. */
#define DOCKER_LABEL_MANAGED "sbx.managed"
#define DOCKER_LABEL_SANDBOX "sbx.sandbox_id"
#define DOCKER_LABEL_THREAD "sbx.thread_id"
#define DOCKER_LABEL_USER "sbx.user_id"
/* The digest of the spec it was made with (common_create_spec_digest). */
#define DOCKER_LABEL_SPEC "sbx.spec"
/* Before each label of the create request (ABI 1.5): "sbx.label.KEY". */
#define DOCKER_LABEL_USER_PREFIX "sbx.label."
/* The create request's expires_at (ABI 1.5), decimal ms since the epoch;
 * extend cannot change it (docker_expiry.h keeps the override). */
#define DOCKER_LABEL_EXPIRES "sbx.expires_at"

/* The members of the create request of ABI 1.5 it honours (SBX_CREATE_*;
 * the network: docker_network.h). */
#define DOCKER_CREATE_FIELDS                                                          \
    (SBX_CREATE_IMAGE | SBX_CREATE_ENV | SBX_CREATE_LABELS | SBX_CREATE_MEMORY |      \
     SBX_CREATE_CPU | SBX_CREATE_PIDS | SBX_CREATE_NETWORK | SBX_CREATE_EXPIRY)

/* The container name PREFIX-ID into `buf` (DOCKER_NAME_MAX bytes). */
void docker_container_name(const docker_options *o, const char *sandbox_id,
                           char *buf, size_t size);

/* The body of POST /containers/create for a validated request (read by
 * common_create_request_read): image (the request's, else the option's),
 * labels (the request's prefixed, its spec digest and its expiry), env (the
 * options', then the request's), Cmd (sh -c command), the exposed and
 * published port, Binds for extra mounts, HostConfig.Init = `init` (0 or
 * 1) and the request's limits (Memory with MemorySwap equal: no swap
 * beyond it; NanoCpus; PidsLimit).  SBX_ERR_USAGE
 * naming a mount whose paths are not absolute or hold ':' or ',';
 * SBX_ERR_INTERNAL when out of memory.  On success *out is the body, freed
 * by the caller. */
sbx_status docker_create_body(const docker_options *o, const sbx_create_request *req,
                              int init, char **out, sbx_error *err);

/* A sandbox as the engine describes it: `facts` borrow from the answer it
 * was read from (valid while that lives) and from the buffers here.  The
 * engine members (engine, engine_version) are left for the caller, which
 * knows the engine. */
typedef struct docker_sandbox_view {
    common_record_facts facts;
    char url[300];
    char status[32];
    char name[DOCKER_NAME_MAX];
    sbx_label labels[SBX_LABELS_MAX];  /* the request's labels it carries (facts.labels) */
    const char *spec;                   /* its sbx.spec label, or NULL */
} docker_sandbox_view;

/* Read an inspect answer of sandbox `sandbox_id` into *view; *running is
 * State.Running.  SBX_ERR_PROTOCOL when the container is not that managed
 * sandbox or the answer is ill-typed.  The URL is http://BIND_HOST:PORT
 * from the published sandbox port, "" when the container publishes none
 * now (stopped).  created_at is Created cut to whole seconds (as the list
 * gives it), unknown when Created is not an RFC 3339 time; container_id
 * and incarnation_id are the container's Id (NULL when it has none of
 * that shape). */
sbx_status docker_view_from_inspect(const docker_options *o, json_object *inspect,
                                    const char *sandbox_id, docker_sandbox_view *view,
                                    int *running, sbx_error *err);

/* Why a list entry is not a sandbox of this instance. */
typedef enum docker_skip {
    DOCKER_SKIP_INVALID = 0,      /* bad text, labels or port: a warning */
    DOCKER_SKIP_OTHER_PREFIX = 1  /* managed under another name_prefix: normal */
} docker_skip;

/* Why a list entry is not a sandbox of this instance: its kind, and a
 * sentence for the skip log. */
typedef struct docker_skip_note {
    docker_skip kind;
    char why[200];
} docker_skip_note;

/* The container's "Id" of an inspect answer or a list entry (hex digits, as both engines
 * make them), or NULL when it has none of that shape.  Borrowed from
 * `inspect`. */
const char *docker_container_id(json_object *inspect);

/* The container Id `id` (NULL accepted) when it has the shape both
 * engines give (1 to 128 lower-case hex digits), else NULL. */
const char *docker_container_id_checked(const char *id);

/* 1 when a Ports item (PrivatePort, PublicPort, Type) publishes the
 * sandbox port of options `o`. */
int docker_port_is_sandbox(const docker_options *o, int private_port, int public_port,
                           const char *type);

/* A list entry's Created (seconds since the epoch) in milliseconds, or
 * SBX_TIME_UNKNOWN when it is not a time after the epoch. */
int64_t docker_created_ms(int64_t seconds);

/* The sbx labels of a container: each the string of its label, or NULL
 * when it is absent or not a string. */
typedef struct docker_labels {
    const char *managed, *sandbox_id, *thread_id, *user_id;
    const char *expires_at;   /* DOCKER_LABEL_EXPIRES */
} docker_labels;

/* What the list rules read of one entry (an object whose strings are all
 * clean text), however a decoder found it; strings borrowed, each the last
 * of its key as json-c keeps it. */
typedef struct docker_list_entry {
    docker_labels labels;     /* from Labels (all NULL when it is not an object) */
    /* 1 when Names is an array holding the string `expected` */
    int (*named)(const void *names, const char *expected);
    const void *names;
    int public_port;          /* of the first Ports item that publishes the sandbox port, or 0 */
    const char *state;        /* State when a string, else NULL */
    const char *id;           /* Id when a string, else NULL */
    int64_t created_ms;       /* docker_created_ms of Created when an integer, else unknown */
} docker_list_entry;

/* docker_view_from_list_entry's rules (after its text check) on the
 * members both list decoders read: the json-c one below and the streaming
 * one (docker_list_stream.h).  Same returns. */
int docker_view_from_list_members(const docker_options *o, const docker_list_entry *entry,
                                  int keep_unaddressed, docker_sandbox_view *view,
                                  docker_skip_note *skip);

/* Read one entry of GET /containers/json (a running container) into
 * *view.  Returns 0 when the entry is not a sandbox of this instance (a
 * field with a NUL or invalid UTF-8, foreign name, missing or invalid
 * labels, and, unless `keep_unaddressed`, no published sandbox port);
 * *skip then says which.  1 when it is:
 * a sandbox without a published port then has the URL "".  created_at is
 * Created (seconds), container_id and incarnation_id its Id. */
int docker_view_from_list_entry(const docker_options *o, json_object *entry,
                                int keep_unaddressed, docker_sandbox_view *view,
                                docker_skip_note *skip);

#endif
