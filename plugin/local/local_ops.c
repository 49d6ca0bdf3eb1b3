/* destroy, is_alive, discover, list, reconcile (see local_ops.h). */
#include <config.h>

#include "plugin/local/local_ops.h"

#include "common/sandbox_ids.h"
#include "common/sandbox_records.h"
#include "plugin/local/local_expiry.h"
#include "plugin/local/local_identity.h"
#include "plugin/local/local_process.h"
#include "plugin/local/local_records.h"
#include "plugin/local/local_tomb.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

sbx_status local_destroy_locked(const sbx_backend_instance *inst, const local_paths *paths,
                                sbx_error *err)
{
    sbx_status st = local_tomb_bury(paths, err);
    if (st == SBX_OK)
        st = local_tomb_finish(paths, inst->options.stop_timeout_ms, err);
    return st == SBX_OK ? local_cgroup_remove(&inst->cgroups, paths->id, err) : st;
}

sbx_status local_finish_interrupted_destroy(sbx_backend_instance *inst,
                                            const local_paths *paths, sbx_error *err)
{
    if (!local_tomb_exists(paths))
        return SBX_OK;
    LOCAL_LOG(inst, SBX_LOG_WARN, "sandbox %s: finishing an interrupted destroy", paths->id);
    return local_tomb_finish(paths, inst->options.stop_timeout_ms, err);
}

/* Destroy of an id without a record: nothing to do, unless the id names
 * files sbx did not make (a user's directory in the state directory),
 * which are never removed. */
static sbx_status destroy_unrecorded(const local_paths *paths, sbx_error *err)
{
    const char *unowned = local_unowned_entry(paths);
    if (unowned == NULL)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                 "local: not destroying sandbox '%s': %s exists but no record of "
                                 "this backend describes it; it is left untouched", paths->id,
                                 unowned);
}

/* Destroy the sandbox that the record of the id (whose lock the caller
 * holds) describes; *existed says whether there was one. */
static sbx_status destroy_recorded(sbx_backend_instance *inst, const local_paths *paths,
                                   int *existed, sbx_error *err)
{
    local_metadata meta;
    sbx_status st = local_load_metadata(inst, paths, paths->id, &meta, err);
    local_metadata_clear(&meta);
    *existed = st == SBX_OK;
    if (st == SBX_OK)
        return local_destroy_locked(inst, paths, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        st = local_cgroup_remove(&inst->cgroups, paths->id, err);
        return st == SBX_OK ? destroy_unrecorded(paths, err) : st;
    }
    /* A record that is not valid describes nothing we may remove. */
    char why[SBX_ERROR_MESSAGE_MAX];
    snprintf(why, sizeof why, "%s", err->message);
    return sbx_backend_error_set(err, st, "local: not destroying sandbox '%s': %s; nothing was "
                                 "removed", paths->id, why);
}

sbx_status local_lock_sandbox(sbx_backend_instance *inst, const char *sandbox_id,
                              local_paths *paths, int *lock_fd, sbx_error *err)
{
    sbx_status st = local_sandbox_paths(inst, sandbox_id, paths, err);
    return st == SBX_OK ? local_lock(paths, inst->options.lock_timeout_ms, lock_fd, err) : st;
}

sbx_status local_destroy(sbx_backend_instance *inst, const char *sandbox_id,
                         sbx_error *err)
{
    local_paths paths;
    int lock_fd = -1;
    sbx_status st = local_lock_sandbox(inst, sandbox_id, &paths, &lock_fd, err);
    if (st != SBX_OK)
        return st;
    int existed = 0;
    st = local_finish_interrupted_destroy(inst, &paths, err);
    if (st == SBX_OK)
        st = destroy_recorded(inst, &paths, &existed, err);
    /* Its file is gone or going: the cache need not hold it open. */
    local_cache_forget(inst->cache, paths.metadata);
    /* The lock file goes in any case: a waiter then locks a fresh one. */
    local_unlock(&paths, lock_fd, 1);
    if (st == SBX_OK && existed)
        LOCAL_LOG(inst, SBX_LOG_INFO, "destroyed sandbox %s", sandbox_id);
    else if (st != SBX_OK)
        LOCAL_LOG(inst, SBX_LOG_WARN, "destroy of sandbox %s failed: %s", sandbox_id,
                  err->message);
    return st;
}

