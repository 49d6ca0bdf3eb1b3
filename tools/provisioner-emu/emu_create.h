/* Validation of a create request body, answering as the real provisioner's
 * FastAPI/pydantic 2 layer does: 422 with a list of errors for the body's
 * shape.  (The provisioner's own mount rules are emu_mounts.h.) */
#ifndef SBX_EMU_CREATE_H
#define SBX_EMU_CREATE_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#include "tools/provisioner-emu/emu_reply.h"

/* A well-formed create request.  The strings and `extra_mounts` point into
 * `root`, which the struct owns (release with sbx_emu_create_request_clear). */
typedef struct sbx_emu_create_request {
    json_object *root;
    const char *sandbox_id;
    const char *thread_id;          /* NULL: absent or null */
    const char *user_id;            /* "default" when absent */
    int has_required_version;       /* required_mount_contract_version was an integer */
    int64_t required_version;
    json_object *extra_mounts;      /* NULL when absent; else a well-typed array */
} sbx_emu_create_request;

/* Parse and validate `body` (`len` bytes) sent with Content-Type
 * `content_type` (NULL when none).  Returns 1 with *out filled, or 0 with
 * `reply` holding the 422 answer. */
int sbx_emu_create_parse(const char *body, size_t len, const char *content_type,
                         sbx_emu_create_request *out, sbx_emu_reply *reply);

/* Release what a parsed request holds. */
void sbx_emu_create_request_clear(sbx_emu_create_request *request);

#endif
