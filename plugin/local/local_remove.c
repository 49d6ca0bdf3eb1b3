/* Mount-safe removal of a sandbox tree of any depth (see local_remove.h). */
#include <config.h>

#include "plugin/local/local_remove.h"

#include <sbx/backend_support.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What tells one file from another and one mount from another.  A bind
 * mount of a directory of the same file system has the same device: only
 * the mount id (statx, Linux 5.8) tells it apart. */
typedef struct node_id {
    uint64_t ino;
    uint32_t dev_major, dev_minor;
    uint64_t mnt_id;
    int has_mnt_id;
    int is_dir;
    mode_t mode;
} node_id;

/* A directory being emptied: its name in the directory above it. */
typedef struct level {
    char *name;
    node_id id;
} level;

/* The directories from the tree's root down to the one being emptied; the
 * walk holds only the deepest one open, so depth is bounded by memory, not
 * by file descriptors or PATH_MAX. */
typedef struct walk {
    level *levels;
    size_t depth, cap;
    const char *shown;
    sbx_error *err;
} walk;

/* Identify `name` in `dirfd` without following a symlink ("" = dirfd). */
static int identify(int dirfd, const char *name, node_id *out)
{
    struct statx sx;
    int flags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | (name[0] == '\0' ? AT_EMPTY_PATH : 0);
    if (statx(dirfd, name, flags, STATX_TYPE | STATX_MODE | STATX_INO | STATX_MNT_ID, &sx) != 0)
        return -1;
    out->ino = sx.stx_ino;
    out->dev_major = sx.stx_dev_major;
    out->dev_minor = sx.stx_dev_minor;
    out->has_mnt_id = (sx.stx_mask & STATX_MNT_ID) != 0;
    out->mnt_id = sx.stx_mnt_id;
    out->is_dir = S_ISDIR(sx.stx_mode);
    out->mode = sx.stx_mode & 07777;
    return 0;
}

static int same_mount(const node_id *a, const node_id *b)
{
    if (a->dev_major != b->dev_major || a->dev_minor != b->dev_minor)
        return 0;
    return !(a->has_mnt_id && b->has_mnt_id) || a->mnt_id == b->mnt_id;
}

/* The path of `name` in the deepest open directory (of the root itself
 * before the walk enters it), for a message: the whole path when it fits,
 * else the root, "...", and the name. */
static const char *path_of(const walk *w, const char *name, char *buf, size_t size)
{
    size_t used = (size_t)snprintf(buf, size, "%s", w->shown);
    if (w->depth == 0)
        return buf;
    for (size_t i = 1; i < w->depth && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "/%s", w->levels[i].name);
    if (used < size && name != NULL)
        used += (size_t)snprintf(buf + used, size - used, "/%s", name);
    if (used >= size)
        snprintf(buf, size, "%.200s/.../%.200s", w->shown,
                 name != NULL ? name : w->levels[w->depth - 1].name);
    return buf;
}

static sbx_status fail_at(walk *w, const char *name, const char *what, int errnum)
{
    char path[512];
    return sbx_backend_error_set(w->err, SBX_ERR_INTERNAL, "cannot remove %s: %s%s",
                                 path_of(w, name, path, sizeof path), what,
                                 errnum ? strerror(errnum) : "");
}

static sbx_status mount_point(walk *w, const char *name)
{
    char path[512];
    return sbx_backend_error_set(w->err, SBX_ERR_INTERNAL,
                                 "not removing %s: it is a mount point; nothing below it was "
                                 "touched (unmount it, then destroy again)",
                                 path_of(w, name, path, sizeof path));
}

static sbx_status push(walk *w, const char *name, const node_id *id)
{
    if (w->depth == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        level *grown = realloc(w->levels, cap * sizeof *grown);
        if (grown == NULL)
            return sbx_backend_error_set(w->err, SBX_ERR_INTERNAL, "out of memory");
        w->levels = grown;
        w->cap = cap;
    }
    char *copy = strdup(name);
    if (copy == NULL)
        return sbx_backend_error_set(w->err, SBX_ERR_INTERNAL, "out of memory");
    w->levels[w->depth].name = copy;
    w->levels[w->depth].id = *id;
    w->depth++;
    return SBX_OK;
}

static void pop(walk *w)
{
    free(w->levels[--w->depth].name);
}

/* Give the directory open as `path_fd` (O_PATH, checked to be the one
 * being removed) the owner's read, write and search permission, which
 * emptying it needs: a tree made read-only (chmod -R a-w, a Go module
 * cache, a directory of mode 0000) goes too.  Only directories about to
 * be removed are changed; fchmod takes no O_PATH descriptor, so the
 * change goes through its /proc/self/fd link, which names that very
 * directory whatever happens to its path. */
static int make_removable(int path_fd, mode_t mode)
{
    if ((mode & S_IRWXU) == S_IRWXU)
        return 0;
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", path_fd);
    return chmod(link, mode | S_IRWXU);
}

/* Open directory `name` of `parent_fd` (in the walk's deepest level, or the
 * root's parent) and check it is the directory `expected` on the mount of
 * `mount`: the entry may have been swapped since it was looked at.  It is
 * opened O_PATH first (which needs no permission on it), made removable,
 * then opened for reading. */
