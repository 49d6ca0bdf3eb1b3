/*
 * Layout of the local backend's state directory and the cross-process
 * locking of one sandbox.  For sandbox ID under STATE:
 *   STATE/ID/        the sandbox directory (0700)
 *   STATE/ID.json    its metadata (local_metadata.h)
 *   STATE/ID.log     stdout and stderr of its command
 *   STATE/.ID.lock   held (flock) while the sandbox is created or destroyed
 * Ids are validated before a path is built, so none can leave STATE.
 */
#ifndef SBX_LOCAL_STATE_H
#define SBX_LOCAL_STATE_H

#include <limits.h>
#include <sbx/backend.h>

/* The files of one sandbox. */
typedef struct sbx_local_paths {
    char dir[PATH_MAX];
    char metadata[PATH_MAX];
    char log[PATH_MAX];
    char lock[PATH_MAX];
} sbx_local_paths;

/* Fill *out for sandbox `id` (already validated) under `state_dir`.
 * SBX_ERR_CONFIG when the paths do not fit PATH_MAX. */
sbx_status sbx_local_paths_for(const char *state_dir, const char *id,
                               sbx_local_paths *out, sbx_error *err);

/* Take the sandbox's lock (blocking), excluding other threads and
 * processes; *fd is the held lock, released with sbx_local_unlock.
 * SBX_ERR_INTERNAL when the lock file cannot be opened or locked. */
sbx_status sbx_local_lock(const sbx_local_paths *paths, int *fd, sbx_error *err);

/* Release a lock.  With `forget` non-zero the lock file is removed first
 * (destroy): waiters notice the file is gone and lock a fresh one. */
void sbx_local_unlock(const sbx_local_paths *paths, int fd, int forget);

/* 1 when paths->dir exists and is a directory (not a symlink), else 0. */
int sbx_local_dir_exists(const sbx_local_paths *paths);

/* Create the sandbox directory with mode 0700; an existing directory (a
 * create that was interrupted) is reused.  SBX_ERR_INTERNAL otherwise. */
sbx_status sbx_local_make_dir(const sbx_local_paths *paths, sbx_error *err);

/* Remove the sandbox directory with everything in it (symlinks are removed,
 * never followed), its log and its metadata, in that order, so that a failed
 * removal leaves the metadata for a retry.  Absent files are fine.
 * SBX_ERR_INTERNAL naming the first path that could not be removed. */
sbx_status sbx_local_remove_files(const sbx_local_paths *paths, sbx_error *err);

#endif