sbx_status local_is_alive(sbx_backend_instance *inst, const char *sandbox_id,
                          int *alive, sbx_error *err)
{
    local_paths paths;
    *alive = 0;
    sbx_status st = local_sandbox_paths(inst, sandbox_id, &paths, err);
    if (st != SBX_OK)
        return st;
    local_metadata meta;
    st = local_load_complete(inst, &paths, sandbox_id, &meta, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        return SBX_OK;
    }
    if (st == SBX_OK)
        *alive = !local_expiry_reap(inst, &paths, &meta) && local_record_alive(&meta, &paths);
    local_metadata_clear(&meta);
    return st;
}

/* discover and discover_record. */
static sbx_status discover_sandbox(sbx_backend_instance *inst, const char *sandbox_id,
                                   const common_answer *to, sbx_error *err)
{
    local_paths paths;
    sbx_status st = local_sandbox_paths(inst, sandbox_id, &paths, err);
    if (st != SBX_OK)
        return st;
    local_metadata meta;
    st = local_load_complete(inst, &paths, sandbox_id, &meta, err);
    if (st == SBX_OK && local_expiry_reap(inst, &paths, &meta))
        st = sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "sandbox '%s' not found (it passed "
                                   "its expiry and was destroyed)", sandbox_id);
    if (st == SBX_OK)
        st = local_single_record(&meta, &paths, to, err);
    local_metadata_clear(&meta);
    return st;
}

sbx_status local_discover(sbx_backend_instance *inst, const char *sandbox_id,
                          sbx_sandbox **out, sbx_error *err)
{
    return discover_sandbox(inst, sandbox_id, &(common_answer){ out, NULL }, err);
}

sbx_status local_discover_record(sbx_backend_instance *inst, const char *sandbox_id,
                                 sbx_sandbox_record **out, sbx_error *err)
{
    return discover_sandbox(inst, sandbox_id, &(common_answer){ NULL, out }, err);
}

/* The sandbox id of a metadata file name "ID.json", copied into `id`;
 * 0 for every other entry (temporary files, logs, locks, directories). */
static int metadata_entry_id(const char *name, char *id, size_t size)
{
    size_t len = strlen(name);
    if (name[0] == '.' || len <= 5 || strcmp(name + len - 5, ".json") != 0 ||
        len - 5 >= size)
        return 0;
    memcpy(id, name, len - 5);
    id[len - 5] = '\0';
    return 1;
}

/* Add sandbox `id` to `list` when it runs; unreadable entries are skipped
 * with a warning, entries that vanish meanwhile silently.  A record that
 * could not be read for want of memory or I/O (internal) fails the list:
 * a list that leaves out a live sandbox makes clients forget it. */
static sbx_status list_one(sbx_backend_instance *inst, const char *id,
                           common_list_answer *list, sbx_error *err)
{
    local_paths paths;
    sbx_error entry_err;
    local_metadata meta;
    if (!common_sandbox_id_is_valid(id)) {
        LOCAL_LOG(inst, SBX_LOG_WARN, "skipping %s/%s.json: not a valid sandbox id",
                  inst->options.state_dir, id);
        return SBX_OK;
    }
    if (local_paths_for(inst->options.state_dir, id, &paths, &entry_err) != SBX_OK)
        return SBX_OK;
    sbx_status st = local_load_complete(inst, &paths, id, &meta, &entry_err);
    if (st == SBX_ERR_INTERNAL)
        return sbx_backend_error_set(err, st, "cannot list sandbox %s: %s", id,
                                     entry_err.message);
    if (st != SBX_OK) {
        if (st != SBX_ERR_NOT_FOUND)
            LOCAL_LOG(inst, SBX_LOG_WARN, "skipping sandbox %s: %s", id, entry_err.message);
        return SBX_OK;
    }
    /* Asked once: the sandbox listed is the one found running. */
    if (!local_expiry_reap(inst, &paths, &meta) && local_record_alive(&meta, &paths)) {
        common_record_facts f;
        local_facts_of(&meta, &paths, 1, &f);
        st = common_list_answer_add(list, &f, err);
    }
    local_metadata_clear(&meta);
    return st;
}

