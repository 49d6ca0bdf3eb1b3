/*
 * The remote backend's file operations (ABI 1.3: read, write, list,
 * remove), as a client of each sandbox's AIO API at the sandbox_url the
 * provisioner answers (docs/remote.md "Operations in a sandbox").  Results
 * are built with common/op_results.h and released with its functions.  All
 * are safe on many threads at once.
 */
#ifndef SBX_REMOTE_FILES_H
#define SBX_REMOTE_FILES_H

#include <stdint.h>
#include <sbx/backend.h>

#include "plugin/remote/remote_instance.h"

/* Bound on one file call (read, write, list) and on the calls an operation
 * makes besides its own (write's and remove's checks). */
#define REMOTE_FILE_TIMEOUT_MS 60000L

/* The largest byte a read reaches (skipped bytes stream too) and the
 * largest write, under o->max_response_bytes; at least 1. */
uint64_t remote_max_file_bytes(const remote_options *o);

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

#endif /* SBX_REMOTE_FILES_H */
