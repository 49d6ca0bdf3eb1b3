/* sbx-provisiond's extend route, POST /api/sandboxes/{id}/extend with
 * {"expires_at":MS} (and, optionally, the "user_id" and "thread_id" the
 * sandbox must belong to): moves the expiry of the daemon's record and,
 * when the backend honours expiry, the backend's (sbx_backend_extend).
 * Advertised by "extend":true in the capabilities (provd_spec.c);
 * docs/protocol.md, "Extend". */
#ifndef SBX_PROVD_EXTEND_H
#define SBX_PROVD_EXTEND_H

#include "tools/provisioner-common/prov_server.h"
#include "tools/provisiond/provd_service.h"

/* When `req` is a request of the extend route, answer it into `reply`
 * and return 1; else 0 (`reply` untouched).  Thread-safe: the id's lock
 * is held across the backend's call and the record's write. */
int provd_extend_answer(provd_service *svc, const prov_request *req, prov_reply *reply);

#endif
