/*
 * read_file, write_file, list_dir and remove_path in a local sandbox
 * (ABI 1.3): every path is resolved beneath the sandbox directory
 * (local_confine.h); directories are walked by open descriptors, never
 * following a symbolic link.
 */
#ifndef SBX_LOCAL_FILES_H
#define SBX_LOCAL_FILES_H

#include "plugin/local/local_instance.h"

/* The largest read or write (docs/local.md). */
#define LOCAL_MAX_FILE_BYTES (UINT64_C(256) << 20)      /* 256 MiB */

/* The descriptor's read_file: at most max_bytes (no more than the largest
 * read, LOCAL_MAX_FILE_BYTES) from `offset` of a regular file, read with
 * pread; *out the caller's (common_file_content_free).  A link leading
 * out is SBX_ERR_REFUSED, a directory SBX_ERR_IS_A_DIRECTORY, another
 * kind of file (a FIFO, a socket, a device) SBX_ERR_REFUSED. */
sbx_status local_read_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                           uint64_t offset, uint64_t max_bytes, sbx_file_content **out,
                           sbx_error *err);

/* The descriptor's open_file (ABI 1.6): the file read_file would read
 * (same confinement and errors), open read-only into *fd (the caller's)
 * with its size in *size; a file larger than LOCAL_MAX_FILE_BYTES is
 * SBX_ERR_USAGE. */
sbx_status local_open_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                           int *fd, uint64_t *size, sbx_error *err);

/* The descriptor's write_file: the whole file replaced atomically (a
 * temporary file renamed over it) unless SBX_WRITE_APPEND or
 * SBX_WRITE_EXCLUSIVE; a symbolic link at the path is written through
 * (in place) when it leads to a file in the sandbox, else refused.
 * SBX_ERR_USAGE for more than LOCAL_MAX_FILE_BYTES. */
sbx_status local_write_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                            const void *data, size_t length, unsigned flags, uint32_t mode,
                            sbx_error *err);

/* The descriptor's list_dir: depth first, each directory's entries sorted
 * by name (bytewise), links listed and not entered; at most max_entries,
 * then truncated.  *out the caller's (common_listing_free). */
sbx_status local_list_dir(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                          unsigned max_depth, size_t max_entries, sbx_dir_listing **out,
                          sbx_error *err);

/* The descriptor's remove_path: unlinkat of a file or link; a directory
 * only with SBX_REMOVE_RECURSIVE (local_remove_tree: links removed, not
 * followed; never across a mount).  The sandbox directory itself is
 * SBX_ERR_REFUSED. */
sbx_status local_remove_path(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                             unsigned flags, sbx_error *err);

#endif
