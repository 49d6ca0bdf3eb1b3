/*
 * Layout of the local backend's state directory and the cross-process
 * locking of one sandbox.  For sandbox ID under STATE:
 *   STATE/.sbx-local-state  marker: this directory belongs to the backend
 *   STATE/ID/        the sandbox directory (0700)
 *   STATE/ID.json    its metadata (local_metadata.h)
 *   STATE/.ID.json.tmp  the metadata being written
 *   STATE/ID.log     stdout and stderr of its command
 *   STATE/.ID.lock   held (flock) while the sandbox is created or destroyed
 *   STATE/.ID.tomb   the record of a sandbox being destroyed (local_tomb.h)
 *   STATE/.ID.disk   the image of its disk (local_disk.h)
 *   STATE/.sbx-local-disks  held (flock) while a create allocates a disk
 * Ids are validated before a path is built, so none can leave STATE.
 */
#ifndef SBX_LOCAL_STATE_H
#define SBX_LOCAL_STATE_H

#include <limits.h>
#include <sbx/backend.h>

#include "common/sandbox_ids.h"

/* The files of one sandbox. */
typedef struct local_paths {
    const char *state_dir;             /* borrowed from the options */
    char id[COMMON_SANDBOX_ID_MAX + 1];
    char dir[PATH_MAX];
    char metadata[PATH_MAX];
    char metadata_tmp[PATH_MAX];
    char log[PATH_MAX];
    char lock[PATH_MAX];
    char tomb[PATH_MAX];
} local_paths;

/* Fill *out for sandbox `id` (already validated) under `state_dir`, which
 * *out borrows.  SBX_ERR_CONFIG when the paths do not fit PATH_MAX. */
sbx_status local_paths_for(const char *state_dir, const char *id,
                           local_paths *out, sbx_error *err);

/* Make sure `state_dir` (an existing directory) is the backend's own: it
 * holds the marker file, or it is empty and the marker is written now.
 * SBX_ERR_CONFIG naming the directory when it holds anything else but no
 * marker (a directory named by mistake, such as $HOME), or when the marker
 * cannot be written. */
sbx_status local_claim_state_dir(const char *state_dir, sbx_error *err);

/* Take the sandbox's lock, excluding other threads and processes, waiting
 * at most timeout_ms for its holder; *fd is the held lock, released with
 * local_unlock.  The holder's pid is written into the lock file, so
 * that a waiter that gives up can name it: SBX_ERR_TRANSPORT naming the id
 * and that pid at the deadline; SBX_ERR_INTERNAL when the lock file cannot
 * be opened or locked. */
sbx_status local_lock(const local_paths *paths, long timeout_ms, int *fd,
                      sbx_error *err);

/* Release a lock.  With `forget` non-zero the lock file is removed first
 * (destroy): waiters notice the file is gone and lock a fresh one. */
void local_unlock(const local_paths *paths, int fd, int forget);

/* 1 when paths->dir exists and is a directory (not a symlink), else 0. */
int local_dir_exists(const local_paths *paths);

/* The sandbox's directory or log path when it exists although no record
 * describes it (something sbx did not make), else NULL. */
const char *local_unowned_entry(const local_paths *paths);

/* Create the sandbox directory with mode 0700.  SBX_ERR_INTERNAL when it
 * cannot be made, an existing one included: it is not ours to reuse. */
sbx_status local_make_dir(const local_paths *paths, sbx_error *err);

/* Create the sandbox's log for appending (O_EXCL, O_NOFOLLOW: never an
 * existing file or a symlink's target); *fd is close-on-exec.
 * SBX_ERR_INTERNAL naming the path otherwise. */
sbx_status local_open_log(const local_paths *paths, int *fd, sbx_error *err);

/* Remove what a record describes: the sandbox directory with everything in
 * it when `with_dir` (local_remove.h: symlinks removed, never followed;
 * never across a mount), the log when `with_log`, a temporary metadata
 * file a killed writer left, then the record file `record` (paths->metadata
 * or paths->tomb), in that order, so that a failed removal leaves the
 * record for a retry.  Absent files are fine.  SBX_ERR_INTERNAL naming the
 * first path that could not be removed (or the mount point met). */
sbx_status local_remove_files(const local_paths *paths, int with_dir, int with_log,
                              const char *record, sbx_error *err);

#endif
