/* Paths confined to a sandbox directory (see local_confine.h). */
#include <config.h>

#include "plugin/local/local_confine.h"

#include "common/printable.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* How often a resolution is retried when the kernel saw a rename race
 * (EAGAIN) and declined to answer. */
#define RACE_RETRIES 16

int local_confine_within(const char *path, const char *dir)
{
    size_t dlen = strlen(dir);
    return strncmp(path, dir, dlen) == 0 && (path[dlen] == '/' || path[dlen] == '\0');
}

sbx_status local_confine_split(const local_root *root, const char *op, const char *path,
                               local_rel *out, sbx_error *err)
{
    char shown[80];
    size_t len = strlen(path);
    if (len == 0)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "%s in sandbox '%s': the path is empty",
                                     op, root->sandbox_id);
    if (len >= PATH_MAX)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "%s in sandbox '%s': the path %s is %zu bytes long (at "
                                     "most %d)", op, root->sandbox_id,
                                     common_printable(path, shown, sizeof shown), len,
                                     PATH_MAX - 1);
    const char *rel = path;
    if (path[0] == '/') {
        size_t dlen = strlen(root->dir);
        if (!local_confine_within(path, root->dir))
            return sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                         "%s in sandbox '%s': %s is outside the sandbox "
                                         "directory; nothing was read or written", op,
                                         root->sandbox_id,
                                         common_printable(path, shown, sizeof shown));
        rel = path + dlen;
        while (*rel == '/')
            rel++;
        if (*rel == '\0')
            rel = ".";
    }
    snprintf(out->whole, sizeof out->whole, "%s", rel);
    /* Trailing slashes name the same entry ("dir/" is "dir"). */
    size_t n = strlen(out->whole);
    while (n > 1 && out->whole[n - 1] == '/')
        out->whole[--n] = '\0';
    const char *slash = strrchr(out->whole, '/');
    if (slash == NULL) {
        snprintf(out->dir, sizeof out->dir, ".");
        snprintf(out->name, sizeof out->name, "%s", out->whole);
    } else {
        snprintf(out->dir, sizeof out->dir, "%.*s", (int)(slash - out->whole),
                 out->whole);
        if (out->dir[0] == '\0')
            snprintf(out->dir, sizeof out->dir, ".");
        snprintf(out->name, sizeof out->name, "%s", slash + 1);
    }
    return SBX_OK;
}

int local_confine_open(int base_fd, const char *rel, int flags, mode_t mode)
{
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (unsigned long long)(flags | O_CLOEXEC);
    how.mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    for (int attempt = 0;; attempt++) {
        long fd = syscall(SYS_openat2, base_fd, rel, &how, sizeof how);
        if (fd >= 0 || errno != EAGAIN || attempt == RACE_RETRIES)
            return (int)fd;
    }
}

sbx_status local_confine_error(const local_root *root, const char *op, const char *path,
                               int errnum, sbx_error *err)
{
    sbx_status kind;
    const char *what;
    switch (errnum) {
    case ENOENT: kind = SBX_ERR_NO_SUCH_PATH; what = "no such file or directory"; break;
    case ENOTDIR: kind = SBX_ERR_NOT_A_DIRECTORY; what = "not a directory"; break;
    case EISDIR: kind = SBX_ERR_IS_A_DIRECTORY; what = "is a directory"; break;
    case EEXIST: kind = SBX_ERR_EXISTS; what = "exists"; break;
    case ENOTEMPTY: kind = SBX_ERR_EXISTS; what = "is a directory that is not empty"; break;
    case EACCES:
    case EPERM:
    case EROFS: kind = SBX_ERR_PERMISSION; what = strerror(errnum); break;
    case EXDEV:
        kind = SBX_ERR_REFUSED;
        what = "leads outside the sandbox directory; nothing was read or written";
        break;
    case ELOOP:
        kind = SBX_ERR_REFUSED;
        what = "is or passes through a symbolic link that is not followed here (or too many "
               "of them); nothing was read or written";
        break;
    case ENXIO:
        kind = SBX_ERR_REFUSED;
        what = "is a FIFO without a reader, a socket or a device, not a regular file";
        break;
    case ENAMETOOLONG: kind = SBX_ERR_USAGE; what = "a name on it is too long"; break;
    case ENOSYS:
        kind = SBX_ERR_UNSUPPORTED;
        what = "confined paths need openat2 (Linux 5.6 or later)";
        break;
    default: kind = SBX_ERR_INTERNAL; what = strerror(errnum); break;
    }
    char shown[80];
    return sbx_backend_error_set(err, kind, "%s in sandbox '%s': %s: %s", op, root->sandbox_id,
                                 common_printable(path, shown, sizeof shown), what);
}

int local_confine_own(const local_root *root, int fd)
{
    struct stat dir;
    if (geteuid() != 0)
        return 0;
    if (fstat(root->fd, &dir) != 0)
        return errno;
    if (dir.st_uid == 0 ||
        fchownat(fd, "", dir.st_uid, dir.st_gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) == 0)
        return 0;
    return errno;
}

/* Open directory `rel` beneath the root, making each missing component
 * (beneath the one above it, so that no link leads out), owned as the
 * root is (local_confine_own). */
static int make_dirs(const local_root *root, const char *rel)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", rel);
    int cur = dup(root->fd);
    char *save = NULL;
    for (char *part = strtok_r(copy, "/", &save); cur >= 0 && part != NULL;
         part = strtok_r(NULL, "/", &save)) {
        int next = local_confine_open(cur, part, O_PATH | O_DIRECTORY, 0);
        if (next < 0 && errno == ENOENT) {
            if (mkdirat(cur, part, 0755) != 0 && errno != EEXIST) {
                int saved = errno;
                close(cur);
                errno = saved;
                return -1;
            }
            next = local_confine_open(cur, part, O_PATH | O_DIRECTORY, 0);
            int e = next >= 0 ? local_confine_own(root, next) : 0;
            if (e != 0) {
                close(next);
                next = -1;
                errno = e;
            }
        }
        int saved = errno;
        close(cur);
        errno = saved;
        cur = next;
    }
    return cur;
}

sbx_status local_confine_parent(const local_root *root, const char *op, const local_rel *rel,
                                int make, int *fd, sbx_error *err)
{
    *fd = local_confine_open(root->fd, rel->dir, O_PATH | O_DIRECTORY, 0);
    if (*fd < 0 && errno == ENOENT && make)
        *fd = make_dirs(root, rel->dir);
    if (*fd < 0)
        return local_confine_error(root, op, rel->whole, errno, err);
    return SBX_OK;
}
