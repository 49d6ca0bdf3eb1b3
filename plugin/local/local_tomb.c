/* Tombs: destroy renames first, removes after (see local_tomb.h). */
#include <config.h>

#include "plugin/local/local_tomb.h"

#include "plugin/local/local_proc_table.h"

#include "common/sandbox_ids.h"
#include "plugin/local/local_state_file.h"
#include "plugin/local/local_metadata.h"
#include "plugin/local/local_process.h"
#include <sbx/backend_support.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOMB_SUFFIX ".tomb"

sbx_status local_tomb_bury(const local_paths *paths, sbx_error *err)
{
    if (rename(paths->metadata, paths->tomb) == 0)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot rename %s to %s: %s",
                                 paths->metadata, paths->tomb, strerror(errno));
}

int local_tomb_exists(const local_paths *paths)
{
    struct stat st;
    return lstat(paths->tomb, &st) == 0;
}

/* The record a tomb holds, checked to be the sandbox's own. */
static sbx_status read_tomb(const local_paths *paths, local_metadata *meta, sbx_error *err)
{
    int fd;
    memset(meta, 0, sizeof *meta);
    sbx_status st = local_metadata_open(paths->tomb, &fd, err);
    if (st != SBX_OK)
        return st;
    st = local_metadata_read_fd(fd, paths->tomb, meta, err);
    close(fd);
    if (st == SBX_OK && strcmp(meta->sandbox_id, paths->id) != 0) {
        local_metadata_clear(meta);
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "tomb %s names another sandbox",
                                   paths->tomb);
    }
    return st;
}

sbx_status local_tomb_finish(const local_paths *paths, long stop_timeout_ms, sbx_error *err)
{
    local_metadata meta;
    sbx_status st = read_tomb(paths, &meta, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        return SBX_OK;
    }
    if (st != SBX_OK) {
        char why[SBX_ERROR_MESSAGE_MAX];
        snprintf(why, sizeof why, "%s", err->message);
        return sbx_backend_error_set(err, st, "local: not finishing the destroy of sandbox '%s': "
                                     "%s; nothing was removed", paths->id, why);
    }
    /* A crash after this must not bring the record back beside files
     * already gone: the rename is made durable before any removal. */
    st = local_state_dir_sync(paths->state_dir, err);
    /* Live processes first: each in a pid namespace of its own, the
     * holder's end would not end them. */
    if (st == SBX_OK)
        st = local_proc_end_all(paths, stop_timeout_ms, err);
    if (st == SBX_OK && meta.process.pid != 0)
        st = local_process_stop(&meta.process, stop_timeout_ms, err);
    /* pid 1 of its namespace: no SIGTERM to wait for; SIGKILL ends all. */
    if (st == SBX_OK && meta.holder.pid != 0)
        st = local_process_stop(&meta.holder, 0, err);
    if (st == SBX_OK)
        st = local_remove_files(paths, 1, meta.port != 0, paths->tomb, err);
    local_metadata_clear(&meta);
    return st;
}

int local_tomb_entry_id(const char *name, char *id, size_t size)
{
    size_t len = strlen(name), suffix = sizeof TOMB_SUFFIX - 1;
    if (name[0] != '.' || len <= suffix + 1 || strcmp(name + len - suffix, TOMB_SUFFIX) != 0 ||
        len - suffix - 1 >= size)
        return 0;
    memcpy(id, name + 1, len - suffix - 1);
    id[len - suffix - 1] = '\0';
    return 1;
}

sbx_status local_tomb_sweep_one(const char *state_dir, const char *id, long stop_timeout_ms,
                                int *finished, sbx_error *err)
{
    *finished = 0;
    if (!common_sandbox_id_is_valid(id))
        return sbx_backend_error_set(err, SBX_ERR_REFUSED, "%s/.%s" TOMB_SUFFIX " is not the tomb "
                                     "of a valid sandbox id; it is left untouched", state_dir, id);
    local_paths paths;
    int lock_fd = -1;
    sbx_status st = local_paths_for(state_dir, id, &paths, err);
    if (st == SBX_OK)
        st = local_lock(&paths, 0, &lock_fd, err);
    if (st == SBX_ERR_TRANSPORT) {
        /* Its destroy still runs and will finish it. */
        sbx_backend_error_clear(err);
        return SBX_OK;
    }
    if (st != SBX_OK)
        return st;
    *finished = local_tomb_exists(&paths);
    st = local_tomb_finish(&paths, stop_timeout_ms, err);
    if (st != SBX_OK)
        *finished = 0;
    /* As a destroy does: a waiter then locks a fresh lock file. */
    local_unlock(&paths, lock_fd, 1);
    return st;
}
