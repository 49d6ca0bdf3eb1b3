/* Listing and removing in a local sandbox (see local_dirs.h). */
#include <config.h>

#include "plugin/local/local_dirs.h"

#include "common/op_results.h"
#include "plugin/local/local_ops.h"
#include "plugin/local/local_remove.h"
#include "plugin/local/local_sandbox_tmp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A directory on the way down: its sorted names, the next one to list,
 * what identifies it (to check the way back up through "..") and the
 * length of its path from the listed directory. */
typedef struct level {
    char **names;
    size_t count, next;
    dev_t dev;
    ino_t ino;
    size_t prefix_len;
} level;

/* A listing being walked, depth first, without recursion: the levels
 * from the listed directory down to the one being listed are on the
 * heap, and only the deepest directory is open, so that neither the
 * stack nor the descriptors limit the depth. */
typedef struct walk {
    common_listing_builder b;
    const local_root *root;
    unsigned max_depth;
    size_t max_entries;
    level *levels;
    size_t depth, cap;
    int full;              /* max_entries listed and more found */
    char path[PATH_MAX];   /* the deepest level's path, then an entry's */
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

/* Enter directory `fd` (whose path from the listed one is w->path, of
 * `prefix_len` bytes): read its names onto a new level.  The caller
 * closes `fd` on failure. */
static sbx_status enter(walk *w, int fd, size_t prefix_len, sbx_error *err)
{
    struct stat sb;
    if (w->depth == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        level *grown = realloc(w->levels, cap * sizeof *grown);
        if (grown == NULL)
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "list_dir: out of memory");
        w->levels = grown;
        w->cap = cap;
    }
    level *l = &w->levels[w->depth];
    l->next = 0;
    l->prefix_len = prefix_len;
    l->names = fstat(fd, &sb) == 0 ? read_names(fd, &l->count) : NULL;
    if (l->names == NULL)
        return local_confine_error(w->root, "list_dir", prefix_len ? w->path : ".", errno, err);
    l->dev = sb.st_dev;
    l->ino = sb.st_ino;
    w->depth++;
    return SBX_OK;
}

/* The deepest level is listed: drop it and open the one above through
 * "..", checked to be the directory the walk came from (*fd replaced). */
