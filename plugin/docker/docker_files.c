/* File operations in a sandbox's container (see docker_files.h). */
#include <config.h>

#include "plugin/docker/docker_files.h"

#include "common/op_results.h"
#include "plugin/docker/docker_archive.h"
#include "plugin/docker/docker_exec.h"
#include "plugin/docker/docker_kept_reads.h"
#include "plugin/docker/docker_listing.h"

#include <limits.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Symbolic links a read or a listing follows before giving up. */
#define MAX_LINKS 8

/* Output kept of a command that only says whether it worked. */
#define FILE_COMMAND_OUTPUT 4096

/* ------------------------------------------------------------ places */

/* Where a file operation acts: the running container of its sandbox and
 * the path resolved in it. */
typedef struct file_place {
    docker_target t;
    char at[DOCKER_PATH_MAX];
} file_place;

/* The opening of every file operation: docker_target_find for `op`, then
 * `path` resolved from the target's working directory into p->at.
 * Errors as those two give them. */
static sbx_status find_place(sbx_backend_instance *inst, const char *sandbox_id, const char *op,
                             const char *path, file_place *p, sbx_error *err)
{
    sbx_status st = docker_target_find(inst, sandbox_id, op, &p->t, err);
    if (st == SBX_OK)
        st = docker_target_path(&p->t, path, p->at, err);
    return st;
}

/* `path` in the target's container, as the archive calls take it. */
static docker_archive_path in_container(sbx_backend_instance *inst, const docker_target *t,
                                        const char *path)
{
    return (docker_archive_path){ .engine = &inst->engine, .container_id = t->container_id,
                                  .what = t->what, .path = path };
}

/* ------------------------------------------------------------ stat */

/* What the first member of a path's archive says of it. */
typedef struct path_stat {
    int exists;
    unsigned type;                /* AE_IFREG, AE_IFDIR, AE_IFLNK... */
    char link[DOCKER_PATH_MAX];   /* a link's target */
} path_stat;

static int stat_visit(void *ctx, struct archive *a, struct archive_entry *e, sbx_error *err)
{
    (void)a;
    (void)err;
    path_stat *s = ctx;
    s->exists = 1;
    s->type = archive_entry_filetype(e);
    const char *link = archive_entry_symlink(e);
    snprintf(s->link, sizeof s->link, "%s", link != NULL ? link : "");
    return 1;
}

/* Stat `path`, for its existence and type: a missing path is
 * s->exists 0, not an error.  The engine's stat header answers at once;
 * the first member of the path's archive when it does not say (podman
 * builds a GET's archive in about 0.8 s, even to be cut after a member). */
static sbx_status stat_path(sbx_backend_instance *inst, const docker_target *t, const char *path,
                            path_stat *s, sbx_error *err)
{
    memset(s, 0, sizeof *s);
    docker_archive_path at = in_container(inst, t, path);
    sbx_status st = docker_archive_stat(&at, &s->exists, &s->type, err);
    if (st != SBX_OK || s->exists >= 0)
        return st;
    s->exists = 0;
    st = docker_archive_get(&at, stat_visit, s, err);
    if (st == SBX_ERR_NO_SUCH_PATH) {
        sbx_backend_error_clear(err);
        return SBX_OK;
    }
    return st;
}

/* The path a link at `path` leads to, cleaned into `out`. */
static sbx_status follow_link(const docker_target *t, const char *path, const char *link,
                              char *out, sbx_error *err)
{
    char parent[DOCKER_PATH_MAX], name[DOCKER_PATH_MAX];
    if (docker_path_split(path, parent, name) != 0)
        snprintf(parent, sizeof parent, "/");
    if (link[0] == '\0' || docker_path_resolve(parent, link, out) != 0)
        return sbx_backend_error_set(err, SBX_ERR_NO_SUCH_PATH,
                                     "docker: %s: a symbolic link leads nowhere", t->what);
    return SBX_OK;
}

static sbx_status too_many_links(const docker_target *t, sbx_error *err)
{
    return sbx_backend_error_set(err, SBX_ERR_NO_SUCH_PATH,
                                 "docker: %s: more than %d symbolic links on the path", t->what,
                                 MAX_LINKS);
}

/* ------------------------------------------------------------ commands */

/* Run a file command (`command`: argv with paths as elements, stdin and
 * the output kept; its timeout is the engine's) and turn its failure
 * into the path's kind, from the system's words on its stderr.  Its
 * result goes to *result when that is not NULL. */
