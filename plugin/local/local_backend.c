/*
 * The local backend's operations.  An instance holds its immutable options
 * and a cache of the records it read, checked against their files on every
 * read (local_cache.h); all shared state lives in the state directory, so
 * instances in any number of threads and processes see the same sandboxes.  Creation
 * and destruction of one sandbox are serialised by its lock file; readers
 * rely on the metadata file being replaced atomically, and on destroy
 * tombing it before it removes anything (local_tomb.h).
 */

#include <config.h>

#include "plugin/local/local_backend.h"

#include "common/create_request.h"
#include "common/iso_time.h"
#include "common/record_chain.h"
#include "common/sandbox_ids.h"
#include "common/sandbox_records.h"
#include "common/tcp_ready.h"
#include "plugin/local/local_cache.h"
#include "plugin/local/local_command.h"
#include "plugin/local/local_identity.h"
#include "plugin/local/local_metadata.h"
#include "plugin/local/local_options.h"
#include "plugin/local/local_port.h"
#include "plugin/local/local_state.h"
#include "plugin/local/local_time.h"
#include "plugin/local/local_tomb.h"
#include <sbx/backend_support.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct sbx_backend_instance {
    local_options options;
    local_cache *cache;                  /* the records read (thread-safe) */
    const sbx_host_services *services;   /* kept alive by the host until close */
};

#define LOCAL_LOG(inst, level, ...) \
    sbx_backend_log((inst)->services, (level), LOCAL_NAME, __VA_ARGS__)

/* Finish, if it is not under way, the destroy of sandbox `id` whose tomb
 * was found in the state directory; a failure is logged (the tomb stays
 * for the next try), never the caller's. */
static void sweep_tomb(sbx_backend_instance *inst, const char *id)
{
    sbx_error err;
    int finished = 0;
    sbx_status st = local_tomb_sweep_one(inst->options.state_dir, id,
                                         inst->options.stop_timeout_ms, &finished, &err);
    if (st != SBX_OK)
        LOCAL_LOG(inst, SBX_LOG_WARN, "skipping the tomb of sandbox %s: %s", id, err.message);
    else if (finished)
        LOCAL_LOG(inst, SBX_LOG_INFO, "finished the interrupted destroy of sandbox %s", id);
}

/* At open: finish every destroy that a killed process left.  An unreadable
 * state directory is left for the operations to report. */
static void sweep_tombs(sbx_backend_instance *inst)
{
    DIR *dir = opendir(inst->options.state_dir);
    if (dir == NULL)
        return;
    struct dirent *entry;
    char id[256];
    while ((entry = readdir(dir)) != NULL)
        if (local_tomb_entry_id(entry->d_name, id, sizeof id))
            sweep_tomb(inst, id);
    closedir(dir);
}

