/* File operations in a sandbox's container (see docker_files.h). */
#include <config.h>

#include "plugin/docker/docker_files.h"

#include "common/op_results.h"
#include "plugin/docker/docker_archive.h"
#include "plugin/docker/docker_exec.h"
#include "plugin/docker/docker_listing.h"

#include <limits.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Symbolic links a read or a listing follows before giving up. */
#define MAX_LINKS 8

/* Output kept of a command that only says whether it worked. */
#define FILE_COMMAND_OUTPUT 4096

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
    sbx_status st = docker_archive_stat(inst, t, path, &s->exists, &s->type, err);
    if (st != SBX_OK || s->exists >= 0)
        return st;
    s->exists = 0;
    st = docker_archive_get(inst, t, path, stat_visit, s, err);
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

/* Get the archive of `at` into `visit`, following a symbolic link the
 * first member names (at most MAX_LINKS): `at` ends as the path last
 * asked for.  `start` readies the state (ctx) before each get; `first`
 * is where the visitor records the first member. */
static sbx_status get_following_links(sbx_backend_instance *inst, const docker_target *t,
                                      char *at, docker_archive_visit_fn visit,
                                      sbx_status (*start)(void *ctx, sbx_error *err), void *ctx,
                                      const path_stat *first, sbx_error *err)
{
    for (int hops = 0;; hops++) {
        sbx_status st = start(ctx, err);
        if (st == SBX_OK)
            st = docker_archive_get(inst, t, at, visit, ctx, err);
        if (st != SBX_OK || first->type != AE_IFLNK)
            return st;
        if (hops == MAX_LINKS)
            return too_many_links(t, err);
        st = follow_link(t, at, first->link, at, err);
        if (st != SBX_OK)
            return st;
    }
}

/* ------------------------------------------------------------ commands */

/* Run a file command (argv: paths as elements) and turn its failure into
 * the path's kind, from the system's words on its stderr.  Its result
 * (stdout kept up to `max_output`) goes to *result when that is not
 * NULL. */
static sbx_status run_file_command(sbx_backend_instance *inst, const docker_target *t,
                                   const char *const *argv, const void *input, size_t length,
                                   size_t max_output, sbx_exec_result **result, sbx_error *err)
{
    docker_exec_spec spec = { .argv = argv, .stdin_data = input, .stdin_length = length,
                              .timeout_ms = inst->engine.timeout_ms,
                              .max_output_bytes = max_output };
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
        sbx_backend_error_set(err, st, "docker: %s: %s failed: %s", t->what, argv[0], shown);
    common_exec_result_free(r);
    return st;
}

/* ------------------------------------------------------------ read_file */

typedef struct read_state {
    uint64_t offset, max;
    common_dynbuf kept;
    int truncated;
    path_stat first;
} read_state;

static int read_visit(void *ctx, struct archive *a, struct archive_entry *e, sbx_error *err)
{
    read_state *s = ctx;
    stat_visit(&s->first, a, e, err);
    if (s->first.type != AE_IFREG)
        return 1;
    char block[65536];
    uint64_t skipped = 0;
    for (;;) {
        la_ssize_t n = archive_read_data(a, block, sizeof block);
        if (n < 0) {
            sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "docker: reading the file's archive: %s",
                                  archive_error_string(a));
            return -1;
        }
        if (n == 0)
            return 1;
        size_t at = 0, len = (size_t)n;
        if (skipped < s->offset) {
            uint64_t skip = s->offset - skipped;
            at = skip < len ? (size_t)skip : len;
            skipped += at;
        }
        size_t room = (size_t)(s->max - s->kept.len);
        size_t keep = len - at < room ? len - at : room;
        if (common_dynbuf_add(&s->kept, block + at, keep) != COMMON_DYNBUF_OK) {
            sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory reading a file");
            return -1;
        }
        if (keep < len - at) {
            /* A byte past the kept ones: the rest is never transferred. */
            s->truncated = 1;
            return 1;
        }
    }
}

/* A link's member keeps no bytes: only the first member is forgotten. */
static sbx_status read_start(void *ctx, sbx_error *err)
{
    (void)err;
    read_state *s = ctx;
    memset(&s->first, 0, sizeof s->first);
    return SBX_OK;
}

sbx_status docker_read_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                            uint64_t offset, uint64_t max_bytes, sbx_file_content **out,
                            sbx_error *err)
{
    *out = NULL;
    docker_target t;
    char at[DOCKER_PATH_MAX];
    sbx_status st = docker_target_at(inst, sandbox_id, "read_file", path, &t, at, err);
    read_state s;
    memset(&s, 0, sizeof s);
    s.offset = offset;
    s.max = max_bytes < DOCKER_MAX_FILE_BYTES ? max_bytes : DOCKER_MAX_FILE_BYTES;
    common_dynbuf_init(&s.kept, 0);
    if (st == SBX_OK)
        st = get_following_links(inst, &t, at, read_visit, read_start, &s, &s.first, err);
    if (st == SBX_OK && s.first.type == AE_IFDIR)
        st = sbx_backend_error_set(err, SBX_ERR_IS_A_DIRECTORY, "docker: %s: '%s' is a directory",
                                   t.what, at);
    else if (st == SBX_OK && s.first.type != AE_IFREG)
        st = sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                   "docker: %s: '%s' is not a regular file", t.what, at);
    if (st == SBX_OK && (*out = common_file_content_new(&s.kept, s.truncated)) == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    common_dynbuf_free(&s.kept);
    return st;
}