static sbx_status run_file_command(sbx_backend_instance *inst, const docker_target *t,
                                   const docker_exec_spec *command, sbx_exec_result **result,
                                   sbx_error *err)
{
    docker_exec_spec spec = *command;
    spec.timeout_ms = inst->engine.timeout_ms;
    sbx_exec_result *r = NULL;
    sbx_status st = docker_exec_run(inst, t, &spec, &r, err);
    if (st != SBX_OK)
        return st;
    if (r->outcome == SBX_EXEC_EXITED && r->exit_code == 0) {
        if (result != NULL)
            *result = r;
        else
            common_exec_result_free(r);
        return SBX_OK;
    }
    static const struct {
        const char *words;
        sbx_status kind;
    } kinds[] = {
        { "No such file", SBX_ERR_NO_SUCH_PATH },
        { "Not a directory", SBX_ERR_NOT_A_DIRECTORY },
        { "File exists", SBX_ERR_NOT_A_DIRECTORY },
        { "Is a directory", SBX_ERR_IS_A_DIRECTORY },
        { "ermission denied", SBX_ERR_PERMISSION },
        { "Read-only file system", SBX_ERR_PERMISSION },
        { "Operation not permitted", SBX_ERR_PERMISSION },
    };
    st = SBX_ERR_PROVISIONER;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strstr(r->stderr_data, kinds[i].words) != NULL) {
            st = kinds[i].kind;
            break;
        }
    char shown[200];
    size_t n = strcspn(r->stderr_data, "\n");
    snprintf(shown, sizeof shown, "%.*s", (int)(n < 180 ? n : 180), r->stderr_data);
    if (r->outcome == SBX_EXEC_EXITED && r->exit_code == 127 && st == SBX_ERR_PROVISIONER)
        sbx_backend_error_set(err, st,
                              "docker: %s: the image lacks a program the operation needs (%s)",
                              t->what, shown);
    else
        sbx_backend_error_set(err, st, "docker: %s: %s failed: %s", t->what, spec.argv[0], shown);
    common_exec_result_free(r);
    return st;
}

/* ------------------------------------------------------------ read_file */

/* Open the archive of `at` positioned at the data of the regular file it
 * names, following symbolic links (at most MAX_LINKS): `at` ends as the
 * path last asked for. */
static sbx_status open_file(sbx_backend_instance *inst, const docker_target *t, char *at,
                            docker_archive_reader **out, sbx_error *err)
{
    for (int hops = 0;; hops++) {
        docker_archive_reader *r = NULL;
        struct archive_entry *e = NULL;
        docker_archive_path where = in_container(inst, t, at);
        sbx_status st = docker_archive_open(&where, &r, err);
        if (st == SBX_OK)
            st = docker_archive_next(r, &e, err);
        if (st == SBX_OK && e == NULL)
            st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                       "docker: %s: the engine's archive of '%s' is empty",
                                       t->what, at);
        path_stat first;
        if (st == SBX_OK) {
            stat_visit(&first, NULL, e, err);
            if (first.type == AE_IFREG) {
                *out = r;
                return SBX_OK;
            }
        }
        docker_archive_close(r);
        if (st != SBX_OK)
            return st;
        if (first.type == AE_IFDIR)
            return sbx_backend_error_set(err, SBX_ERR_IS_A_DIRECTORY,
                                         "docker: %s: '%s' is a directory", t->what, at);
        if (first.type != AE_IFLNK)
            return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                         "docker: %s: '%s' is not a regular file", t->what, at);
        if (hops == MAX_LINKS)
            return too_many_links(t, err);
        st = follow_link(t, at, first.link, at, err);
        if (st != SBX_OK)
            return st;
    }
}

/* The next bytes of `k` into its block (k->at 0, k->len how many; 0 at
 * the end of the file) when none are left there. */
static sbx_status fill_block(docker_kept_read *k, sbx_error *err)
{
    if (k->at < k->len)
        return SBX_OK;
    k->at = 0;
    return docker_archive_data(k->reader, k->block, DOCKER_KEPT_READ_BLOCK, &k->len, err);
}

/* Drop `count` bytes of `k`'s file. */
static sbx_status skip_bytes(docker_kept_read *k, uint64_t count, sbx_error *err)
{
    while (count > 0) {
        sbx_status st = fill_block(k, err);
        if (st != SBX_OK || k->len == 0)
            return st;
        size_t n = k->len - k->at < count ? k->len - k->at : (size_t)count;
        k->at += n;
        k->next_offset += n;
        count -= n;
    }
    return SBX_OK;
}

/* Up to `max` bytes of `k`'s file into `kept`; *more 1 when the file has
 * bytes past them (they stay in k for the next piece). */
