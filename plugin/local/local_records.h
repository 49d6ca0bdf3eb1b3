/*
 * One sandbox's record as readers see it: read through the cache, whole
 * (not a create in progress), alive or not, and turned into what a host
 * gets (an sbx_sandbox or a record naming the state directory); and the
 * running sandbox it describes opened as the root of an operation
 * (ABI 1.3), with its record for an exec, which joins its holder.
 */
#ifndef SBX_LOCAL_RECORDS_H
#define SBX_LOCAL_RECORDS_H

#include "plugin/local/local_confine.h"
#include "plugin/local/local_instance.h"

/* 1 when the sandbox of `meta` lives: its command runs, or (without one)
 * its directory exists. */
int local_record_alive(const local_metadata *meta, const local_paths *paths);

/* Read the metadata of a validated id and check that it is that sandbox's. */
sbx_status local_load_metadata(sbx_backend_instance *inst, const local_paths *paths,
                               const char *id, local_metadata *meta, sbx_error *err);

/* Read a record that is whole: a record a create is still writing (or that
 * a killed create left) is no sandbox yet, for readers NOT_FOUND. */
sbx_status local_load_complete(sbx_backend_instance *inst, const local_paths *paths,
                               const char *id, local_metadata *meta, sbx_error *err);

/* What a record and its files say of a sandbox (borrowed from both);
 * `alive` is local_record_alive's answer. */
void local_facts_of(const local_metadata *meta, const local_paths *paths, int alive,
                    common_record_facts *f);

/* The sandbox `meta` describes, into *out (its strings the caller's, as
 * common_sandbox_records_free releases them). */
sbx_status local_fill_record(sbx_sandbox *out, const local_metadata *meta,
                             const local_paths *paths, sbx_error *err);

/* The sandbox `meta` describes, answered as `to` asks (an array of one or
 * a record). */
sbx_status local_single_record(const local_metadata *meta, const local_paths *paths,
                               const common_answer *to, sbx_error *err);

/* The sandbox one operation works in: its files, and its directory (or
 * its /tmp) open as the root that the operation's paths resolve beneath. */
typedef struct local_sandbox_root {
    local_paths paths;
    local_root root;   /* fd the caller's to close; dir borrowed from paths, or "/tmp" */
} local_sandbox_root;

/* Open the directory of running sandbox `sandbox_id` for operation `op`
 * into *out.  SBX_ERR_REFUSED for an invalid id, SBX_ERR_NOT_FOUND when
 * there is no whole record of it (never created, destroyed, being
 * destroyed) or it does not run. */
sbx_status local_open_root(sbx_backend_instance *inst, const char *sandbox_id, const char *op,
                           local_sandbox_root *out, sbx_error *err);

/* local_open_root for an exec or a process start, which needs the
 * record too (its env, its holder): read once, into *meta (the caller's
 * to local_metadata_clear) when the call succeeds, and not again on the
 * way.  The same errors as local_open_root. */
sbx_status local_open_exec_root(sbx_backend_instance *inst, const char *sandbox_id,
                                const char *op, local_sandbox_root *out, local_metadata *meta,
                                sbx_error *err);

/* local_open_root for a file operation on `path`: with isolation=namespaces
 * a path that is /tmp or below it (and not in the sandbox directory) has
 * the sandbox's /tmp as its root (root.dir "/tmp"; local_sandbox_tmp.h),
 * as the sandbox's commands see it; with isolation=none commands use the
 * host's /tmp, and such a path is outside the sandbox like any other.
 * The caller closes out->root with local_sandbox_tmp_close. */
sbx_status local_open_file_root(sbx_backend_instance *inst, const char *sandbox_id,
                                const char *op, const char *path, local_sandbox_root *out,
                                sbx_error *err);

#endif
