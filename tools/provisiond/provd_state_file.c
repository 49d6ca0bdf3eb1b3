/* The atomic replacement of a --state-dir file (provd_state_file.h). */
#include <config.h>

#include "tools/provisiond/provd_state_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int provd_state_file_replace(const char *dir, const char *name, const char *text, size_t len)
{
    char tmp[4096], final[4096];
    snprintf(tmp, sizeof tmp, "%s/.%s", dir, name);
    snprintf(final, sizeof final, "%s/%s", dir, name);
    /* Whatever lies at the temporary name (a FIFO would block the open, a
     * link would redirect the write) is replaced, never written through. */
    if (unlink(tmp) != 0 && errno != ENOENT)
        return 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    int ok = fd >= 0 && write(fd, text, len) == (ssize_t)len && fsync(fd) == 0;
    int saved = errno;
    if (fd >= 0)
        close(fd);
    if (ok && rename(tmp, final) != 0) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        unlink(tmp);
        errno = saved;
    }
    return ok;
}
