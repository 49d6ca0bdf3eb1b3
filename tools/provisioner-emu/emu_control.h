/* The control API under /_emu/: how tests drive the emulator (reset,
 * contract, faults, holds, request log, stats, long-poll wait, stored
 * sandboxes, Kubernetes failures, Pod phases, half-deleted sandboxes).
 * Never authenticated, never recorded in the request log. */
#ifndef EMU_CONTROL_H
#define EMU_CONTROL_H

#include <stddef.h>

#include "tools/provisioner-emu/emu_context.h"
#include "tools/provisioner-common/prov_reply.h"
#include "tools/provisioner-common/prov_server.h"

/* The control API's path prefix. */
#define EMU_CONTROL_PREFIX "/_emu/"

/* Answer one control request (its path starts with EMU_CONTROL_PREFIX),
 * reading nothing but its method, path, query and body.  May block:
 * /_emu/wait long-polls up to its timeout_ms. */
void emu_control_answer(emu_context *ctx, const prov_request *req, prov_reply *reply);

#endif
