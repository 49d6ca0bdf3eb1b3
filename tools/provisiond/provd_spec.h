/* What sbx-provisiond does with the spec members of a create (image, env,
 * labels, limits, network, expires_at; docs/protocol.md "The create
 * body"): which it advertises (its backend's, and expires_at, which the
 * daemon enforces itself whatever the backend honours), the refusals
 * before anything is created, and the members it adds to its answers. */
#ifndef SBX_PROVD_SPEC_H
#define SBX_PROVD_SPEC_H

#include <json-c/json.h>
#include <sbx/host.h>
#include <stdint.h>

#include "tools/provisioner-common/prov_reply.h"

/* The SBX_CREATE_* bits the daemon honours over `backend`: those its
 * operations_info names, and SBX_CREATE_EXPIRY. */
unsigned provd_spec_fields(sbx_backend *backend);

/* The SBX_CREATE_* bits the backend itself honours (its operations_info's
 * create_fields; 0 when it cannot say). */
unsigned provd_spec_backend_fields(sbx_backend *backend);

/* 200 with the capabilities at mount contract `contract` and
 * "create_fields": the names of provd_spec_fields(backend), and "extend":
 * true (the extend route, provd_extend.h). */
void provd_spec_answer_capabilities(int contract, sbx_backend *backend, prov_reply *reply);

/* Check `req`'s spec members before anything is created: 400 in `reply`
 * naming the member when a value is malformed (common/create_request.h)
 * or the member is not honoured; then 0.  Else 1, with req->expires_at
 * moved to *expires_at (0: none) unless the backend honours expiry too:
 * the daemon keeps it in its record either way. */
int provd_spec_check(sbx_backend *backend, sbx_create_request *req, int64_t *expires_at,
                     prov_reply *reply);

/* `answer` (a sandbox answer, taken) with "labels" (an object, when
 * label_count > 0) and "expires_at" (when not 0) added; NULL when it is
 * NULL or memory ran out. */
json_object *provd_spec_answer(json_object *answer, const sbx_label *labels,
                               size_t label_count, int64_t expires_at);

/* The wall clock in ms since the Unix epoch. */
int64_t provd_spec_now_ms(void);

#endif
