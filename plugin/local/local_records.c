/* Reading a sandbox's record for a host; opening the sandbox it
 * describes for an operation, with its record for an exec (see local_records.h). */
#include <config.h>

#include "plugin/local/local_records.h"

#include "common/iso_time.h"
#include "common/sandbox_records.h"
#include "plugin/local/local_identity.h"
#include "plugin/local/local_process.h"
#include "plugin/local/local_sandbox_tmp.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

int local_record_alive(const local_metadata *meta, const local_paths *paths)
{
    if (meta->process.pid != 0)
        return local_process_is_running(&meta->process);
    return local_dir_exists(paths);
}

sbx_status local_load_metadata(sbx_backend_instance *inst, const local_paths *paths,
                               const char *id, local_metadata *meta, sbx_error *err)
{
    sbx_status st = local_cache_read(inst->cache, paths->metadata, meta, err);
    if (st == SBX_ERR_NOT_FOUND)
        return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "sandbox '%s' not found", id);
    if (st == SBX_OK && strcmp(meta->sandbox_id, id) != 0) {
        local_metadata_clear(meta);
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "metadata %s names another sandbox",
                                     paths->metadata);
    }
    return st;
}

sbx_status local_load_complete(sbx_backend_instance *inst, const local_paths *paths,
                               const char *id, local_metadata *meta, sbx_error *err)
{
    sbx_status st = local_load_metadata(inst, paths, id, meta, err);
    if (st == SBX_OK && meta->creating) {
        local_metadata_clear(meta);
        return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "sandbox '%s' not found", id);
    }
    return st;
}

void local_facts_of(const local_metadata *meta, const local_paths *paths, int alive,
                    common_record_facts *f)
{
    common_record_facts_init(f);
    f->sandbox_id = meta->sandbox_id;
    f->sandbox_url = meta->url;
    f->user_id = meta->user_id;
    f->thread_id = meta->thread_id;
    f->status = alive ? "Running" : "Stopped";
    if (!common_time_parse_rfc3339(meta->created, &f->created_at))
        f->created_at = SBX_TIME_UNKNOWN;
    f->incarnation_id = meta->incarnation_id;
    f->pid = meta->process.pid;
    f->directory = paths->dir;
    f->labels = meta->labels;
    f->label_count = meta->label_count;
    f->expires_at = meta->expires_at;
}

sbx_status local_fill_record(sbx_sandbox *out, const local_metadata *meta,
                             const local_paths *paths, sbx_error *err)
{
    common_record_facts f;
    local_facts_of(meta, paths, local_record_alive(meta, paths), &f);
    return common_record_facts_fill(&f, out, err);
}

sbx_status local_single_record(const local_metadata *meta, const local_paths *paths,
                               const common_answer *to, sbx_error *err)
{
    common_record_facts f;
    local_facts_of(meta, paths, local_record_alive(meta, paths), &f);
    return common_answer_one(to, &f, err);
}

/* The sandbox directory, or with `path` under /tmp the sandbox's /tmp,
 * as the root of operation `op` (local_open_root); the record read on
 * the way into *keep when `keep` is not NULL (and the call succeeded). */
static sbx_status open_root(sbx_backend_instance *inst, const char *sandbox_id, const char *op,
                            const char *path, local_sandbox_root *out, local_metadata *keep,
                            sbx_error *err)
{
    local_paths *paths = &out->paths;
    local_root *root = &out->root;
    root->sandbox_id = sandbox_id;
    root->dir = NULL;
    root->fd = -1;
    sbx_status st = local_sandbox_paths(inst, sandbox_id, paths, err);
    if (st != SBX_OK)
        return st;
    local_metadata meta;
    st = local_load_complete(inst, paths, sandbox_id, &meta, err);
    if (st != SBX_OK)
        return st;
    int alive = local_record_alive(&meta, paths);
    root->sandbox_id = paths->id;
    root->dir = paths->dir;
    if (alive && path != NULL && inst->options.isolation.mode != LOCAL_ISOLATION_NONE &&
        local_sandbox_tmp_names(path) && !local_confine_within(path, paths->dir))
        st = local_sandbox_tmp_open(&meta.holder, op, path, root, err);
    else if (alive)
        root->fd = open(paths->dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (st == SBX_OK && root->fd < 0)
        st = sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "%s: sandbox '%s' is not running",
                                   op, sandbox_id);
    if (st == SBX_OK && keep != NULL)
        *keep = meta;
    else
        local_metadata_clear(&meta);
    return st;
}

sbx_status local_open_root(sbx_backend_instance *inst, const char *sandbox_id, const char *op,
                           local_sandbox_root *out, sbx_error *err)
{
    return open_root(inst, sandbox_id, op, NULL, out, NULL, err);
}

sbx_status local_open_exec_root(sbx_backend_instance *inst, const char *sandbox_id,
                                const char *op, local_sandbox_root *out, local_metadata *meta,
                                sbx_error *err)
{
    return open_root(inst, sandbox_id, op, NULL, out, meta, err);
}

sbx_status local_open_file_root(sbx_backend_instance *inst, const char *sandbox_id,
                                const char *op, const char *path, local_sandbox_root *out,
                                sbx_error *err)
{
    return open_root(inst, sandbox_id, op, path, out, NULL, err);
}