/* ------------------------------------------------------------ write_file */

sbx_status docker_write_file(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *path, const void *data, size_t length, unsigned flags,
                             uint32_t mode, sbx_error *err)
{
    docker_target t;
    char at[DOCKER_PATH_MAX], parent[DOCKER_PATH_MAX], name[DOCKER_PATH_MAX];
    sbx_status st = docker_target_at(inst, sandbox_id, "write_file", path, &t, at, err);
    if (st != SBX_OK)
        return st;
    if (docker_path_split(at, parent, name) != 0)
        return sbx_backend_error_set(err, SBX_ERR_IS_A_DIRECTORY, "docker: %s: '/' is a directory",
                                     t.what);
    if (length > DOCKER_MAX_FILE_BYTES)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "docker: %s: %zu bytes are more than the largest write, "
                                     "%llu", t.what, length,
                                     (unsigned long long)DOCKER_MAX_FILE_BYTES);
    path_stat where, target;
    if (flags & SBX_WRITE_MKDIRS) {
        const char *mkdir_argv[] = { "mkdir", "-p", "--", parent, NULL };
        st = run_file_command(inst, &t, mkdir_argv, NULL, 0, FILE_COMMAND_OUTPUT, NULL, err);
    } else {
        /* podman would make a missing directory, dockerd refuses: ask first. */
        st = stat_path(inst, &t, parent, &where, err);
        if (st == SBX_OK && !where.exists)
            st = sbx_backend_error_set(err, SBX_ERR_NO_SUCH_PATH,
                                       "docker: %s: the directory '%s' does not exist", t.what,
                                       parent);
        else if (st == SBX_OK && where.type != AE_IFDIR && where.type != AE_IFLNK)
            st = sbx_backend_error_set(err, SBX_ERR_NOT_A_DIRECTORY,
                                       "docker: %s: '%s' is not a directory", t.what, parent);
    }
    if (st == SBX_OK)
        st = stat_path(inst, &t, at, &target, err);
    if (st != SBX_OK)
        return st;
    if (target.exists && (flags & SBX_WRITE_EXCLUSIVE))
        return sbx_backend_error_set(err, SBX_ERR_EXISTS, "docker: %s: '%s' exists", t.what, at);
    if (target.exists && target.type == AE_IFDIR)
        return sbx_backend_error_set(err, SBX_ERR_IS_A_DIRECTORY, "docker: %s: '%s' is a directory",
                                     t.what, at);
    if (target.exists && (flags & SBX_WRITE_APPEND)) {
        /* The bytes go to cat's stdin as they are: exact, NULs kept. */
        const char *append_argv[] = { "/bin/sh", "-c", "exec cat >> \"$1\"", "sh", at, NULL };
        return run_file_command(inst, &t, append_argv, data, length, FILE_COMMAND_OUTPUT, NULL,
                                err);
    }
    return docker_archive_put(inst, &t, parent, name, data, length, mode ? mode : 0644, err);
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
    docker_target t;
    char at[DOCKER_PATH_MAX], depth[24];
    sbx_status st = docker_target_at(inst, sandbox_id, "list_dir", path, &t, at, err);
    if (st != SBX_OK)
        return st;
    /* find takes an int. */
    snprintf(depth, sizeof depth, "%u", max_depth < INT_MAX ? max_depth : (unsigned)INT_MAX);
    const char *argv[] = { "/bin/sh", "-c", LIST_SCRIPT, "sh", at, depth,
                           DOCKER_LISTING_STAT_FORMAT, NULL };
    sbx_exec_result *r = NULL;
    st = run_file_command(inst, &t, argv, NULL, 0, DOCKER_EXEC_MAX_OUTPUT, &r, err);
    if (st != SBX_OK)
        return st;
    st = docker_listing_decode(r->stdout_data, r->stdout_length, r->stdout_truncated,
                               max_entries, t.what, out, err);
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
    docker_target t;
    char at[DOCKER_PATH_MAX];
    sbx_status st = docker_target_at(inst, sandbox_id, "remove_path", path, &t, at, err);
    if (st == SBX_OK && strcmp(at, "/") == 0)
        st = sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                   "docker: %s: the root directory is never removed", t.what);
    if (st != SBX_OK)
        return st;
    const char *argv[] = { "/bin/sh", "-c", REMOVE_SCRIPT, "sh", at,
                           (flags & SBX_REMOVE_RECURSIVE) ? "r" : "", NULL };
    return run_file_command(inst, &t, argv, NULL, 0, FILE_COMMAND_OUTPUT, NULL, err);
}