static sbx_status take_bytes(docker_kept_read *k, uint64_t max, common_dynbuf *kept, int *more,
                             sbx_error *err)
{
    *more = 0;
    for (;;) {
        sbx_status st = fill_block(k, err);
        if (st != SBX_OK || k->len == 0)
            return st;
        if (kept->len == max) {
            *more = 1;
            return SBX_OK;
        }
        size_t room = (size_t)(max - kept->len), ready = k->len - k->at;
        size_t n = ready < room ? ready : room;
        if (common_dynbuf_add(kept, k->block + k->at, n) != COMMON_DYNBUF_OK)
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory reading a file");
        k->at += n;
        k->next_offset += n;
    }
}

/* A new read of `path` in the sandbox, positioned at `offset`. */
static sbx_status start_read(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *path, uint64_t offset, docker_kept_read *k,
                             sbx_error *err)
{
    file_place p;
    memset(k, 0, sizeof *k);
    sbx_status st = find_place(inst, sandbox_id, "read_file", path, &p, err);
    if (st == SBX_OK && (k->block = malloc(DOCKER_KEPT_READ_BLOCK)) == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    if (st == SBX_OK)
        st = open_file(inst, &p.t, p.at, &k->reader, err);
    if (st == SBX_OK)
        st = skip_bytes(k, offset, err);
    if (st != SBX_OK)
        docker_kept_read_close(k);
    return st;
}

sbx_status docker_read_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                            uint64_t offset, uint64_t max_bytes, sbx_file_content **out,
                            sbx_error *err)
{
    *out = NULL;
    docker_kept_read k;
    sbx_status st = SBX_OK;
    if (docker_kept_read_take(&inst->reads, sandbox_id, path, offset, &k))
        docker_archive_resume(k.reader, &inst->engine, err);
    else
        st = start_read(inst, sandbox_id, path, offset, &k, err);
    if (st != SBX_OK)
        return st;
    uint64_t max = max_bytes < DOCKER_MAX_FILE_BYTES ? max_bytes : DOCKER_MAX_FILE_BYTES;
    common_dynbuf kept;
    common_dynbuf_init(&kept, 0);
    int more = 0;
    st = take_bytes(&k, max, &kept, &more, err);
    if (st == SBX_OK && (*out = common_file_content_new(&kept, more)) == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    common_dynbuf_free(&kept);
    /* A path too long to be kept was refused by the lookup. */
    if (st == SBX_OK && more && strlen(path) < sizeof k.path) {
        snprintf(k.sandbox_id, sizeof k.sandbox_id, "%s", sandbox_id);
        snprintf(k.path, sizeof k.path, "%s", path);
        docker_kept_read_put(&inst->reads, &k);
    } else {
        docker_kept_read_close(&k);
    }
    return st;
}

/* ------------------------------------------------------------ write_file */

sbx_status docker_write_file(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *path, const void *data, size_t length, unsigned flags,
                             uint32_t mode, sbx_error *err)
{
    file_place p;
    char parent[DOCKER_PATH_MAX], name[DOCKER_PATH_MAX];
    sbx_status st = find_place(inst, sandbox_id, "write_file", path, &p, err);
    if (st != SBX_OK)
        return st;
    if (docker_path_split(p.at, parent, name) != 0)
        return sbx_backend_error_set(err, SBX_ERR_IS_A_DIRECTORY, "docker: %s: '/' is a directory",
                                     p.t.what);
    if (length > DOCKER_MAX_FILE_BYTES)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "docker: %s: %zu bytes are more than the largest write, "
                                     "%llu", p.t.what, length,
                                     (unsigned long long)DOCKER_MAX_FILE_BYTES);
    path_stat where, target;
    if (flags & SBX_WRITE_MKDIRS) {
        const char *mkdir_argv[] = { "mkdir", "-p", "--", parent, NULL };
        st = run_file_command(inst, &p.t,
                              &(docker_exec_spec){ .argv = mkdir_argv,
                                                   .max_output_bytes = FILE_COMMAND_OUTPUT },
                              NULL, err);
    } else {
        /* podman would make a missing directory, dockerd refuses: ask first. */
        st = stat_path(inst, &p.t, parent, &where, err);
        if (st == SBX_OK && !where.exists)
            st = sbx_backend_error_set(err, SBX_ERR_NO_SUCH_PATH,
                                       "docker: %s: the directory '%s' does not exist", p.t.what,
                                       parent);
        else if (st == SBX_OK && where.type != AE_IFDIR && where.type != AE_IFLNK)
            st = sbx_backend_error_set(err, SBX_ERR_NOT_A_DIRECTORY,
                                       "docker: %s: '%s' is not a directory", p.t.what, parent);
    }
    if (st == SBX_OK)
        st = stat_path(inst, &p.t, p.at, &target, err);
    if (st != SBX_OK)
        return st;
    if (target.exists && (flags & SBX_WRITE_EXCLUSIVE))
        return sbx_backend_error_set(err, SBX_ERR_EXISTS, "docker: %s: '%s' exists", p.t.what, p.at);
    if (target.exists && target.type == AE_IFDIR)
        return sbx_backend_error_set(err, SBX_ERR_IS_A_DIRECTORY, "docker: %s: '%s' is a directory",
                                     p.t.what, p.at);
    if (target.exists && (flags & SBX_WRITE_APPEND)) {
        /* The bytes go to cat's stdin as they are: exact, NULs kept. */
        const char *append_argv[] = { "/bin/sh", "-c", "exec cat >> \"$1\"", "sh", p.at, NULL };
        docker_exec_spec append = { .argv = append_argv, .stdin_data = data,
                                    .stdin_length = length,
                                    .max_output_bytes = FILE_COMMAND_OUTPUT };
        return run_file_command(inst, &p.t, &append, NULL, err);
    }
    docker_archive_path dir = in_container(inst, &p.t, parent);
    return docker_archive_put(&dir, name, data, length, mode ? mode : 0644, err);
}