static sbx_status local_open(const sbx_option *options, size_t option_count,
                             const sbx_host_services *services,
                             sbx_backend_instance **out, sbx_error *err)
{
    sbx_backend_instance *inst = calloc(1, sizeof *inst);
    if (inst == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    sbx_status st = local_options_parse(options, option_count, &inst->options, err);
    if (st != SBX_OK) {
        free(inst);
        return st;
    }
    inst->cache = local_cache_new();
    if (inst->cache == NULL) {
        local_options_clear(&inst->options);
        free(inst);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    inst->services = services;
    LOCAL_LOG(inst, SBX_LOG_DEBUG, "state directory %s, %s", inst->options.state_dir,
              inst->options.command ? "sandboxes run a command" : "directory sandboxes");
    sweep_tombs(inst);
    *out = inst;
    return SBX_OK;
}

static void local_close(sbx_backend_instance *inst)
{
    if (inst == NULL)
        return;
    local_cache_free(inst->cache);
    local_options_clear(&inst->options);
    free(inst);
}

/* The files of a sandbox the caller names: its id is refused (never
 * reaching a file name) unless valid. */
static sbx_status sandbox_paths(const sbx_backend_instance *inst, const char *sandbox_id,
                                local_paths *paths, sbx_error *err)
{
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st == SBX_OK)
        st = local_paths_for(inst->options.state_dir, sandbox_id, paths, err);
    return st;
}

static int metadata_is_alive(const local_metadata *meta, const local_paths *paths)
{
    if (meta->process.pid != 0)
        return local_process_is_running(&meta->process);
    return local_dir_exists(paths);
}

/* Read the metadata of a validated id and check that it is that sandbox's. */
static sbx_status load_metadata(sbx_backend_instance *inst, const local_paths *paths,
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

/* Read a record that is whole: a record a create is still writing (or that
 * a killed create left) is no sandbox yet, for readers NOT_FOUND. */
static sbx_status load_complete(sbx_backend_instance *inst, const local_paths *paths,
                                const char *id, local_metadata *meta, sbx_error *err)
{
    sbx_status st = load_metadata(inst, paths, id, meta, err);
    if (st == SBX_OK && meta->creating) {
        local_metadata_clear(meta);
        return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "sandbox '%s' not found", id);
    }
    return st;
}

/* What a record and its files say of a sandbox (borrowed from both);
 * `alive` is metadata_is_alive's answer. */
static void facts_of(const local_metadata *meta, const local_paths *paths, int alive,
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
}

static sbx_status fill_record(sbx_sandbox *out, const local_metadata *meta,
                              const local_paths *paths, sbx_error *err)
{
    common_record_facts f;
    facts_of(meta, paths, metadata_is_alive(meta, paths), &f);
    return common_record_facts_fill(&f, out, err);
}

static sbx_status single_record(const local_metadata *meta, const local_paths *paths,
                                const common_answer *to, sbx_error *err)
{
    common_record_facts f;
    facts_of(meta, paths, metadata_is_alive(meta, paths), &f);
    return common_answer_one(to, &f, err);
}

/* What the local backend cannot honour is refused, never silently dropped. */
static sbx_status check_request(const sbx_create_request *req, sbx_error *err)
{
    sbx_status st = common_create_request_check(LOCAL_NAME, req, err);
    if (st != SBX_OK)
        return st;
    if (req->extra_mount_count > 0) {
        const sbx_mount *m = req->extra_mounts;
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                     "local backend cannot mount '%.200s' at '%.200s' for sandbox "
                                     "'%s': extra mounts are not supported locally",
                                     m && m->host_path ? m->host_path : "(null)",
                                     m && m->container_path ? m->container_path : "(null)",
                                     req->sandbox_id);
    }
    return common_create_request_refuse_contract(LOCAL_NAME, req, err);
}

/* CLOCK_REALTIME, not time(): glibc's time() reads the kernel's coarse clock,
 * which lags the real one by up to a tick, so a record made at x.001 s could
 * say it was made in second x-1, before the caller asked for it. */