static sbx_status leave(walk *w, int *fd, sbx_error *err)
{
    level *l = &w->levels[--w->depth];
    free_names(l->names, l->count);
    if (w->depth == 0)
        return SBX_OK;
    const level *up = &w->levels[w->depth - 1];
    w->path[up->prefix_len] = '\0';
    int up_fd = openat(*fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat sb;
    int same = up_fd >= 0 && fstat(up_fd, &sb) == 0 && sb.st_dev == up->dev &&
               sb.st_ino == up->ino;
    int saved = errno;
    close(*fd);
    *fd = up_fd;
    if (same)
        return SBX_OK;
    return up_fd < 0 ? local_confine_error(w->root, "list_dir", up->prefix_len ? w->path : ".",
                                           saved, err)
                     : sbx_backend_error_set(err, SBX_ERR_INTERNAL, "list_dir in sandbox '%s': "
                                             "a directory was moved during the listing",
                                             w->root->sandbox_id);
}

/* Set w->path to the path of `name` in the deepest level; 0 when it
 * would be PATH_MAX bytes or longer (no operation could take it). */
static int entry_path(walk *w, const char *name)
{
    size_t prefix_len = w->levels[w->depth - 1].prefix_len, len = strlen(name);
    size_t sep = prefix_len > 0;
    if (prefix_len + sep + len >= sizeof w->path)
        return 0;
    if (sep)
        w->path[prefix_len] = '/';
    memcpy(w->path + prefix_len + sep, name, len + 1);
    return 1;
}

/* List the next entry of the deepest level (open as *fd), and enter it
 * when it is a directory above max_depth. */
static sbx_status list_next(walk *w, int *fd, sbx_error *err)
{
    level *l = &w->levels[w->depth - 1];
    const char *name = l->names[l->next++];
    size_t prefix_len = l->prefix_len;   /* enter may move the levels */
    struct stat sb;
    if (fstatat(*fd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return SBX_OK;   /* removed meanwhile */
    if (!entry_path(w, name)) {
        w->b.listing->truncated = 1;
        return SBX_OK;
    }
    int64_t mtime = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
    common_listing_entry entry = { w->path, type_of(sb.st_mode),
                                   S_ISDIR(sb.st_mode) ? 0 : (uint64_t)sb.st_size, mtime,
                                   (uint32_t)(sb.st_mode & 07777) };
    sbx_status st = common_listing_add(&w->b, &entry, err);
    int sub = -1;
    if (st == SBX_OK && S_ISDIR(sb.st_mode) && w->depth < w->max_depth)
        sub = openat(*fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub >= 0 && (st = enter(w, sub, strlen(w->path), err)) == SBX_OK) {
        close(*fd);
        *fd = sub;
        return SBX_OK;
    }
    if (sub >= 0)
        close(sub);
    w->path[prefix_len] = '\0';
    return st;
}

/* The listing of directory `fd` (closed here), depth first. */
static sbx_status list_tree(walk *w, int fd, sbx_error *err)
{
    w->path[0] = '\0';
    sbx_status st = enter(w, fd, 0, err);
    while (st == SBX_OK && w->depth > 0) {
        const level *l = &w->levels[w->depth - 1];
        if (w->full || l->next == l->count)
            st = leave(w, &fd, err);
        else if (w->b.listing->count == w->max_entries)
            w->full = w->b.listing->truncated = 1;
        else
            st = list_next(w, &fd, err);
    }
    while (w->depth > 0) {
        w->depth--;
        free_names(w->levels[w->depth].names, w->levels[w->depth].count);
    }
    free(w->levels);
    if (fd >= 0)
        close(fd);
    return st;
}

sbx_status local_list_dir(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                          unsigned max_depth, size_t max_entries, sbx_dir_listing **out,
                          sbx_error *err)
{
    local_paths paths;
    local_root root = { sandbox_id, NULL, -1 };
    local_rel rel;
    sbx_status st = local_open_file_root(inst, sandbox_id, "list_dir", path, &paths, &root,
                                         err);
    if (st == SBX_OK)
        st = local_confine_split(&root, "list_dir", path, &rel, err);
    int fd = -1;
    if (st == SBX_OK &&
        (fd = local_confine_open(root.fd, rel.whole, O_RDONLY | O_DIRECTORY, 0)) < 0)
        st = local_confine_error(&root, "list_dir", path, errno, err);
    walk *w = st == SBX_OK ? calloc(1, sizeof *w) : NULL;
    if (st == SBX_OK && w == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "list_dir: out of memory");
    if (st == SBX_OK) {
        w->root = &root;
        w->max_depth = max_depth;
        w->max_entries = max_entries;
        st = common_listing_start(&w->b, err);
    }
    if (st == SBX_OK) {
        st = list_tree(w, fd, err);
        fd = -1;
    }
    if (st == SBX_OK)
        *out = w->b.listing;
    else if (w != NULL)
        common_listing_free(w->b.listing);
    free(w);
    if (fd >= 0)
        close(fd);
    local_sandbox_tmp_close(&root);
    return st;
}

sbx_status local_remove_path(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                             unsigned flags, sbx_error *err)
{
    local_paths paths;
    local_root root = { sandbox_id, NULL, -1 };
    local_rel rel;
    sbx_status st = local_open_file_root(inst, sandbox_id, "remove_path", path, &paths, &root,
                                         err);
    if (st == SBX_OK)
        st = local_confine_split(&root, "remove_path", path, &rel, err);
    if (st == SBX_OK && (strcmp(rel.name, ".") == 0 || strcmp(rel.name, "..") == 0))
        st = sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                   "remove_path in sandbox '%s': %s names a directory above "
                                   "the path, the sandbox directory itself or its /tmp; "
                                   "nothing was removed", sandbox_id, path);
    int dir_fd = -1;
    if (st == SBX_OK)
        st = local_confine_parent(&root, "remove_path", &rel, 0, &dir_fd, err);
    struct stat sb;
    if (st == SBX_OK && fstatat(dir_fd, rel.name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        st = local_confine_error(&root, "remove_path", path, errno, err);
    if (st == SBX_OK && S_ISDIR(sb.st_mode)) {
        /* The tree below is made removable as it goes (local_remove.h),
         * the directory holding it is not: refused before anything goes. */
        if (!(flags & SBX_REMOVE_RECURSIVE))
            st = local_confine_error(&root, "remove_path", path, EISDIR, err);
        else if (faccessat(dir_fd, ".", W_OK | X_OK, AT_EACCESS) != 0)
            st = local_confine_error(&root, "remove_path", path, errno, err);
        else
            st = local_remove_tree(dir_fd, rel.name, rel.whole, err);
    } else if (st == SBX_OK && unlinkat(dir_fd, rel.name, 0) != 0) {
        st = local_confine_error(&root, "remove_path", path, errno, err);
    }
    if (dir_fd >= 0)
        close(dir_fd);
    local_sandbox_tmp_close(&root);
    return st;
}
