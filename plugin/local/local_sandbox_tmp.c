/* The holder's /tmp, reached by the file operations (see
 * local_sandbox_tmp.h). */
#include <config.h>

#include "plugin/local/local_sandbox_tmp.h"

#include "common/printable.h"
#include "plugin/local/local_holder.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <unistd.h>

int local_sandbox_tmp_names(const char *path)
{
    size_t len = sizeof LOCAL_SANDBOX_TMP - 1;
    return strncmp(path, LOCAL_SANDBOX_TMP, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

/* 1 when the process `pidfd` refers to has exited. */
static int has_exited(int pidfd)
{
    struct pollfd p = { pidfd, POLLIN, 0 };
    return poll(&p, 1, 0) != 0;
}

sbx_status local_sandbox_tmp_open(const local_process *holder, const char *op, const char *path,
                                  local_root *root, sbx_error *err)
{
    char shown[80], link[64] = "";
    common_printable(path, shown, sizeof shown);
    int pidfd = local_holder_pin_process(holder);
    int fd = -1, errnum = ESRCH;
    if (pidfd >= 0) {
        snprintf(link, sizeof link, "/proc/%ld/root" LOCAL_SANDBOX_TMP, holder->pid);
        fd = open(link, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        errnum = errno;
        /* Still the holder after the open: the pid named it throughout. */
        if (has_exited(pidfd)) {
            if (fd >= 0)
                close(fd);
            fd = -1;
            errnum = ESRCH;
        }
        close(pidfd);
    }
    root->fd = fd;
    root->dir = LOCAL_SANDBOX_TMP;
    struct stat owner;
    /* The tmpfs belongs to the sandbox's user namespace, which maps only
     * the sandbox's ids: a root host's own (uid 0) cannot create a file
     * in it (EOVERFLOW).  This thread acts on it as the tmpfs's owner. */
    if (fd >= 0 && geteuid() == 0 && fstat(fd, &owner) == 0 && owner.st_uid != 0) {
        setfsgid(owner.st_gid);
        setfsuid(owner.st_uid);
    }
    if (fd >= 0)
        return SBX_OK;
    if (errnum == ESRCH || errnum == ENOENT)
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                     "%s in sandbox '%s': %s: the sandbox has no holder running "
                                     "(it was created with isolation=none, or its holder was "
                                     "ended), so each exec has a /tmp of its own, gone when it "
                                     "ends; nothing was read or written", op, root->sandbox_id,
                                     shown);
    if (errnum == EACCES || errnum == EPERM)
        return sbx_backend_error_set(err, SBX_ERR_PERMISSION,
                                     "%s in sandbox '%s': %s: the host may not enter the "
                                     "sandbox's holder (pid %ld) to reach its /tmp: %s (that "
                                     "needs ptrace read access to the holder); nothing was read "
                                     "or written", op, root->sandbox_id, shown, holder->pid,
                                     strerror(errnum));
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                 "%s in sandbox '%s': %s: cannot open the sandbox's /tmp through "
                                 "%s: %s; nothing was read or written", op, root->sandbox_id,
                                 shown, link, strerror(errnum));
}

void local_sandbox_tmp_close(local_root *root)
{
    if (root->fd >= 0)
        close(root->fd);
    root->fd = -1;
    if (root->dir != NULL && strcmp(root->dir, LOCAL_SANDBOX_TMP) == 0) {
        setfsuid(geteuid());
        setfsgid(getegid());
    }
}
