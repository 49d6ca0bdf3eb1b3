/*
 * The remote backend's sandbox operations (ABI 1.3), as a client of each
 * sandbox's AIO API at the sandbox_url the provisioner answers
 * (docs/remote.md "Operations in a sandbox").  Results are built with
 * common/op_results.h and released with its functions.  All are safe on
 * many threads at once.
 */
#ifndef SBX_REMOTE_SANDBOX_OPS_H
#define SBX_REMOTE_SANDBOX_OPS_H

#include <sbx/backend.h>

#include "plugin/remote/remote_instance.h"

/* Exec timeout when the caller gives none, and the largest one taken. */
#define REMOTE_EXEC_DEFAULT_TIMEOUT_MS 60000
#define REMOTE_EXEC_MAX_TIMEOUT_MS (24 * 3600 * 1000)
/* Output kept per stream when the caller gives no cap (or less when
 * max_response_bytes cannot carry it; see remote_sandbox_ops.c). */
#define REMOTE_EXEC_DEFAULT_OUTPUT ((size_t)1024 * 1024)
/* Bound on one file call (read, write, list) and on the calls an operation
 * makes besides its own (write's and remove's checks). */
#define REMOTE_FILE_TIMEOUT_MS 60000L

/* What the operations can do: argv, shell text, read, write, list, remove
 * (no stdin: /v1/bash/exec has none) and their limits. */
sbx_status remote_operations_info(sbx_backend_instance *inst, sbx_operations_info *out,
                                  sbx_error *err);

/* POST /v1/bash/exec.  SBX_ERR_UNSUPPORTED for stdin bytes, for text that
 * is not UTF-8, and for a sandbox without the route (AIO < 1.9.3). */
sbx_status remote_exec(sbx_backend_instance *inst, const char *sandbox_id,
                       const sbx_exec_request *request, sbx_exec_result **out, sbx_error *err);

/* GET /v1/file/download, keeping bytes [offset, offset + max_bytes) while
 * they stream and stopping the transfer past them. */
sbx_status remote_read_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                            uint64_t offset, uint64_t max_bytes, sbx_file_content **out,
                            sbx_error *err);

/* A checking exec (parent, EXCLUSIVE, MKDIRS, the new file's mode), then
 * POST /v1/file/write with the bytes as base64. */
sbx_status remote_write_file(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *path, const void *data, size_t length, unsigned flags,
                             uint32_t mode, sbx_error *err);

/* POST /v1/file/list. */
sbx_status remote_list_dir(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                           unsigned max_depth, size_t max_entries, sbx_dir_listing **out,
                           sbx_error *err);

/* An exec of rm on the single-quoted path, after checks that tell the
 * error kinds apart. */
sbx_status remote_remove_path(sbx_backend_instance *inst, const char *sandbox_id,
                              const char *path, unsigned flags, sbx_error *err);

#endif /* SBX_REMOTE_SANDBOX_OPS_H */
