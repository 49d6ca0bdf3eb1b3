/* Listing and removing in a local sandbox (see local_dirs.h). */
#include <config.h>

#include "plugin/local/local_dirs.h"

#include "common/op_results.h"
#include "plugin/local/local_ops.h"
#include "plugin/local/local_remove.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A listing being walked. */
typedef struct walk {
    common_listing_builder b;
    const local_root *root;
    unsigned max_depth;
    size_t max_entries;
} walk;

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* The names in directory `fd` (not "." and ".."), sorted; NULL with errno
 * on failure. */
static char **read_names(int fd, size_t *count)
{
    int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    DIR *dir = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (dir == NULL) {
        if (dup_fd >= 0)
            close(dup_fd);
        return NULL;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    int failed = 0;
    errno = 0;
    while (!failed && (e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            char **grown = realloc(names, cap * sizeof *names);
            failed = grown == NULL;
            names = grown != NULL ? grown : names;
        }
        if (!failed && (names[n] = strdup(e->d_name)) != NULL)
            n++;
        else
            failed = 1;
    }
    int saved = failed ? ENOMEM : errno;
    closedir(dir);
    if (saved != 0) {
        free_names(names, n);
        errno = saved;
        return NULL;
    }
    if (n > 1) /* an empty directory has no array to sort (qsort(NULL) is undefined) */
        qsort(names, n, sizeof *names, by_name);
    *count = n;
    return names != NULL ? names : calloc(1, sizeof *names);
}

static sbx_file_type type_of(mode_t mode)
{
    if (S_ISREG(mode))
        return SBX_FILE_REGULAR;
    if (S_ISDIR(mode))
        return SBX_FILE_DIRECTORY;
    if (S_ISLNK(mode))
        return SBX_FILE_SYMLINK;
    return SBX_FILE_OTHER;
}

/* List directory `fd` (its path `prefix` from the listed one, "" for it)
 * at `depth` (1: the listed directory's own entries). */
static sbx_status list_level(walk *w, int fd, const char *prefix, unsigned depth,
                             sbx_error *err)
{
    size_t n = 0;
    char **names = read_names(fd, &n);
    if (names == NULL)
        return local_confine_error(w->root, "list_dir", prefix[0] ? prefix : ".", errno, err);
    sbx_status st = SBX_OK;
    for (size_t i = 0; st == SBX_OK && i < n && !w->b.listing->truncated; i++) {
        if (w->b.listing->count == w->max_entries) {
            w->b.listing->truncated = 1;
            break;
        }
        struct stat sb;
        if (fstatat(fd, names[i], &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue;   /* removed meanwhile */
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "/" : "", names[i]) >=
            (int)sizeof path) {
            st = local_confine_error(w->root, "list_dir", prefix, ENAMETOOLONG, err);
            break;
        }
        int64_t mtime = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
        st = common_listing_add(&w->b, path, type_of(sb.st_mode),
                                S_ISDIR(sb.st_mode) ? 0 : (uint64_t)sb.st_size, mtime,
                                (uint32_t)(sb.st_mode & 07777), err);
        if (st == SBX_OK && S_ISDIR(sb.st_mode) && depth < w->max_depth) {
            int sub = openat(fd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) {
                st = list_level(w, sub, path, depth + 1, err);
                close(sub);
            }
        }
    }
    free_names(names, n);
    return st;
}

sbx_status local_list_dir(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                          unsigned max_depth, size_t max_entries, sbx_dir_listing **out,
                          sbx_error *err)
{
    local_paths paths;
    local_root root = { sandbox_id, NULL, -1 };
    local_rel rel;
    sbx_status st = local_open_root(inst, sandbox_id, "list_dir", &paths, &root, err);
    if (st == SBX_OK)
        st = local_confine_split(&root, "list_dir", path, &rel, err);
    int fd = -1;
    if (st == SBX_OK &&
        (fd = local_confine_open(root.fd, rel.whole, O_RDONLY | O_DIRECTORY, 0)) < 0)
        st = local_confine_error(&root, "list_dir", path, errno, err);
    walk w = { { NULL, NULL }, &root, max_depth, max_entries };
    if (st == SBX_OK)
        st = common_listing_start(&w.b, err);
    if (st == SBX_OK)
        st = list_level(&w, fd, "", 1, err);
    if (st == SBX_OK)
        *out = w.b.listing;
    else
        common_listing_free(w.b.listing);
    if (fd >= 0)
        close(fd);
    if (root.fd >= 0)
        close(root.fd);
    return st;
}

sbx_status local_remove_path(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                             unsigned flags, sbx_error *err)
{
    local_paths paths;
    local_root root = { sandbox_id, NULL, -1 };
    local_rel rel;
    sbx_status st = local_open_root(inst, sandbox_id, "remove_path", &paths, &root, err);
    if (st == SBX_OK)
        st = local_confine_split(&root, "remove_path", path, &rel, err);
    if (st == SBX_OK && (strcmp(rel.name, ".") == 0 || strcmp(rel.name, "..") == 0))
        st = sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                   "remove_path in sandbox '%s': %s names a directory above "
                                   "the path or the sandbox directory itself; nothing was "
                                   "removed", sandbox_id, rel.whole);
    int dir_fd = -1;
    if (st == SBX_OK)
        st = local_confine_parent(&root, "remove_path", &rel, 0, &dir_fd, err);
    struct stat sb;
    if (st == SBX_OK && fstatat(dir_fd, rel.name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        st = local_confine_error(&root, "remove_path", path, errno, err);
    if (st == SBX_OK && S_ISDIR(sb.st_mode)) {
        if (!(flags & SBX_REMOVE_RECURSIVE))
            st = local_confine_error(&root, "remove_path", path, EISDIR, err);
        else
            st = local_remove_tree(dir_fd, rel.name, rel.whole, err);
    } else if (st == SBX_OK && unlinkat(dir_fd, rel.name, 0) != 0) {
        st = local_confine_error(&root, "remove_path", path, errno, err);
    }
    if (dir_fd >= 0)
        close(dir_fd);
    if (root.fd >= 0)
        close(root.fd);
    return st;
}
