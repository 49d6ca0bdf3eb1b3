/*
 * The mount contract of a built-in backend (local, docker): fixed by its
 * code rather than probed, answered by `capabilities` and held against a
 * create's required_contract the way the remote backend holds a
 * provisioner's (docs/protocol.md "The mount contract").
 */
#ifndef SBX_COMMON_MOUNT_CONTRACT_H
#define SBX_COMMON_MOUNT_CONTRACT_H

#include <sbx/backend.h>

/* Contract 2: a sandbox is private to the user and thread it was made for
 * (local: a directory of its own, no mounts; docker: a container of its
 * own that mounts only what its request names). */
#define COMMON_BUILTIN_CONTRACT 2

/* The descriptor's `capabilities` for a built-in backend:
 * COMMON_BUILTIN_CONTRACT, known.  Reads no instance; never fails. */
sbx_status common_builtin_capabilities(sbx_backend_instance *inst, sbx_capabilities *out,
                                       sbx_error *err);

/* SBX_OK when `req` (checked by common_create_request_check) requires no
 * version or COMMON_BUILTIN_CONTRACT; else SBX_ERR_CONTRACT_CHANGED naming
 * `backend` and the sandbox, with expected_contract the version required
 * and actual_contract the backend's. */
sbx_status common_builtin_contract_check(const char *backend, const sbx_create_request *req,
                                         sbx_error *err);

#endif
