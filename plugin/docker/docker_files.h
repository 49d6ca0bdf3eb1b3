/*
 * The file operations of ABI 1.3 on a sandbox's container: reads and
 * listings through the archive API (docker_archive.h), writes as a
 * one-member archive, appends, parent directories and removals as
 * commands in the container (docker_exec.h) whose paths are argv
 * elements, never shell text.  Relative paths start from the container's
 * WorkingDir.  docs/docker.md "Operations" says what each error means.
 */
#ifndef SBX_DOCKER_FILES_H
#define SBX_DOCKER_FILES_H

#include "plugin/docker/docker_instance.h"

/* The descriptor's read_file: symbolic links followed (at most 8). */
sbx_status docker_read_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                            uint64_t offset, uint64_t max_bytes, sbx_file_content **out,
                            sbx_error *err);

/* The descriptor's write_file. */
sbx_status docker_write_file(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *path, const void *data, size_t length, unsigned flags,
                             uint32_t mode, sbx_error *err);

/* The descriptor's list_dir: a symbolic link given as `path` is
 * followed, links under it are listed. */
sbx_status docker_list_dir(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                           unsigned max_depth, size_t max_entries, sbx_dir_listing **out,
                           sbx_error *err);

/* The descriptor's remove_path. */
sbx_status docker_remove_path(sbx_backend_instance *inst, const char *sandbox_id,
                              const char *path, unsigned flags, sbx_error *err);

#endif
