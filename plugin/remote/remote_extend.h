/*
 * The remote backend's extend (ABI 1.5): POST /api/sandboxes/{id}/extend
 * to a provisioner whose capabilities say "extend":true (sbx-provisiond;
 * docs/protocol.md, "Extend"); to one that does not (DeerFlow's has no
 * such route) nothing is sent and the answer is `unsupported` naming why.
 */
#ifndef SBX_REMOTE_EXTEND_H
#define SBX_REMOTE_EXTEND_H

#include "plugin/remote/remote_instance.h"

#include <stddef.h>
#include <stdint.h>

/* 1 when a capabilities answer (`len` bytes) holds "extend":true, else 0.
 * Pure. */
int remote_decode_extend(const char *body, size_t len);

/* The descriptor's extend: move the expiry of `sandbox_id` to
 * `expires_at`.  SBX_ERR_UNSUPPORTED before anything is sent when the
 * provisioner does not advertise the route (or its capabilities are
 * unverified); then the provisioner's answer: SBX_ERR_NOT_FOUND (404),
 * SBX_ERR_USAGE naming expires_at (400, 422), SBX_ERR_REFUSED (409:
 * another owner's), else remote_answer_error's kinds.  Thread-safe. */
sbx_status remote_extend(sbx_backend_instance *inst, const char *sandbox_id, int64_t expires_at,
                         sbx_error *err);

#endif