static void format_now(char *buf, size_t size)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    gmtime_r(&now.tv_sec, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Destroy the sandbox whose valid record the caller (holding its lock)
 * has read: tomb the record, then stop its process and remove its files
 * (local_tomb.h). */
static sbx_status destroy_locked(const sbx_backend_instance *inst, const local_paths *paths,
                                 sbx_error *err)
{
    sbx_status st = local_tomb_bury(paths, err);
    return st == SBX_OK ? local_tomb_finish(paths, inst->options.stop_timeout_ms, err) : st;
}

/* Finish the destroy of the id (whose lock the caller holds) that a killed
 * process or a failed removal left as a tomb, if any. */
static sbx_status finish_interrupted_destroy(sbx_backend_instance *inst,
                                             const local_paths *paths, sbx_error *err)
{
    if (!local_tomb_exists(paths))
        return SBX_OK;
    LOCAL_LOG(inst, SBX_LOG_WARN, "sandbox %s: finishing an interrupted destroy", paths->id);
    return local_tomb_finish(paths, inst->options.stop_timeout_ms, err);
}

/* Start the command of a new sandbox (whose record says "creating"): its
 * log, its process; the record names the process before the process may
 * run, so that whatever cuts the create short, destroy finds it. */
static sbx_status start_command(sbx_backend_instance *inst, const local_paths *paths,
                                local_metadata *meta, local_launch *launch,
                                int *made_log, sbx_error *err)
{
    char *command = NULL;
    int log_fd = -1;
    sbx_status st = local_open_log(paths, &log_fd, err);
    *made_log = st == SBX_OK;
    if (st == SBX_OK)
        st = local_command_expand(inst->options.command, meta->port, paths->dir,
                                  &command, err);
    if (st == SBX_OK)
        st = local_process_start(command, log_fd, &meta->process, launch, err);
    free(command);
    if (log_fd >= 0)
        close(log_fd);
    if (st == SBX_OK)
        st = local_metadata_write(paths->metadata, paths->metadata_tmp, meta, err);
    if (st == SBX_OK)
        st = local_process_go(launch, err);
    return st;
}

/* Undo a create that failed: only what it made itself. */
static void undo_create(const local_paths *paths, const local_metadata *meta, local_launch *launch,
                        int made_dir, int made_log)
{
    sbx_error ignored;
    /* Released first: a shell still waiting for its go byte then exits. */
    local_launch_release(launch);
    if (meta->process.pid != 0)
        local_process_stop(&meta->process, 0, &ignored);
    local_remove_files(paths, made_dir, made_log, paths->metadata, &ignored);
}

/* Make a new sandbox; the caller holds its lock and knows it has no
 * record.  The record comes first ("creating"), then the directory, log
 * and process it describes, then the whole record: a create killed at any
 * point leaves a record of what it made, and nothing without one.  On
 * success with a command, *launch watches the process (released by the
 * caller). */
static sbx_status create_locked(sbx_backend_instance *inst, const sbx_create_request *req,
                                const local_paths *paths, local_metadata *meta,
                                local_launch *launch, sbx_error *err)
{
    const char *unowned = local_unowned_entry(paths);
    if (unowned != NULL)
        return sbx_backend_error_set(
            err, SBX_ERR_REFUSED,
            "local: not creating sandbox '%s': %s exists but no record of "
            "this backend describes it; it is left untouched (remove it or "
            "choose another id)", req->sandbox_id, unowned);
    char url[PATH_MAX + 16], created[32], incarnation[LOCAL_ID_SIZE];
    sbx_status st = local_random_id(incarnation, err);
    if (st == SBX_OK && inst->options.command != NULL)
        st = local_pick_port(&meta->port, err);
    if (st != SBX_OK)
        return st;
    if (inst->options.command != NULL)
        snprintf(url, sizeof url, "http://127.0.0.1:%d", meta->port);
    else
        snprintf(url, sizeof url, "file://%s", paths->dir);
    format_now(created, sizeof created);
    meta->sandbox_id = (char *)req->sandbox_id;
    meta->thread_id = (char *)req->thread_id;
    meta->user_id = (char *)common_create_request_user(req);
    meta->url = url;
    meta->created = created;
    meta->incarnation_id = incarnation;
    meta->creating = 1;
    int made_dir = 0, made_log = 0;
    st = local_metadata_write(paths->metadata, paths->metadata_tmp, meta, err);
    if (st == SBX_OK) {
        st = local_make_dir(paths, err);
        made_dir = st == SBX_OK;
    }
    if (st == SBX_OK && inst->options.command != NULL)
        st = start_command(inst, paths, meta, launch, &made_log, err);
    if (st == SBX_OK) {
        meta->creating = 0;
        st = local_metadata_write(paths->metadata, paths->metadata_tmp, meta, err);
    }
    if (st != SBX_OK)
        undo_create(paths, meta, launch, made_dir, made_log);
    /* The strings were borrowed for the write; hand back an empty record. */
    memset(meta, 0, sizeof *meta);
    return st;
}

/* A create found the record of a create that was cut short (the process
 * was killed): nobody else is creating the id, since we hold its lock, so
 * what the record describes is removed and the id made anew. */
static sbx_status clear_interrupted_create(sbx_backend_instance *inst,
                                           const local_paths *paths,
                                           local_metadata *meta, sbx_error *err)
{
    LOCAL_LOG(inst, SBX_LOG_WARN, "sandbox %s: removing what an interrupted create left",
              paths->id);
    local_metadata_clear(meta);
    sbx_status st = destroy_locked(inst, paths, err);
    return st == SBX_OK ? sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "sandbox '%s' not found",
                                                paths->id)
                        : st;
}