/* list_running and list_records: every sandbox that runs, into `list`;
 * the destroys that killed processes left (tombs) are finished on the
 * way. */
static sbx_status list_sandboxes(sbx_backend_instance *inst, common_list_answer *list,
                                 sbx_error *err)
{
    local_cgroup_sweep(&inst->cgroups, inst->options.state_dir);
    DIR *dir = opendir(inst->options.state_dir);
    if (dir == NULL)
        return common_list_answer_finish(
            list, sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot read %s: %s",
                                        inst->options.state_dir, strerror(errno)));
    sbx_status st = SBX_OK;
    struct dirent *entry;
    char id[256];
    while (st == SBX_OK && (entry = readdir(dir)) != NULL) {
        if (metadata_entry_id(entry->d_name, id, sizeof id))
            st = list_one(inst, id, list, err);
        else if (local_tomb_entry_id(entry->d_name, id, sizeof id))
            local_sweep_tomb(inst, id);
    }
    closedir(dir);
    return common_list_answer_finish(list, st);
}

sbx_status local_list_running(sbx_backend_instance *inst, sbx_sandbox **out,
                              size_t *count, sbx_error *err)
{
    common_list_answer list;
    common_list_answer_start(&list, out, NULL, count);
    return list_sandboxes(inst, &list, err);
}

sbx_status local_list_records(sbx_backend_instance *inst, sbx_sandbox_record **out,
                              size_t *count, sbx_error *err)
{
    common_list_answer list;
    common_list_answer_start(&list, NULL, out, count);
    return list_sandboxes(inst, &list, err);
}

/* Reconciliation is authoritative here: the state directory is the whole
 * truth, so a readable record is FOUND and no record is ABSENT.  The
 * namespace is the state directory's id; the incarnation is new for every
 * creation of the id. */
sbx_status local_reconcile(sbx_backend_instance *inst, const char *sandbox_id,
                           sbx_reconciliation *out, sbx_error *err)
{
    local_paths paths;
    sbx_status st = common_reconcile_start(out, sandbox_id, err);
    if (st == SBX_OK)
        st = local_sandbox_paths(inst, sandbox_id, &paths, err);
    if (st != SBX_OK)
        return st;
    char namespace_id[LOCAL_ID_SIZE];
    sbx_error why;
    local_metadata meta;
    memset(&meta, 0, sizeof meta);
    st = local_namespace_id(inst->options.state_dir, namespace_id, &why);
    if (st == SBX_OK)
        st = local_load_complete(inst, &paths, sandbox_id, &meta, &why);
    if (st == SBX_ERR_NOT_FOUND) {
        out->backend_namespace = strdup(namespace_id);
        out->status = out->backend_namespace ? SBX_RECONCILE_ABSENT : SBX_RECONCILE_UNKNOWN;
    } else if (st == SBX_OK && meta.incarnation_id != NULL) {
        out->sandbox = calloc(1, sizeof *out->sandbox);
        out->backend_namespace = strdup(namespace_id);
        out->incarnation_id = strdup(meta.incarnation_id);
        if (out->sandbox && out->backend_namespace && out->incarnation_id &&
            local_fill_record(out->sandbox, &meta, &paths, &why) == SBX_OK)
            out->status = SBX_RECONCILE_FOUND;
    }
    if (out->status == SBX_RECONCILE_UNKNOWN) {
        if (st != SBX_OK && st != SBX_ERR_NOT_FOUND)
            LOCAL_LOG(inst, SBX_LOG_WARN, "reconcile of sandbox %s: %s", sandbox_id, why.message);
        common_reconciliation_clear(out);
    }
    local_metadata_clear(&meta);
    return SBX_OK;
}
