/*
 * Destroy as one step for every observer.  A destroy first renames the
 * sandbox's record STATE/ID.json to its tomb STATE/.ID.tomb: from that
 * rename on no reader (discover, is_alive, list, reconcile) and no create
 * finds the sandbox.  Only once the rename is durable (fsync of the state
 * directory) is the process the tomb names stopped and are the files it
 * describes removed, the tomb last.  A destroy cut short (killed, or
 * stopped at a mount point) leaves the tomb; the next destroy or create of
 * the id, a list, or an open of the backend finishes it.
 * Every function but local_tomb_entry_id touches the files of one sandbox
 * and so needs its lock (local_state.h): held by the caller, or taken
 * here.
 */
#ifndef SBX_LOCAL_TOMB_H
#define SBX_LOCAL_TOMB_H

#include <stddef.h>

#include <sbx/backend.h>

#include "plugin/local/local_state.h"

/* Tomb the record of paths->id: rename STATE/ID.json to STATE/.ID.tomb.
 * The caller holds the lock and has read the record (it is valid).
 * SBX_ERR_INTERNAL naming the record when it cannot be renamed. */
sbx_status local_tomb_bury(const local_paths *paths, sbx_error *err);

/* 1 when paths->id has a tomb (whatever it holds), else 0. */
int local_tomb_exists(const local_paths *paths);

/* Finish the destroy that the tomb of paths->id records; the caller holds
 * the lock.  The state directory is synced first (the tomb is durable
 * before anything it describes goes), then the process is stopped
 * (SIGTERM, stop_timeout_ms, SIGKILL: local_process_stop), the directory,
 * the log (of a command sandbox) and the tomb are removed.  SBX_OK when
 * done or when there is no tomb; SBX_ERR_PROTOCOL naming the tomb when it
 * is not a valid record of paths->id (nothing is removed); the errors of
 * local_process_stop and local_remove_files otherwise, the tomb kept for
 * the next try. */
sbx_status local_tomb_finish(const local_paths *paths, long stop_timeout_ms, sbx_error *err);

/* The sandbox id of a tomb's file name ".ID.tomb", copied into `id` (of
 * `size` bytes); 0 for every other name. */
int local_tomb_entry_id(const char *name, char *id, size_t size);

/* Finish the tomb of sandbox `id` found in `state_dir` unless its destroy
 * still runs: the lock is tried once, and a held one leaves the tomb to
 * its holder.  SBX_OK when finished, busy or gone meanwhile (*finished
 * says whether this call removed it); SBX_ERR_REFUSED for an id that is
 * not valid (the file is not the backend's); the errors of local_lock and
 * local_tomb_finish otherwise. */
sbx_status local_tomb_sweep_one(const char *state_dir, const char *id, long stop_timeout_ms,
                                int *finished, sbx_error *err);

#endif
