/*
 * The remote backend's other operations (descriptor members), each one HTTP
 * call.  All are safe on many threads at once.
 */
#ifndef SBX_REMOTE_OPS_H
#define SBX_REMOTE_OPS_H

#include <stddef.h>
#include <sbx/backend.h>

#include "plugin/remote/remote_instance.h"

/* DELETE /api/sandboxes/{id}; 200 and 404 are success. */
sbx_status remote_destroy(sbx_backend_instance *inst, const char *sandbox_id,
                          sbx_error *err);

/* GET /api/sandboxes/{id}: *alive 1 for status "Running", 0 for another
 * status or a 404; transport and other statuses are errors, and so is an
 * answer whose sandbox_id names another sandbox (SBX_ERR_PROTOCOL). */
sbx_status remote_is_alive(sbx_backend_instance *inst, const char *sandbox_id,
                           int *alive, sbx_error *err);

/* GET /api/sandboxes/{id}: SBX_ERR_NOT_FOUND on 404, and for a sandbox made
 * under another mount contract than the provisioner's current one (>= 1),
 * which is not reused.  *out is one sandbox. */
sbx_status remote_discover(sbx_backend_instance *inst, const char *sandbox_id,
                           sbx_sandbox **out, sbx_error *err);

/* GET /api/sandboxes (see remote_decode_list for what is skipped). */
sbx_status remote_list_running(sbx_backend_instance *inst, sbx_sandbox **out,
                               size_t *count, sbx_error *err);

/* The mount contract now (probing if stale); never fails for a failed probe. */
sbx_status remote_capabilities(sbx_backend_instance *inst, sbx_capabilities *out,
                               sbx_error *err);

/* GET /api/reconciliation/sandboxes/{id}: SBX_OK with found/absent/unknown;
 * errors only for an invalid id (SBX_ERR_REFUSED) or memory. */
sbx_status remote_reconcile(sbx_backend_instance *inst, const char *sandbox_id,
                            sbx_reconciliation *out, sbx_error *err);

#endif /* SBX_REMOTE_OPS_H */
