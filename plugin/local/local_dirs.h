/*
 * list_dir and remove_path in a local sandbox (ABI 1.3): directories are
 * opened beneath the sandbox directory (local_confine.h) and walked by
 * open descriptors, never following a symbolic link.
 */
#ifndef SBX_LOCAL_DIRS_H
#define SBX_LOCAL_DIRS_H

#include "plugin/local/local_instance.h"

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
