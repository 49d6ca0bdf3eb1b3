/* Reading and writing files of a local sandbox (see local_files.h). */
#include <config.h>

#include "plugin/local/local_files.h"

#include "common/op_results.h"
#include "plugin/local/local_identity.h"
#include "plugin/local/local_ops.h"
#include "plugin/local/local_sandbox_tmp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The open sandbox and the split path of one file operation. */
typedef struct file_op {
    local_paths paths;
    local_root root;
    local_rel rel;
    const char *op;
    const char *path;
} file_op;

static sbx_status op_start(sbx_backend_instance *inst, const char *sandbox_id, const char *op,
                           const char *path, file_op *f, sbx_error *err)
{
    f->op = op;
    f->path = path;
    f->root.fd = -1;
    f->root.dir = NULL;
    sbx_status st = local_open_file_root(inst, sandbox_id, op, path, &f->paths, &f->root, err);
    if (st == SBX_OK)
        st = local_confine_split(&f->root, op, path, &f->rel, err);
    return st;
}

static void op_end(file_op *f)
{
    local_sandbox_tmp_close(&f->root);
}

static sbx_status path_error(const file_op *f, int errnum, sbx_error *err)
{
    return local_confine_error(&f->root, f->op, f->path, errnum, err);
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
                                     f->root.sandbox_id, f->rel.whole);
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

sbx_status local_read_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                           uint64_t offset, uint64_t max_bytes, sbx_file_content **out,
                           sbx_error *err)
{
    file_op f;
    sbx_status st = op_start(inst, sandbox_id, "read_file", path, &f, err);
    int fd = -1;
    /* O_NONBLOCK: a FIFO must not hang the open; it is refused below. */
    if (st == SBX_OK && (fd = local_confine_open(f.root.fd, f.rel.whole,
                                                 O_RDONLY | O_NONBLOCK | O_NOCTTY, 0)) < 0)
        st = path_error(&f, errno, err);
    struct stat sb;
    if (st == SBX_OK)
        st = check_regular(&f, fd, &sb, err);
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
static sbx_status write_in_place(const file_op *f, int base_fd, const char *rel, int flags,
                                 mode_t mode, const void *data, size_t length, sbx_error *err)
{
    int fd = local_confine_open(base_fd, rel, O_WRONLY | O_NOCTTY | O_NONBLOCK | flags, mode);
    if (fd < 0)
        return path_error(f, errno, err);
    struct stat sb;
    sbx_status st = check_regular(f, fd, &sb, err);
    int e = 0;
    if (st == SBX_OK && (flags & O_CREAT) && (flags & O_EXCL) &&
        (fchmod(fd, mode) != 0 || (e = local_confine_own(&f->root, fd)) != 0))
        st = path_error(f, e != 0 ? e : errno, err);
    if (st == SBX_OK && !write_all(fd, data, length))
        st = path_error(f, errno, err);
    close(fd);
    return st;
}

/* A new file beside `name` in `dir_fd`, filled, then renamed over it, so
 * that readers see the old file or the new one, never a part. */
static sbx_status replace(const file_op *f, int dir_fd, mode_t mode, const void *data,
                          size_t length, sbx_error *err)
{
    char tmp[64], token[LOCAL_ID_SIZE];
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 8; attempt++) {
        if (local_random_id(token, err) != SBX_OK)
            return err->kind;
        snprintf(tmp, sizeof tmp, ".sbx-write-%.16s", token);
        fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0 && errno != EEXIST)
            return path_error(f, errno, err);
    }
    if (fd < 0)
        return path_error(f, EEXIST, err);
    sbx_status st = SBX_OK;
    int e = local_confine_own(&f->root, fd);
    if (e != 0)
        errno = e;
    if (e != 0 || fchmod(fd, mode) != 0 || !write_all(fd, data, length) ||
        renameat(dir_fd, tmp, dir_fd, f->rel.name) != 0)
        st = path_error(f, errno, err);
    if (st != SBX_OK)
        unlinkat(dir_fd, tmp, 0);
    close(fd);
    return st;
}

/* The write of a whole file: through a link (confined), or by replacing
 * what is there (a new file keeps the old one's permissions when the
 * caller gives none). */
static sbx_status write_whole(const file_op *f, int dir_fd, uint32_t mode, const void *data,
                              size_t length, sbx_error *err)
{
    struct stat sb;
    if (fstatat(dir_fd, f->rel.name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT)
            return path_error(f, errno, err);
        return replace(f, dir_fd, mode != 0 ? mode : 0644, data, length, err);
    }
    if (S_ISLNK(sb.st_mode))
        return write_in_place(f, dir_fd, f->rel.name, O_TRUNC, 0, data, length, err);
    if (S_ISDIR(sb.st_mode))
        return path_error(f, EISDIR, err);
    if (!S_ISREG(sb.st_mode))
        return sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                     "write_file in sandbox '%s': %s is not a regular file",
                                     f->root.sandbox_id, f->rel.whole);
    return replace(f, dir_fd, mode != 0 ? mode : (sb.st_mode & 07777), data, length, err);
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
    int dir_fd = -1;
    if (st == SBX_OK)
        st = local_confine_parent(&f.root, f.op, &f.rel, (flags & SBX_WRITE_MKDIRS) != 0,
                                  &dir_fd, err);
    mode_t create_mode = mode != 0 ? (mode_t)mode : 0644;
    if (st == SBX_OK && (flags & SBX_WRITE_EXCLUSIVE))
        st = write_in_place(&f, dir_fd, f.rel.name, O_CREAT | O_EXCL | (int)((flags &
                            SBX_WRITE_APPEND) ? O_APPEND : 0), create_mode, data, length, err);
    else if (st == SBX_OK && (flags & SBX_WRITE_APPEND)) {
        /* Created exclusively first, so that a new file gets `mode` whatever
         * the umask; an existing one is appended to. */
        st = write_in_place(&f, dir_fd, f.rel.name, O_CREAT | O_EXCL | O_APPEND, create_mode,
                            data, length, err);
        if (st == SBX_ERR_EXISTS)
            st = write_in_place(&f, dir_fd, f.rel.name, O_APPEND, 0, data, length, err);
    }
    else if (st == SBX_OK)
        st = write_whole(&f, dir_fd, mode, data, length, err);
    if (dir_fd >= 0)
        close(dir_fd);
    op_end(&f);
    return st;
}
