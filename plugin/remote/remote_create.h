/*
 * Create (docs/protocol.md "Create request body" and mount-contract rules 2-6):
 * the request body builder, the mount forwarding filter, and the create
 * operation with its contract checks.
 */
#ifndef SBX_REMOTE_CREATE_H
#define SBX_REMOTE_CREATE_H

#include <stddef.h>
#include <sbx/backend.h>

#include "plugin/remote/remote_instance.h"

/* 1 when `mount` is forwarded: its container path is in the allowlist, and it
 * is not the lark-cli runtime mount while either lark-cli provisioning flag is
 * set (the provisioner then supplies the runtime itself). */
int remote_mount_forwarded(const sbx_mount *mount, const char *const *allowlist,
                           size_t allow_count, int lark_runtime, int lark_broker);

/* The read-only mount of a thread's upload conversions, which a
 * contract-2 host sends beside the thread's uploads mount. */
#define REMOTE_UPLOADS_CONTAINER_PATH "/mnt/user-data/uploads"
#define REMOTE_UPLOAD_CONVERSIONS_CONTAINER_PATH "/mnt/user-data/.upload-conversions"

/* The reference client's rules for a forwarded upload-conversions mount:
 * read-only, and its host path (lexically normalised) is the
 * `.upload-conversions` sibling of the uploads mount's host path, which the
 * request must have.  SBX_OK, or SBX_ERR_USAGE naming the rule broken. */
sbx_status remote_check_upload_conversions(const sbx_create_request *req,
                                           const char *const *allowlist,
                                           size_t allow_count, sbx_error *err);

/* The JSON body of POST /api/sandboxes, fields in the reference client's
 * order: sandbox_id, thread_id (null when NULL), user_id, required_mount_
 * contract_version (= frozen_version), include_legacy_skills,
 * provision_lark_cli_runtime, provision_lark_cli_broker, then extra_mounts
 * only when a mount survives the filter, then the 1.5 members the request
 * sets (remote_create_spec_put; none: the reference client's body).  `user_id` is the effective user.
 * Returns a malloc'd string the caller frees, or NULL (SBX_ERR_INTERNAL). */
char *remote_create_body(const sbx_create_request *req, const char *user_id,
                         int frozen_version, const char *const *allowlist,
                         size_t allow_count, sbx_error *err);

/* The create operation (descriptor `create`).  Refuses invalid ids and
 * unisolatable users (SBX_ERR_REFUSED: a user other than "default" while
 * the contract is 0 or unverified, or is 1 and a thread is given; the error
 * carries the known version in actual_contract, -1 when unverified, and the
 * failed probe's cause in its message), enforces the caller's required
 * contract (SBX_ERR_CONTRACT_CHANGED, nothing sent), posts, and validates
 * the answer against the frozen version.  On success *out is one sandbox,
 * released with common_sandbox_records_free(*out, 1). */
sbx_status remote_create(sbx_backend_instance *inst, const sbx_create_request *req,
                         sbx_sandbox **out, sbx_error *err);

/* As remote_create, answering a record (create_record) that carries the
 * request's labels; released with common_records_free. */
sbx_status remote_create_record(sbx_backend_instance *inst, const sbx_create_request *req,
                                sbx_sandbox_record **out, sbx_error *err);

/* The create members (SBX_CREATE_*) the provisioner advertises, after
 * refreshing its capabilities when stale; 0 while they are unverified. */
unsigned remote_create_fields(sbx_backend_instance *inst);

#endif /* SBX_REMOTE_CREATE_H */
