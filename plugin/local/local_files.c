/* Reading, writing, listing and removing in a local sandbox (see
 * local_files.h). */
#include <config.h>

#include "plugin/local/local_files.h"

#include "common/op_results.h"
#include "plugin/local/local_identity.h"
#include "plugin/local/local_records.h"
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

/* The open sandbox and the split path of one file operation. */
typedef struct file_op {
    local_sandbox_root sandbox;
    local_rel rel;
    int dir_fd;   /* the directory holding rel.name (write, remove), or -1 */
    const char *op;
    const char *path;
} file_op;

static sbx_status op_start(sbx_backend_instance *inst, const char *sandbox_id, const char *op,
                           const char *path, file_op *f, sbx_error *err)
{
    f->op = op;
    f->path = path;
    f->dir_fd = -1;
    sbx_status st = local_open_file_root(inst, sandbox_id, op, path, &f->sandbox, err);
    if (st == SBX_OK)
        st = local_confine_split(&f->sandbox.root, op, path, &f->rel, err);
    return st;
}

static void op_end(file_op *f)
{
    if (f->dir_fd >= 0)
        close(f->dir_fd);
    local_sandbox_tmp_close(&f->sandbox.root);
}

static sbx_status path_error(const file_op *f, int errnum, sbx_error *err)
{
    return local_confine_error(&f->sandbox.root, f->op, f->path, errnum, err);
}

/* Open the operation's path itself with `flags` into *fd (the caller's),
 * else the error of the path. */
static sbx_status open_path(const file_op *f, int flags, int *fd, sbx_error *err)
{
    *fd = local_confine_open(f->sandbox.root.fd, f->rel.whole, flags, 0);
    return *fd < 0 ? path_error(f, errno, err) : SBX_OK;
}

/* Refuse a file that is not regular (a FIFO, socket or device). */
static sbx_status check_regular(const file_op *f, int fd, struct stat *st, sbx_error *err)
{
    if (fstat(fd, st) != 0)
        return path_error(f, errno, err);
    if (S_ISDIR(st->st_mode))
        return path_error(f, EISDIR, err);
    if (!S_ISREG(st->st_mode))
        return sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                     "%s in sandbox '%s': %s is not a regular file", f->op,
                                     f->sandbox.root.sandbox_id, f->rel.whole);
    return SBX_OK;
}

static sbx_status read_bytes(const file_op *f, int fd, uint64_t offset, uint64_t want,
                             sbx_file_content **out, sbx_error *err)
{
    common_dynbuf buf;
    common_dynbuf_init(&buf, 0);
    char chunk[65536];
    uint64_t got = 0;
    while (got < want) {
        size_t n = want - got < sizeof chunk ? (size_t)(want - got) : sizeof chunk;
        ssize_t r = pread(fd, chunk, n, (off_t)(offset + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            common_dynbuf_free(&buf);
            return path_error(f, errno, err);
        }
        if (r == 0)
            break;
        if (common_dynbuf_add(&buf, chunk, (size_t)r) != COMMON_DYNBUF_OK) {
            common_dynbuf_free(&buf);
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s: out of memory", f->op);
        }
        got += (uint64_t)r;
    }
    char more;
    int truncated = got == want && pread(fd, &more, 1, (off_t)(offset + got)) == 1;
    *out = common_file_content_new(&buf, truncated);
    common_dynbuf_free(&buf);
    if (*out == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s: out of memory", f->op);
    return SBX_OK;
}

/* Start operation `op` on `path` and open it read-only into *fd (the
 * caller closes it when it is not -1, then op_end), *sb its status:
 * SBX_OK only for a regular file. */
static sbx_status open_regular(sbx_backend_instance *inst, const char *sandbox_id,
                               const char *op, const char *path, file_op *f, int *fd,
                               struct stat *sb, sbx_error *err)
{
    *fd = -1;
    sbx_status st = op_start(inst, sandbox_id, op, path, f, err);
    /* O_NONBLOCK: a FIFO must not hang the open; it is refused below (a
     * regular file's reads ignore it). */
    if (st == SBX_OK)
        st = open_path(f, O_RDONLY | O_NONBLOCK | O_NOCTTY, fd, err);
    if (st == SBX_OK)
        st = check_regular(f, *fd, sb, err);
    return st;
}

sbx_status local_read_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                           uint64_t offset, uint64_t max_bytes, sbx_file_content **out,
                           sbx_error *err)
{
    file_op f;
    int fd;
    struct stat sb;
    sbx_status st = open_regular(inst, sandbox_id, "read_file", path, &f, &fd, &sb, err);
    if (st == SBX_OK && offset > (uint64_t)INT64_MAX)
        st = sbx_backend_error_set(err, SBX_ERR_USAGE, "read_file: offset %llu is too large",
                                   (unsigned long long)offset);
    if (st == SBX_OK)
        st = read_bytes(&f, fd, offset, max_bytes < LOCAL_MAX_FILE_BYTES ? max_bytes
                                                                         : LOCAL_MAX_FILE_BYTES,
                        out, err);
    if (fd >= 0)
        close(fd);
    op_end(&f);
    return st;
}

sbx_status local_open_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                           int *fd, uint64_t *size, sbx_error *err)
{
    file_op f;
    int opened;
    struct stat sb;
    sbx_status st = open_regular(inst, sandbox_id, "open_file", path, &f, &opened, &sb, err);
    if (st == SBX_OK && (uint64_t)sb.st_size > LOCAL_MAX_FILE_BYTES)
        st = sbx_backend_error_set(err, SBX_ERR_USAGE,
                                   "open_file in sandbox '%s': %s is larger than %llu bytes, "
                                   "the most a read answers",
                                   f.sandbox.root.sandbox_id, f.rel.whole,
                                   (unsigned long long)LOCAL_MAX_FILE_BYTES);
    if (st == SBX_OK) {
        *fd = opened;
        *size = (uint64_t)sb.st_size;
    } else if (opened >= 0) {
        close(opened);
    }
    op_end(&f);
    return st;
}