static sbx_status open_dir(walk *w, int parent_fd, const char *name, const node_id *expected,
                           const node_id *mount, int *out)
{
    int path_fd = openat(parent_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (path_fd < 0)
        return fail_at(w, name, "", errno);
    node_id got;
    sbx_status st = SBX_OK;
    int fd = -1;
    if (identify(path_fd, "", &got) != 0)
        st = fail_at(w, name, "", errno);
    else if (!same_mount(&got, mount))
        st = mount_point(w, name);
    else if (got.ino != expected->ino)
        st = fail_at(w, name, "it was replaced during the removal", 0);
    else if (make_removable(path_fd, got.mode) != 0 ||
             (fd = openat(path_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        st = fail_at(w, name, "", errno);
    close(path_fd);
    *out = fd;
    return st;
}

/* Unlink every entry of the deepest directory (open as `fd`) that is not a
 * directory, and name its first subdirectory in *child (malloc'ed; NULL
 * when there is none).  Stops at the first mount point. */
static sbx_status clear_files(walk *w, int fd, char **child, node_id *child_id)
{
    const node_id *here = &w->levels[w->depth - 1].id;
    int scan_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    DIR *dir = scan_fd >= 0 ? fdopendir(scan_fd) : NULL;
    if (dir == NULL) {
        int saved = errno;
        if (scan_fd >= 0)
            close(scan_fd);
        return fail_at(w, NULL, "", saved);
    }
    rewinddir(dir);
    sbx_status st = SBX_OK;
    struct dirent *e;
    *child = NULL;
    while (st == SBX_OK && (errno = 0, e = readdir(dir)) != NULL) {
        const char *name = e->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        node_id id;
        if (identify(fd, name, &id) != 0) {
            if (errno != ENOENT)
                st = fail_at(w, name, "", errno);
        } else if (!same_mount(&id, here)) {
            st = mount_point(w, name);
        } else if (id.is_dir) {
            if (*child == NULL) {
                *child = strdup(name);
                *child_id = id;
                if (*child == NULL)
                    st = sbx_backend_error_set(w->err, SBX_ERR_INTERNAL, "out of memory");
            }
        } else if (unlinkat(fd, name, 0) != 0 && errno != ENOENT) {
            st = fail_at(w, name, "", errno);
        }
    }
    if (st == SBX_OK && errno != 0)
        st = fail_at(w, NULL, "", errno);
    closedir(dir);
    if (st != SBX_OK) {
        free(*child);
        *child = NULL;
    }
    return st;
}

/* The deepest directory (open as *fd) is empty: go up through "..", check
 * that it leads to the directory we came from, and remove the empty one. */
static sbx_status leave_empty_dir(walk *w, int *fd)
{
    int up = openat(*fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    node_id got;
    const node_id *expected = &w->levels[w->depth - 2].id;
    sbx_status st = SBX_OK;
    if (up < 0 || identify(up, "", &got) != 0)
        st = fail_at(w, NULL, "", errno);
    else if (got.ino != expected->ino || !same_mount(&got, expected))
        st = fail_at(w, NULL, "it was moved during the removal", 0);
    else if (unlinkat(up, w->levels[w->depth - 1].name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        st = fail_at(w, NULL, "", errno);
    if (st != SBX_OK) {
        if (up >= 0)
            close(up);
        return st;
    }
    close(*fd);
    *fd = up;
    pop(w);
    return SBX_OK;
}

/* Empty the root directory (open as `fd`, level 0 of the walk) and every
 * directory below it, depth first. */
static sbx_status empty_tree(walk *w, int fd)
{
    sbx_status st = SBX_OK;
    while (st == SBX_OK) {
        char *child = NULL;
        node_id child_id;
        st = clear_files(w, fd, &child, &child_id);
        if (st != SBX_OK)
            break;
        if (child != NULL) {
            int child_fd = -1;
            st = open_dir(w, fd, child, &child_id, &w->levels[w->depth - 1].id, &child_fd);
            if (st == SBX_OK)
                st = push(w, child, &child_id);
            free(child);
            if (st != SBX_OK) {
                if (child_fd >= 0)
                    close(child_fd);
                break;
            }
            close(fd);
            fd = child_fd;
        } else if (w->depth == 1) {
            break;
        } else {
            st = leave_empty_dir(w, &fd);
        }
    }
    close(fd);
    return st;
}

sbx_status local_remove_tree(int parent_fd, const char *name, const char *shown,
                             sbx_error *err)
{
    walk w = { NULL, 0, 0, shown, err };
    node_id parent, root;
    if (identify(parent_fd, "", &parent) != 0)
        return fail_at(&w, name, "", errno);
    if (identify(parent_fd, name, &root) != 0)
        return errno == ENOENT ? SBX_OK : fail_at(&w, name, "", errno);
    if (!same_mount(&root, &parent))
        return mount_point(&w, name);
    if (!root.is_dir)
        return unlinkat(parent_fd, name, 0) != 0 && errno != ENOENT
                   ? fail_at(&w, name, "", errno) : SBX_OK;
    int fd = -1;
    sbx_status st = open_dir(&w, parent_fd, name, &root, &parent, &fd);
    if (st == SBX_OK) {
        st = push(&w, name, &root);
        if (st == SBX_OK)
            st = empty_tree(&w, fd);
        else
            close(fd);
    }
    /* The walk left the root empty (depth 1) or stopped with an error. */
    if (st == SBX_OK && unlinkat(parent_fd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        st = fail_at(&w, NULL, "", errno);
    while (w.depth > 0)
        pop(&w);
    free(w.levels);
    return st;
}