/* ------------------------------------------------------------ list_dir */

/* $1 the directory (a link to one is followed), $2 the depth, $3 the stat
 * format: one record per entry (docker_listing.h), metadata only.  An
 * entry the walk cannot read under the directory is left out, as ls -R
 * does; only the directory itself failing is an error. */
#define LIST_SCRIPT                                                                         \
    "[ -e \"$1\" ] || { echo 'No such file or directory' >&2; exit 1; }; "                  \
    "[ -d \"$1\" ] || { echo 'Not a directory' >&2; exit 1; }; "                            \
    "cd -- \"$1\" 2>/dev/null || { echo 'Permission denied' >&2; exit 1; }; "               \
    "command -v find >/dev/null && command -v stat >/dev/null || "                          \
    "{ echo 'find or stat: not found' >&2; exit 127; }; "                                   \
    "find . -maxdepth \"$2\" -exec stat -c \"$3\" {} + 2>/dev/null; exit 0"

sbx_status docker_list_dir(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                           unsigned max_depth, size_t max_entries, sbx_dir_listing **out,
                           sbx_error *err)
{
    *out = NULL;
    file_place p;
    char depth[24];
    sbx_status st = find_place(inst, sandbox_id, "list_dir", path, &p, err);
    if (st != SBX_OK)
        return st;
    /* find takes an int. */
    snprintf(depth, sizeof depth, "%u", max_depth < INT_MAX ? max_depth : (unsigned)INT_MAX);
    const char *argv[] = { "/bin/sh", "-c", LIST_SCRIPT, "sh", p.at, depth,
                           DOCKER_LISTING_STAT_FORMAT, NULL };
    sbx_exec_result *r = NULL;
    st = run_file_command(inst, &p.t,
                          &(docker_exec_spec){ .argv = argv,
                                               .max_output_bytes = DOCKER_EXEC_MAX_OUTPUT },
                          &r, err);
    if (st != SBX_OK)
        return st;
    docker_listing_records records = { r->stdout_data, r->stdout_length, r->stdout_truncated };
    st = docker_listing_decode(&records, max_entries, p.t.what, out, err);
    common_exec_result_free(r);
    return st;
}

/* ------------------------------------------------------------ remove_path */

/* $1 the path, $2 "r" for a recursive removal.  A link is removed, never
 * followed ([ -L ] before [ -d ]). */
#define REMOVE_SCRIPT                                                                      \
    "if [ ! -e \"$1\" ] && [ ! -L \"$1\" ]; then echo 'No such file or directory' >&2; "  \
    "exit 1; fi; if [ -d \"$1\" ] && [ ! -L \"$1\" ]; then [ \"$2\" = r ] || "             \
    "{ echo 'Is a directory' >&2; exit 1; }; exec rm -rf -- \"$1\"; fi; exec rm -f -- \"$1\""

sbx_status docker_remove_path(sbx_backend_instance *inst, const char *sandbox_id,
                              const char *path, unsigned flags, sbx_error *err)
{
    file_place p;
    sbx_status st = find_place(inst, sandbox_id, "remove_path", path, &p, err);
    if (st == SBX_OK && strcmp(p.at, "/") == 0)
        st = sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                   "docker: %s: the root directory is never removed", p.t.what);
    if (st != SBX_OK)
        return st;
    const char *argv[] = { "/bin/sh", "-c", REMOVE_SCRIPT, "sh", p.at,
                           (flags & SBX_REMOVE_RECURSIVE) ? "r" : "", NULL };
    return run_file_command(inst, &p.t,
                            &(docker_exec_spec){ .argv = argv,
                                                 .max_output_bytes = FILE_COMMAND_OUTPUT },
                            NULL, err);
}