static int write_all(int fd, const char *data, size_t length)
{
    while (length > 0) {
        ssize_t n = write(fd, data, length);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return 0;
        data += n;
        length -= (size_t)n;
    }
    return 1;
}

/* Write into a file opened (or created) at the path itself. */
static sbx_status write_in_place(const file_op *f, int flags, mode_t mode, const void *data,
                                 size_t length, sbx_error *err)
{
    int fd = local_confine_open(f->dir_fd, f->rel.name, O_WRONLY | O_NOCTTY | O_NONBLOCK | flags,
                                mode);
    if (fd < 0)
        return path_error(f, errno, err);
    struct stat sb;
    sbx_status st = check_regular(f, fd, &sb, err);
    int e = 0;
    if (st == SBX_OK && (flags & O_CREAT) && (flags & O_EXCL) &&
        (fchmod(fd, mode) != 0 || (e = local_confine_own(&f->sandbox.root, fd)) != 0))
        st = path_error(f, e != 0 ? e : errno, err);
    if (st == SBX_OK && !write_all(fd, data, length))
        st = path_error(f, errno, err);
    close(fd);
    return st;
}

/* A new file beside rel.name in its directory, filled, then renamed over
 * it, so that readers see the old file or the new one, never a part. */
static sbx_status replace(const file_op *f, mode_t mode, const void *data, size_t length,
                          sbx_error *err)
{
    char tmp[64], token[LOCAL_ID_SIZE];
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 8; attempt++) {
        if (local_random_id(token, err) != SBX_OK)
            return err->kind;
        snprintf(tmp, sizeof tmp, ".sbx-write-%.16s", token);
        fd = openat(f->dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0 && errno != EEXIST)
            return path_error(f, errno, err);
    }
    if (fd < 0)
        return path_error(f, EEXIST, err);
    sbx_status st = SBX_OK;
    int e = local_confine_own(&f->sandbox.root, fd);
    if (e != 0)
        errno = e;
    if (e != 0 || fchmod(fd, mode) != 0 || !write_all(fd, data, length) ||
        renameat(f->dir_fd, tmp, f->dir_fd, f->rel.name) != 0)
        st = path_error(f, errno, err);
    if (st != SBX_OK)
        unlinkat(f->dir_fd, tmp, 0);
    close(fd);
    return st;
}

/* The write of a whole file: through a link (confined), or by replacing
 * what is there (a new file keeps the old one's permissions when the
 * caller gives none). */
static sbx_status write_whole(const file_op *f, uint32_t mode, const void *data,
                              size_t length, sbx_error *err)
{
    struct stat sb;
    if (fstatat(f->dir_fd, f->rel.name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT)
            return path_error(f, errno, err);
        return replace(f, mode != 0 ? mode : 0644, data, length, err);
    }
    if (S_ISLNK(sb.st_mode))
        return write_in_place(f, O_TRUNC, 0, data, length, err);
    if (S_ISDIR(sb.st_mode))
        return path_error(f, EISDIR, err);
    if (!S_ISREG(sb.st_mode))
        return sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                     "write_file in sandbox '%s': %s is not a regular file",
                                     f->sandbox.root.sandbox_id, f->rel.whole);
    return replace(f, mode != 0 ? mode : (sb.st_mode & 07777), data, length, err);
}

