/* The members of a create body beyond the reference provisioner's
 * (docs/protocol.md "The create body": image, env, labels, the limits,
 * network, expires_at), read into the ABI 1.5 members of an
 * sbx_create_request.  Only their JSON types are checked here; their
 * values are the host library's to judge (common/create_request.h), so
 * that every backend refuses the same values with the same words. */
#ifndef PROV_CREATE_SPEC_H
#define PROV_CREATE_SPEC_H

#include <stddef.h>
#include <json-c/json.h>
#include <sbx/backend.h>

#include "tools/provisioner-common/prov_reply.h"

/* The arrays a read request points to.  Their strings point into the
 * body's JSON tree, which must outlive them; release with
 * prov_create_spec_clear. */
typedef struct prov_create_spec {
    sbx_env_var *env;
    sbx_label *labels;
} prov_create_spec;

/* Read the members of body `root` (an object) into `req`'s ABI 1.5
 * members (an absent or null member leaves its default), the arrays into
 * *spec.  Returns 1, or 0 with `reply` holding a 422 whose detail names
 * the member and what it must be (or the out-of-memory answer); *spec is
 * then empty. */
int prov_create_spec_read(json_object *root, sbx_create_request *req, prov_create_spec *spec,
                          prov_reply *reply);

/* Release the arrays of *spec and zero it. */
void prov_create_spec_clear(prov_create_spec *spec);

/* The wire value of an sbx_network: "none", "egress", or NULL for the
 * default (not sent). */
const char *prov_network_name(sbx_network network);

#endif
