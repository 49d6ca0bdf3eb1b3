/* Non-blocking, bounded opening of state files; directory sync (see
 * local_state_file.h). */
#include <config.h>

#include "plugin/local/local_state_file.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not regular is, for the message. */
static const char *kind_of(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    return "a file of an unknown type";
}

sbx_status local_state_file_open(const char *path, size_t max_bytes, int *fd,
                                   sbx_error *err)
{
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer, and a device's open may wait for the device. */
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (*fd < 0) {
        if (errno == ENOENT)
            return sbx_backend_error_set(err, SBX_ERR_NOT_FOUND, "no file at %s", path);
        if (errno == ELOOP)
            return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                         "%s is a symbolic link, not a regular file; "
                                         "it is left untouched", path);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot read %s: %s", path,
                                     strerror(errno));
    }
    struct stat st;
    sbx_status status = SBX_OK;
    if (fstat(*fd, &st) != 0)
        status = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot read %s: %s", path,
                                       strerror(errno));
    else if (!S_ISREG(st.st_mode))
        status = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                       "%s is %s, not a regular file; it is left untouched",
                                       path, kind_of(st.st_mode));
    else if ((unsigned long long)st.st_size > (unsigned long long)max_bytes)
        status = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                       "%s holds %lld bytes, more than the %zu of a file of "
                                       "the local backend; it is left untouched",
                                       path, (long long)st.st_size, max_bytes);
    if (status != SBX_OK) {
        close(*fd);
        *fd = -1;
    }
    return status;
}

sbx_status local_state_dir_sync(const char *dir, sbx_error *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int ok = fd >= 0 && fsync(fd) == 0;
    int saved = errno;
    if (fd >= 0)
        close(fd);
    if (ok)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot sync directory %s: %s", dir,
                                 strerror(saved));
}