/* The error of a new sandbox whose command exited before it served. */
static sbx_status command_exited(const local_metadata *meta, const local_paths *paths,
                                 int status, sbx_error *err)
{
    char how[96];
    if (WIFSIGNALED(status))
        sbx_backend_format(how, sizeof how, "was killed by signal %d (%s)", WTERMSIG(status),
                           strsignal(WTERMSIG(status)));
    else
        snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
    return sbx_backend_error_set(err, SBX_ERR_TRANSPORT,
                                 "sandbox '%s' is not serving: its command %s before accepting a "
                                 "connection on 127.0.0.1:%d (its output is in %s); the sandbox is "
                                 "left for destroy", meta->sandbox_id, how, meta->port, paths->log);
}

/* A sandbox's URL must answer once create returns: wait for its command to
 * accept connections on its port.  A new sandbox is always waited for, and
 * its command's exit ends the wait at once (`launch` reports it); an
 * existing one only while its command runs (a stopped one is returned as
 * it is).  On timeout the sandbox stays, for destroy. */
static sbx_status wait_until_serving(const sbx_backend_instance *inst,
                                     const local_metadata *meta,
                                     const local_paths *paths, int fresh,
                                     local_launch *launch, sbx_error *err)
{
    if (meta->port == 0 || inst->options.ready_timeout_ms == 0 ||
        (!fresh && !metadata_is_alive(meta, paths)))
        return SBX_OK;
    char what[96];
    sbx_backend_format(what, sizeof what, "sandbox '%s'", meta->sandbox_id);
    long deadline = local_now_ms() + inst->options.ready_timeout_ms;
    long left = inst->options.ready_timeout_ms;
    int watch_fd = fresh ? launch->status_fd : -1;
    for (;;) {
        int woken = 0, status = 0;
        sbx_status st = common_tcp_wait_ready_watching("127.0.0.1", meta->port, left, what,
                                                       watch_fd, &woken, err);
        if (st != SBX_OK || !woken)
            return st;
        if (local_launch_exit_status(launch, &status))
            return command_exited(meta, paths, status, err);
        /* The watcher is gone without a word: wait on without it. */
        watch_fd = -1;
        left = deadline - local_now_ms();
        if (left <= 0)
            left = 1;
    }
}

/* create and create_record: the sandbox, answered as `to` asks. */
static sbx_status create_sandbox(sbx_backend_instance *inst, const sbx_create_request *req,
                                 const common_answer *to, sbx_error *err)
{
    sbx_status st = check_request(req, err);
    if (st != SBX_OK)
        return st;
    local_paths paths;
    local_launch launch = LOCAL_LAUNCH_INIT;
    int lock_fd = -1;
    st = local_paths_for(inst->options.state_dir, req->sandbox_id, &paths, err);
    if (st == SBX_OK)
        st = local_lock(&paths, inst->options.lock_timeout_ms, &lock_fd, err);
    if (st != SBX_OK)
        return st;
    local_metadata meta;
    /* fresh: this create made the sandbox; owned: the sandbox is the
     * caller's (made now, or its owner's existing one), so a failure from
     * then on leaves it for destroy and must say so. */
    int attempted = 0, fresh = 0, owned = 0;
    memset(&meta, 0, sizeof meta);
    st = finish_interrupted_destroy(inst, &paths, err);
    if (st == SBX_OK)
        st = load_metadata(inst, &paths, req->sandbox_id, &meta, err);
    if (st == SBX_OK && meta.creating)
        st = clear_interrupted_create(inst, &paths, &meta, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        attempted = 1;
        st = create_locked(inst, req, &paths, &meta, &launch, err);
        fresh = owned = st == SBX_OK;
        if (st == SBX_OK)
            st = load_metadata(inst, &paths, req->sandbox_id, &meta, err);
        if (st == SBX_OK)
            LOCAL_LOG(inst, SBX_LOG_INFO, "created sandbox %s at %s", req->sandbox_id, meta.url);
    } else if (st == SBX_OK) {
        st = common_create_request_check_owner(LOCAL_NAME, req, meta.user_id, meta.thread_id, err);
        owned = st == SBX_OK;
        if (st == SBX_OK)
            LOCAL_LOG(inst, SBX_LOG_DEBUG, "sandbox %s exists; returning it", req->sandbox_id);
    }
    /* A create of a new id that made nothing leaves no record: nor a lock
     * file. */
    local_unlock(&paths, lock_fd, attempted && !owned);
    /* Unlocked: other creates of this id need not wait behind this one. */
    if (st == SBX_OK)
        st = wait_until_serving(inst, &meta, &paths, fresh, &launch, err);
    local_launch_release(&launch);
    if (st == SBX_OK)
        st = single_record(&meta, &paths, to, err);
    if (st != SBX_OK && owned)
        common_answer_left_for_destroy(req->sandbox_id, err);
    if (st != SBX_OK)
        LOCAL_LOG(inst, SBX_LOG_WARN, "create of sandbox %s failed: %s", req->sandbox_id,
                  err->message);
    local_metadata_clear(&meta);
    return st;
}

