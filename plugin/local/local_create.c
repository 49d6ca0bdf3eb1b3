/* The local backend's create (see local_create.h). */
#include <config.h>

#include "plugin/local/local_create.h"

#include "common/create_request.h"
#include "common/dynbuf.h"
#include "common/mount_contract.h"
#include "common/iso_time.h"
#include "common/tcp_ready.h"
#include "plugin/local/local_cgroup.h"
#include "plugin/local/local_command.h"
#include "plugin/local/local_disk.h"
#include "plugin/local/local_expiry.h"
#include "plugin/local/local_holder.h"
#include "plugin/local/local_identity.h"
#include "plugin/local/local_isolation_ids.h"
#include "plugin/local/local_net.h"
#include "plugin/local/local_ops.h"
#include "plugin/local/local_port.h"
#include "plugin/local/local_process.h"
#include "plugin/local/local_records.h"
#include "plugin/local/local_server.h"
#include "plugin/local/local_time.h"
#include "plugin/local/local_tomb.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What the local backend cannot honour is refused, never silently dropped:
 * of ABI 1.5's members it honours those of LOCAL_CREATE_FIELDS (the
 * limits as local_cgroup.h, the disk as local_disk.h, the network as
 * local_net.h can). */
static sbx_status check_request(const sbx_create_request *req, const sbx_create_request *full,
                                sbx_error *err)
{
    sbx_status st = common_create_request_check(LOCAL_NAME, req, err);
    if (st == SBX_OK)
        st = common_create_request_check_fields(full, err);
    if (st == SBX_OK)
        st = common_create_request_refuse_unhonoured(LOCAL_NAME, full, LOCAL_CREATE_FIELDS,
                                                     err);
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
    return common_builtin_contract_check(LOCAL_NAME, req, err);
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

/* With isolation=namespaces and the sandbox's `network` none the command's
 * port is on the sandbox's own loopback: nothing outside can reach it. */
static int served_inside(const local_options *options, int network)
{
    return options->isolation.mode == LOCAL_ISOLATION_NAMESPACES &&
           network == LOCAL_NETWORK_NONE;
}

/* With isolation=namespaces and network forward the backend itself listens
 * on the command's port on the host, so it keeps the port from the pick. */
static int forwarded(const local_options *options, int network)
{
    return options->isolation.mode == LOCAL_ISOLATION_NAMESPACES &&
           network == LOCAL_NETWORK_FORWARD;
}

/* A sandbox being made: its files, the record written of it, and the
 * watch on its command's process. */
typedef struct new_sandbox {
    sbx_backend_instance *inst;
    const local_paths *paths;
    local_metadata *meta;
    local_launch *launch;
} new_sandbox;

/* Start the command's process, in the namespaces of the sandbox's holder
 * when it is isolated (local_server.h); *port_fd (the kept socket of a
 * forwarded port, or -1) is taken over. */
static sbx_status launch_command(const new_sandbox *s, const local_shell_command *command,
                                 int log_fd,
                                 int *port_fd, sbx_error *err)
{
    const local_paths *paths = s->paths;
    local_metadata *meta = s->meta;
    local_launch *launch = s->launch;
    if (s->inst->options.isolation.mode != LOCAL_ISOLATION_NAMESPACES)
        return local_process_start(command, log_fd, NULL, &meta->process, launch, err);
    int holder = local_holder_pin_process(&meta->holder);
    if (holder < 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "isolation: the holder of %s is "
                                     "gone", paths->dir);
    local_server server;
    local_server_port port = { meta->port, *port_fd, local_net_of(&s->inst->options, meta) };
    sbx_status st = local_server_prepare(&s->inst->options.isolation, paths->dir, holder, port,
                                         &server, err);
    *port_fd = -1;
    if (st == SBX_OK)
        st = local_process_start(command, log_fd, &server, &meta->process, launch, err);
    if (st == SBX_OK) {
        launch->ready_fd = server.ready_read;
        server.ready_read = -1;
    }
    local_server_free(&server);
    return st;
}

/* Free what sandbox_env_strings made (NULL: nothing). */
static void free_env(const local_metadata *meta, char **env)
{
    for (size_t i = 0; env != NULL && i < meta->env_count; i++)
        free(env[i]);
    free(env);
}

/* The sandbox's env as "NAME=value" strings in *env (NULL when it has
 * none), one per variable of its record, freed with free_env. */
static sbx_status sandbox_env_strings(const local_metadata *meta, char ***env, sbx_error *err)
{
    *env = NULL;
    if (meta->env_count == 0)
        return SBX_OK;
    char **out = calloc(meta->env_count, sizeof *out);
    for (size_t i = 0; out != NULL && i < meta->env_count; i++) {
        common_dynbuf b;
        common_dynbuf_init(&b, 0);
        if (common_dynbuf_addf(&b, "%s=%s", meta->env[i].key, meta->env[i].value) !=
            COMMON_DYNBUF_OK) {
            common_dynbuf_free(&b);
            free_env(meta, out);
            out = NULL;
            break;
        }
        out[i] = common_dynbuf_take(&b, NULL);
    }
    if (out == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    *env = out;
    return SBX_OK;
}

/* Start the command of a new sandbox (whose record says "creating"): its
 * log, its process; the record names the process before the process may
 * run, so that whatever cuts the create short, destroy finds it. */
static sbx_status start_command(const new_sandbox *s, int *port_fd, int *made_log,
                                sbx_error *err)
{
    const local_paths *paths = s->paths;
    char *command = NULL;
    int log_fd = -1;
    sbx_status st = local_open_log(paths, &log_fd, err);
    *made_log = st == SBX_OK;
    if (st == SBX_OK)
        st = local_command_expand(s->inst->options.command, s->meta->port, paths->dir,
                                  &command, err);
    char **env = NULL;
    if (st == SBX_OK)
        st = sandbox_env_strings(s->meta, &env, err);
    if (st == SBX_OK) {
        local_shell_command shell = { command, env, s->meta->env_count };
        st = launch_command(s, &shell, log_fd, port_fd, err);
    }
    free_env(s->meta, env);
    free(command);
    if (log_fd >= 0)
        close(log_fd);
    if (st == SBX_OK)
        st = local_metadata_write(paths->metadata, paths->metadata_tmp, s->meta, err);
    if (st == SBX_OK)
        st = local_cgroup_adopt(&s->inst->cgroups, paths->id, s->meta->process.pid, err);
    if (st == SBX_OK)
        st = local_process_go(s->launch, err);
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
    if (meta->holder.pid != 0)
        local_process_stop(&meta->holder, 0, &ignored);
    local_remove_files(paths, made_dir, made_log, paths->metadata, &ignored);
}

/* The env of `req` as the record keeps it: pairs borrowing its strings,
 * in one array (*out, NULL when none) the caller frees. */
static sbx_status env_as_pairs(const sbx_create_request *req, sbx_label **out, sbx_error *err)
{
    *out = NULL;
    if (req->env_count == 0)
        return SBX_OK;
    sbx_label *pairs = calloc(req->env_count, sizeof *pairs);
    if (pairs == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < req->env_count; i++)
        pairs[i] = (sbx_label){ req->env[i].name, req->env[i].value };
    *out = pairs;
    return SBX_OK;
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
    sbx_label *env_pairs = NULL;
    sbx_status st = local_disk_check_reserve(&inst->options, req, err);
    if (st == SBX_OK)
        st = env_as_pairs(req, &env_pairs, err);
    if (st != SBX_OK)
        return st;
    char url[PATH_MAX + 16], created[32], incarnation[LOCAL_ID_SIZE];
    int port_fd = -1, isolated = inst->options.isolation.mode == LOCAL_ISOLATION_NAMESPACES;
    meta->network = local_net_for_record(&inst->options, req);
    int network = local_net_of(&inst->options, meta);
    /* Started first, so that its namespaces are made while the record is
     * written and synced; it binds the directory once made, then waits for
     * its go until a record names it (below).  A create killed before
     * leaves no holder: it exits when its channel closes. */
    local_holder_launch holder;
    st = isolated ? local_holder_start(&inst->options.isolation, network, paths->dir, &holder,
                                       err)
                  : SBX_OK;
    if (st != SBX_OK)
        return st;
    st = local_random_id(incarnation, err);
    if (st == SBX_OK && inst->options.command != NULL)
        st = local_pick_port(&meta->port, forwarded(&inst->options, network) ? &port_fd : NULL,
                             err);
    if (st != SBX_OK) {
        if (isolated)
            local_holder_abandon(&holder);
        free(env_pairs);
        return st;
    }
    /* The URL is an address that works from the host. */
    if (inst->options.command != NULL && !served_inside(&inst->options, network))
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
    char spec[COMMON_SPEC_DIGEST_SIZE];
    common_create_spec_digest(req, spec);
    meta->spec = spec;
    /* Borrowed as the strings are; env is copied into pairs (below). */
    meta->labels = (sbx_label *)req->labels;
    meta->label_count = req->label_count;
    meta->env = env_pairs;
    meta->env_count = req->env_count;
    meta->expires_at = req->expires_at;
    meta->without_cgroups = !local_cgroup_any_asked(req);
    int made_dir = 0, made_log = 0, holder_go = -1;
    st = local_metadata_write(paths->metadata, paths->metadata_tmp, meta, err);
    if (st == SBX_OK) {
        st = local_make_dir(paths, err);
        made_dir = st == SBX_OK;
    }
    if (st == SBX_OK)
        st = local_disk_make(&inst->options, paths, req, err);
    /* On a root host the sandbox runs as other ids, which must own it. */
    if (st == SBX_OK)
        st = local_isolation_ids_own(&inst->options.isolation, paths->dir, err);
    if (st == SBX_OK)
        st = local_cgroup_make(&inst->cgroups, req->sandbox_id, req, err);
    if (st == SBX_OK && isolated)
        st = local_holder_ready(&holder, &meta->holder, &holder_go, err);
    else if (isolated)
        local_holder_abandon(&holder);
    if (st == SBX_OK && isolated)
        st = local_cgroup_adopt(&inst->cgroups, req->sandbox_id, meta->holder.pid, err);
    new_sandbox made = { inst, paths, meta, launch };
    if (st == SBX_OK && inst->options.command != NULL)
        st = start_command(&made, &port_fd, &made_log, err);
    if (port_fd >= 0)
        close(port_fd);
    if (st == SBX_OK) {
        meta->creating = 0;
        st = local_metadata_write(paths->metadata, paths->metadata_tmp, meta, err);
    }
    if (st == SBX_OK && holder_go >= 0)
        st = local_holder_go(&holder_go, err);
    local_holder_release(&holder_go);
    if (st != SBX_OK) {
        undo_create(paths, meta, launch, made_dir, made_log);
        sbx_error ignored;
        local_cgroup_remove(&inst->cgroups, req->sandbox_id, &ignored);
    }
    /* The strings were borrowed for the write; hand back an empty record. */
    memset(meta, 0, sizeof *meta);
    free(env_pairs);
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
    sbx_status st = local_destroy_locked(inst, paths, err);
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

/* network=none: the command's process says when the command serves on
 * the sandbox's loopback (local_server.h), which nothing outside could
 * try; its exit ends the wait at once. */
static sbx_status wait_serving_inside(const sbx_backend_instance *inst,
                                      const local_metadata *meta, const local_paths *paths,
                                      local_launch *launch, sbx_error *err)
{
    long deadline = local_now_ms() + inst->options.ready_timeout_ms;
    struct pollfd p[2] = { { launch->ready_fd, POLLIN, 0 }, { launch->status_fd, POLLIN, 0 } };
    while (p[0].fd >= 0 || p[1].fd >= 0) {
        long left = deadline - local_now_ms();
        int rc = left > 0 ? poll(p, 2, left > INT_MAX ? INT_MAX : (int)left) : 0;
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc <= 0)
            break;
        char byte;
        if (p[0].revents != 0 && recv(p[0].fd, &byte, 1, MSG_DONTWAIT) == 1)
            return SBX_OK;
        int status;
        if (p[1].revents != 0 && local_launch_exit_status(launch, &status))
            return command_exited(meta, paths, status, err);
        /* Hung up without a word: wait on the other. */
        for (int i = 0; i < 2; i++)
            if (p[i].revents != 0)
                p[i].fd = -1;
    }
    return sbx_backend_error_set(err, SBX_ERR_TRANSPORT,
                                 "sandbox '%s' is not serving: nothing accepted a connection on "
                                 "127.0.0.1:%d inside the sandbox (network=none) within %ld ms "
                                 "(ready_timeout_ms; its output is in %s); the sandbox is left "
                                 "for destroy", meta->sandbox_id, meta->port,
                                 inst->options.ready_timeout_ms, paths->log);
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
    /* A port served only inside is waited for by the create that made it. */
    int inside = strncmp(meta->url, "http://", 7) != 0;
    if (meta->port == 0 || inst->options.ready_timeout_ms == 0 ||
        (!fresh && (inside || !local_record_alive(meta, paths))))
        return SBX_OK;
    if (inside)
        return launch->ready_fd >= 0 ? wait_serving_inside(inst, meta, paths, launch, err)
                                     : SBX_OK;
    char what[96];
    sbx_backend_format(what, sizeof what, "sandbox '%s'", meta->sandbox_id);
    long deadline = local_now_ms() + inst->options.ready_timeout_ms;
    common_ready_target target = { "127.0.0.1", meta->port, inst->options.ready_timeout_ms,
                                   what };
    int watch_fd = fresh ? launch->status_fd : -1;
    for (;;) {
        int woken = 0, status = 0;
        sbx_status st = common_tcp_wait_ready_watching(&target, watch_fd, &woken, err);
        if (st != SBX_OK || !woken)
            return st;
        if (local_launch_exit_status(launch, &status))
            return command_exited(meta, paths, status, err);
        /* The watcher is gone without a word: wait on without it. */
        watch_fd = -1;
        target.timeout_ms = deadline - local_now_ms();
        if (target.timeout_ms <= 0)
            target.timeout_ms = 1;
    }
}

/* create and create_record: the sandbox, answered as `to` asks. */
static sbx_status create_sandbox(sbx_backend_instance *inst, const sbx_create_request *req,
                                 const common_answer *to, sbx_error *err)
{
    sbx_create_request full;
    if (req != NULL)
        common_create_request_read(req, &full);
    sbx_status st = check_request(req, &full, err);
    if (st == SBX_OK)
        st = local_cgroup_check(&inst->cgroups, &full, err);
    if (st == SBX_OK)
        st = local_disk_check(&full, err);
    if (st == SBX_OK)
        st = local_net_check(&inst->options, &full, err);
    if (st != SBX_OK)
        return st;
    req = &full;
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
    st = local_finish_interrupted_destroy(inst, &paths, err);
    if (st == SBX_OK)
        st = local_load_metadata(inst, &paths, req->sandbox_id, &meta, err);
    if (st == SBX_OK && meta.creating)
        st = clear_interrupted_create(inst, &paths, &meta, err);
    else if (st == SBX_OK)
        st = local_expiry_enforce_locked(inst, &paths, &meta, err);
    if (st == SBX_ERR_NOT_FOUND) {
        sbx_backend_error_clear(err);
        attempted = 1;
        st = create_locked(inst, req, &paths, &meta, &launch, err);
        fresh = owned = st == SBX_OK;
        if (st == SBX_OK)
            st = local_load_metadata(inst, &paths, req->sandbox_id, &meta, err);
        if (st == SBX_OK)
            LOCAL_LOG(inst, SBX_LOG_INFO, "created sandbox %s at %s", req->sandbox_id, meta.url);
    } else if (st == SBX_OK) {
        st = common_create_request_check_owner(LOCAL_NAME, req, meta.user_id, meta.thread_id, err);
        if (st == SBX_OK)
            st = common_create_request_check_spec(LOCAL_NAME, req, meta.spec, err);
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
        st = local_single_record(&meta, &paths, to, err);
    if (st != SBX_OK && owned)
        common_answer_left_for_destroy(req->sandbox_id, err);
    if (st != SBX_OK)
        LOCAL_LOG(inst, SBX_LOG_WARN, "create of sandbox %s failed: %s", req->sandbox_id,
                  err->message);
    local_metadata_clear(&meta);
    return st;
}

sbx_status local_create(sbx_backend_instance *inst, const sbx_create_request *req,
                        sbx_sandbox **out, sbx_error *err)
{
    return create_sandbox(inst, req, &(common_answer){ out, NULL }, err);
}

sbx_status local_create_record(sbx_backend_instance *inst,
                               const sbx_create_request *req,
                               sbx_sandbox_record **out, sbx_error *err)
{
    return create_sandbox(inst, req, &(common_answer){ NULL, out }, err);
}