sbx_status local_write_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                            const void *data, size_t length, unsigned flags, uint32_t mode,
                            sbx_error *err)
{
    file_op f;
    sbx_status st = op_start(inst, sandbox_id, "write_file", path, &f, err);
    if (st == SBX_OK && (uint64_t)length > LOCAL_MAX_FILE_BYTES)
        st = sbx_backend_error_set(err, SBX_ERR_USAGE, "write_file: %zu bytes is more than "
                                   "the largest write, %llu", length,
                                   (unsigned long long)LOCAL_MAX_FILE_BYTES);
    if (st == SBX_OK && (strcmp(f.rel.name, ".") == 0 || strcmp(f.rel.name, "..") == 0))
        st = path_error(&f, strcmp(f.rel.name, ".") == 0 ? EISDIR : EXDEV, err);
    if (st == SBX_OK)
        st = local_confine_parent(&f.sandbox.root, f.op, &f.rel, (flags & SBX_WRITE_MKDIRS) != 0,
                                  &f.dir_fd, err);
    mode_t create_mode = mode != 0 ? (mode_t)mode : 0644;
    if (st == SBX_OK && (flags & SBX_WRITE_EXCLUSIVE))
        st = write_in_place(&f, O_CREAT | O_EXCL | (int)((flags & SBX_WRITE_APPEND) ? O_APPEND
                                                                                : 0),
                            create_mode, data, length, err);
    else if (st == SBX_OK && (flags & SBX_WRITE_APPEND)) {
        /* Created exclusively first, so that a new file gets `mode` whatever
         * the umask; an existing one is appended to. */
        st = write_in_place(&f, O_CREAT | O_EXCL | O_APPEND, create_mode, data, length, err);
        if (st == SBX_ERR_EXISTS)
            st = write_in_place(&f, O_APPEND, 0, data, length, err);
    }
    else if (st == SBX_OK)
        st = write_whole(&f, mode, data, length, err);
    op_end(&f);
    return st;
}

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
    file_op f;
    sbx_status st = op_start(inst, sandbox_id, "list_dir", path, &f, err);
    int fd = -1;
    if (st == SBX_OK)
        st = open_path(&f, O_RDONLY | O_DIRECTORY, &fd, err);
    walk *w = st == SBX_OK ? calloc(1, sizeof *w) : NULL;
    if (st == SBX_OK && w == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "list_dir: out of memory");
    if (st == SBX_OK) {
        w->root = &f.sandbox.root;
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
    op_end(&f);
    return st;
}

sbx_status local_remove_path(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                             unsigned flags, sbx_error *err)
{
    file_op f;
    sbx_status st = op_start(inst, sandbox_id, "remove_path", path, &f, err);
    if (st == SBX_OK && (strcmp(f.rel.name, ".") == 0 || strcmp(f.rel.name, "..") == 0))
        st = sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                   "remove_path in sandbox '%s': %s names a directory above "
                                   "the path, the sandbox directory itself or its /tmp; "
                                   "nothing was removed", sandbox_id, path);
    if (st == SBX_OK)
        st = local_confine_parent(&f.sandbox.root, f.op, &f.rel, 0, &f.dir_fd, err);
    struct stat sb;
    if (st == SBX_OK && fstatat(f.dir_fd, f.rel.name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        st = path_error(&f, errno, err);
    if (st == SBX_OK && S_ISDIR(sb.st_mode)) {
        /* The tree below is made removable as it goes (local_remove.h),
         * the directory holding it is not: refused before anything goes. */
        if (!(flags & SBX_REMOVE_RECURSIVE))
            st = path_error(&f, EISDIR, err);
        else if (faccessat(f.dir_fd, ".", W_OK | X_OK, AT_EACCESS) != 0)
            st = path_error(&f, errno, err);
        else
            st = local_remove_tree(f.dir_fd, f.rel.name, f.rel.whole, err);
    } else if (st == SBX_OK && unlinkat(f.dir_fd, f.rel.name, 0) != 0) {
        st = path_error(&f, errno, err);
    }
    op_end(&f);
    return st;
}
