/* The control API under /_emu/: how tests drive the emulator (reset,
 * contract, faults, holds, request log, stats, long-poll wait, stored
 * sandboxes, Kubernetes failures, Pod phases, half-deleted sandboxes).
 * Never authenticated, never recorded in the request log. */
#ifndef EMU_CONTROL_H
#define EMU_CONTROL_H

#include <stddef.h>

#include "tools/provisioner-emu/emu_context.h"
#include "tools/provisioner-common/prov_reply.h"

/* The control API's path prefix. */
#define EMU_CONTROL_PREFIX "/_emu/"

/* Looks up a query-string argument of the request; NULL when absent. */
typedef const char *(*emu_query_fn)(void *query_ctx, const char *name);

/* Answer one control request (`path` starts with EMU_CONTROL_PREFIX).
 * May block: /_emu/wait long-polls up to its timeout_ms. */
void emu_control_answer(emu_context *ctx, const char *method, const char *path,
                            emu_query_fn query, void *query_ctx, const char *body,
                            size_t body_len, prov_reply *reply);

#endif
