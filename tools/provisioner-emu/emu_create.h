/* Validation of a create request body, answering as the reference's
 * FastAPI/pydantic layer does: 422 with a list of errors for the body's
 * shape, then 400 with a string detail for the extra mounts. */
#ifndef SBX_EMU_CREATE_H
#define SBX_EMU_CREATE_H

#include <stddef.h>
#include <json-c/json.h>

#include "tools/provisioner-emu/emu_reply.h"

/* A valid create request.  The strings point into `root`, which the struct
 * owns (release with sbx_emu_create_request_clear). */
typedef struct sbx_emu_create_request {
    json_object *root;
    const char *sandbox_id;
    const char *thread_id;          /* NULL: null (anonymous) */
    const char *user_id;            /* "default" when absent */
    int has_required_version;       /* required_mount_contract_version was an integer */
    int required_version;
} sbx_emu_create_request;

/* Parse and validate `body` (`len` bytes).  Returns 1 with *out filled, or
 * 0 with `reply` holding the 422/400 answer. */
int sbx_emu_create_parse(const char *body, size_t len, sbx_emu_create_request *out,
                         sbx_emu_reply *reply);

/* Release what a parsed request holds. */
void sbx_emu_create_request_clear(sbx_emu_create_request *request);

#endif
