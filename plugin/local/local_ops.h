/*
 * The local backend's operations on existing sandboxes: destroy (tomb
 * first, then stop and remove), is_alive, discover, list, reconcile; and
 * what the sandbox operations (ABI 1.3) share: their limits and the
 * sandbox they work in.
 */
#ifndef SBX_LOCAL_OPS_H
#define SBX_LOCAL_OPS_H

#include "plugin/local/local_confine.h"
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

/* The limits of the sandbox operations (ABI 1.3; docs/local.md). */
#define LOCAL_EXEC_DEFAULT_TIMEOUT_MS INT64_C(600000)   /* 10 minutes, as DeerFlow's */
#define LOCAL_EXEC_MAX_TIMEOUT_MS INT64_C(86400000)     /* a day */
#define LOCAL_EXEC_DEFAULT_OUTPUT ((size_t)1 << 20)     /* 1 MiB per stream */
#define LOCAL_EXEC_MAX_OUTPUT ((size_t)64 << 20)        /* 64 MiB per stream */
#define LOCAL_MAX_FILE_BYTES (UINT64_C(256) << 20)      /* 256 MiB per read or write */

/* The descriptor's operations_info: every operation, and the limits above. */
sbx_status local_operations_info(sbx_backend_instance *inst, sbx_operations_info *out,
                                 sbx_error *err);

/* Open the directory of running sandbox `sandbox_id` for operation `op`
 * into *root (root->fd the caller's to close; root->dir borrowed from
 * *paths).  SBX_ERR_REFUSED for an invalid id, SBX_ERR_NOT_FOUND when
 * there is no whole record of it (never created, destroyed, being
 * destroyed) or it does not run. */
sbx_status local_open_root(sbx_backend_instance *inst, const char *sandbox_id, const char *op,
                           local_paths *paths, local_root *root, sbx_error *err);

/* local_open_root for a file operation on `path`: with isolation=namespaces
 * a path that is /tmp or below it (and not in the sandbox directory) has
 * the sandbox's /tmp as its root (root->dir "/tmp"; local_sandbox_tmp.h),
 * as the sandbox's commands see it; with isolation=none commands use the
 * host's /tmp, and such a path is outside the sandbox like any other. */
sbx_status local_open_file_root(sbx_backend_instance *inst, const char *sandbox_id,
                                const char *op, const char *path, local_paths *paths,
                                local_root *root, sbx_error *err);

#endif
