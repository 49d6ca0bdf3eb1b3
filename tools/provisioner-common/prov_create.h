/* Validation of a create request body, answering as the real provisioner's
 * FastAPI/pydantic 2 layer does: 422 with a list of errors for the body's
 * shape.  (The provisioner's own mount rules are prov_mounts.h.) */
#ifndef PROV_CREATE_H
#define PROV_CREATE_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "tools/provisioner-common/prov_reply.h"

/* A well-formed create request.  The strings and `extra_mounts` point into
 * `root`, which the struct owns (release with prov_create_request_clear). */
typedef struct prov_create_request {
    json_object *root;
    const char *sandbox_id;
    const char *thread_id;          /* NULL: absent or null */
    const char *user_id;            /* "default" when absent */
    int has_required_version;       /* required_mount_contract_version was an integer */
    int64_t required_version;
    json_object *extra_mounts;      /* NULL when absent; else a well-typed array */
} prov_create_request;

/* Parse and validate `body` (`len` bytes) sent with Content-Type
 * `content_type` (NULL when none).  With `strict_ids`, also what the real
 * provisioner leaves to Kubernetes and the sbx backends refuse: sandbox_id
 * must be a DNS label of at most 51 characters and user_id at most 64
 * characters (PROV_*_PATTERN), reported in the same list.  Returns 1
 * with *out filled, or 0 with `reply` holding the 422 answer. */
int prov_create_parse(const char *body, size_t len, const char *content_type,
                          int strict_ids, prov_create_request *out,
                          prov_reply *reply);

/* The sandbox ids the sbx backends accept (common/sandbox_ids.h), and the
 * user ids under `strict_ids`, as patterns in 422 messages. */
#define PROV_SANDBOX_ID_PATTERN "^[a-z0-9]([-a-z0-9]{0,49}[a-z0-9])?$"
#define PROV_STRICT_USER_ID_PATTERN "^[A-Za-z0-9_-]{1,64}$"

/* 1 when `id` (a path's {id}) is an id the sbx backends accept; else 0
 * with `reply` holding the 422 answer for it, as FastAPI words a path
 * parameter that fails its pattern (loc ["path","sandbox_id"]). */
int prov_path_id_valid(const char *id, prov_reply *reply);

/* Release what a parsed request holds. */
void prov_create_request_clear(prov_create_request *request);

#endif
