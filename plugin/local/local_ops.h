/*
 * The local backend's operations on existing sandboxes: destroy (tomb
 * first, then stop and remove), is_alive, discover, list, reconcile.
 */
#ifndef SBX_LOCAL_OPS_H
#define SBX_LOCAL_OPS_H

#include "plugin/local/local_instance.h"

/* Destroy the sandbox whose valid record the caller (holding its lock)
 * has read: tomb the record, then stop its process and remove its files
 * (local_tomb.h). */
sbx_status local_destroy_locked(const sbx_backend_instance *inst, const local_paths *paths,
                                sbx_error *err);

/* Finish the destroy of the id (whose lock the caller holds) that a killed
 * process or a failed removal left as a tomb, if any. */
sbx_status local_finish_interrupted_destroy(sbx_backend_instance *inst,
                                            const local_paths *paths, sbx_error *err);
/* The files of sandbox `sandbox_id` (checked, as local_sandbox_paths) and
 * its lock taken (local_lock's bound and errors): *lock_fd, released with
 * local_unlock. */
sbx_status local_lock_sandbox(sbx_backend_instance *inst, const char *sandbox_id,
                              local_paths *paths, int *lock_fd, sbx_error *err);

/* Destroy sandbox `id`: its record is tombed first (never seen again by
 * readers), then its process stopped and its files removed; an absent
 * sandbox is SBX_OK. */
sbx_status local_destroy(sbx_backend_instance *inst, const char *sandbox_id,
                         sbx_error *err);

/* *alive: the sandbox exists and its command (if any) runs. */
sbx_status local_is_alive(sbx_backend_instance *inst, const char *sandbox_id,
                          int *alive, sbx_error *err);

/* The sandbox (an array of one, the caller's), SBX_ERR_NOT_FOUND when
 * the state directory holds no whole record of it. */
sbx_status local_discover(sbx_backend_instance *inst, const char *sandbox_id,
                          sbx_sandbox **out, sbx_error *err);

/* local_discover as a record (ABI 1.2). */
sbx_status local_discover_record(sbx_backend_instance *inst, const char *sandbox_id,
                                 sbx_sandbox_record **out, sbx_error *err);

/* The live sandboxes of the state directory (finishing tombs it meets). */
sbx_status local_list_running(sbx_backend_instance *inst, sbx_sandbox **out,
                              size_t *count, sbx_error *err);

/* local_list_running as records (ABI 1.2). */
sbx_status local_list_records(sbx_backend_instance *inst, sbx_sandbox_record **out,
                              size_t *count, sbx_error *err);

/* FOUND with the state directory's namespace and the incarnation, ABSENT,
 * or UNKNOWN for a record that cannot be read (logged). */
sbx_status local_reconcile(sbx_backend_instance *inst, const char *sandbox_id,
                           sbx_reconciliation *out, sbx_error *err);

#endif