static sbx_status local_create(sbx_backend_instance *inst, const sbx_create_request *req,
                               sbx_sandbox **out, sbx_error *err)
{
    return create_sandbox(inst, req, &(common_answer){ out, NULL }, err);
}

static sbx_status local_create_record(sbx_backend_instance *inst,
                                      const sbx_create_request *req,
                                      sbx_sandbox_record **out, sbx_error *err)
{
    return create_sandbox(inst, req, &(common_answer){ NULL, out }, err);
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
    sbx_status st = load_metadata(inst, paths, paths->id, &meta, err);
    local_metadata_clear(&meta);
    *existed = st == SBX_OK;
    if (st == SBX_OK)
        return destroy_locked(inst, paths, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        return destroy_unrecorded(paths, err);
    }
    /* A record that is not valid describes nothing we may remove. */
    char why[SBX_ERROR_MESSAGE_MAX];
    snprintf(why, sizeof why, "%s", err->message);
    return sbx_backend_error_set(err, st, "local: not destroying sandbox '%s': %s; nothing was "
                                 "removed", paths->id, why);
}

static sbx_status local_destroy(sbx_backend_instance *inst, const char *sandbox_id,
                                sbx_error *err)
{
    local_paths paths;
    int lock_fd = -1;
    sbx_status st = sandbox_paths(inst, sandbox_id, &paths, err);
    if (st == SBX_OK)
        st = local_lock(&paths, inst->options.lock_timeout_ms, &lock_fd, err);
    if (st != SBX_OK)
        return st;
    int existed = 0;
    st = finish_interrupted_destroy(inst, &paths, err);
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

static sbx_status local_is_alive(sbx_backend_instance *inst, const char *sandbox_id,
                                 int *alive, sbx_error *err)
{
    local_paths paths;
    *alive = 0;
    sbx_status st = sandbox_paths(inst, sandbox_id, &paths, err);
    if (st != SBX_OK)
        return st;
    local_metadata meta;
    st = load_complete(inst, &paths, sandbox_id, &meta, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        return SBX_OK;
    }
    if (st == SBX_OK)
        *alive = metadata_is_alive(&meta, &paths);
    local_metadata_clear(&meta);
    return st;
}

/* discover and discover_record. */
static sbx_status discover_sandbox(sbx_backend_instance *inst, const char *sandbox_id,
                                   const common_answer *to, sbx_error *err)
{
    local_paths paths;
    sbx_status st = sandbox_paths(inst, sandbox_id, &paths, err);
    if (st != SBX_OK)
        return st;
    local_metadata meta;
    st = load_complete(inst, &paths, sandbox_id, &meta, err);
    if (st == SBX_OK)
        st = single_record(&meta, &paths, to, err);
    local_metadata_clear(&meta);
    return st;
}

static sbx_status local_discover(sbx_backend_instance *inst, const char *sandbox_id,
                                 sbx_sandbox **out, sbx_error *err)
{
    return discover_sandbox(inst, sandbox_id, &(common_answer){ out, NULL }, err);
}

static sbx_status local_discover_record(sbx_backend_instance *inst, const char *sandbox_id,
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
    sbx_status st = load_complete(inst, &paths, id, &meta, &entry_err);
    if (st == SBX_ERR_INTERNAL)
        return sbx_backend_error_set(err, st, "cannot list sandbox %s: %s", id,
                                     entry_err.message);
    if (st != SBX_OK) {
        if (st != SBX_ERR_NOT_FOUND)
            LOCAL_LOG(inst, SBX_LOG_WARN, "skipping sandbox %s: %s", id, entry_err.message);
        return SBX_OK;
    }
    /* Asked once: the sandbox listed is the one found running. */
    if (metadata_is_alive(&meta, &paths)) {
        common_record_facts f;
        facts_of(&meta, &paths, 1, &f);
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
            sweep_tomb(inst, id);
    }
    closedir(dir);
    return common_list_answer_finish(list, st);
}

static sbx_status local_list_running(sbx_backend_instance *inst, sbx_sandbox **out,
                                     size_t *count, sbx_error *err)
{
    common_list_answer list;
    common_list_answer_start(&list, out, NULL, count);
    return list_sandboxes(inst, &list, err);
}

static sbx_status local_list_records(sbx_backend_instance *inst, sbx_sandbox_record **out,
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
static sbx_status local_reconcile(sbx_backend_instance *inst, const char *sandbox_id,
                                  sbx_reconciliation *out, sbx_error *err)
{
    local_paths paths;
    sbx_status st = common_reconcile_start(out, sandbox_id, err);
    if (st == SBX_OK)
        st = sandbox_paths(inst, sandbox_id, &paths, err);
    if (st != SBX_OK)
        return st;
    char namespace_id[LOCAL_ID_SIZE];
    sbx_error why;
    local_metadata meta;
    memset(&meta, 0, sizeof meta);
    st = local_namespace_id(inst->options.state_dir, namespace_id, &why);
    if (st == SBX_OK)
        st = load_complete(inst, &paths, sandbox_id, &meta, &why);
    if (st == SBX_ERR_NOT_FOUND) {
        out->backend_namespace = strdup(namespace_id);
        out->status = out->backend_namespace ? SBX_RECONCILE_ABSENT : SBX_RECONCILE_UNKNOWN;
    } else if (st == SBX_OK && meta.incarnation_id != NULL) {
        out->sandbox = calloc(1, sizeof *out->sandbox);
        out->backend_namespace = strdup(namespace_id);
        out->incarnation_id = strdup(meta.incarnation_id);
        if (out->sandbox && out->backend_namespace && out->incarnation_id &&
            fill_record(out->sandbox, &meta, &paths, &why) == SBX_OK)
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

static const sbx_backend_descriptor local_descriptor = {
    .abi_major = SBX_BACKEND_ABI_MAJOR,
    .abi_minor = SBX_BACKEND_ABI_MINOR,
    .struct_size = sizeof(sbx_backend_descriptor),
    .name = LOCAL_NAME,
    .version = PACKAGE_VERSION,
    .open = local_open,
    .close = local_close,
    .create = local_create,
    .destroy = local_destroy,
    .is_alive = local_is_alive,
    .discover = local_discover,
    .list_running = local_list_running,
    .free_sandboxes = common_sandbox_records_free,
    .capabilities = NULL,
    .reconcile = local_reconcile,
    .clear_reconciliation = common_reconciliation_clear,
    .create_record = local_create_record,
    .discover_record = local_discover_record,
    .list_records = local_list_records,
    .free_records = common_records_free,
};

const sbx_backend_descriptor *local_backend_descriptor(void)
{
    return &local_descriptor;
}
