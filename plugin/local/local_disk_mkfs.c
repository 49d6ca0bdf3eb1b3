/* mkfs.ext4 on a sandbox's image file (see local_disk_mkfs.h). */
#include <config.h>

#include "plugin/local/local_disk_mkfs.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MKFS "mkfs.ext4"

/* Where root's tools are when $PATH (a service's) lacks them. */
static const char *const system_dirs[] = { "/usr/sbin", "/sbin" };

/* 1 when DIR/mkfs.ext4 (dir of `len` bytes) is executable; its path in buf. */
static int found_in(const char *dir, size_t len, char *buf, size_t size)
{
    if (len == 0 || snprintf(buf, size, "%.*s/" MKFS, (int)len, dir) >= (int)size)
        return 0;
    return access(buf, X_OK) == 0;
}

int local_disk_mkfs_find(char *buf, size_t size)
{
    const char *path = getenv("PATH");
    for (const char *p = path; p != NULL && *p != '\0';) {
        size_t len = strcspn(p, ":");
        if (p[0] == '/' && found_in(p, len, buf, size))
            return 1;
        p += len + (p[len] == ':');
    }
    for (size_t i = 0; i < sizeof system_dirs / sizeof system_dirs[0]; i++)
        if (found_in(system_dirs[i], strlen(system_dirs[i]), buf, size))
            return 1;
    return 0;
}

/* Read what the child wrote until it closes the pipe; the start kept in
 * out (for a message), the rest dropped. */
static void collect(int fd, char *out, size_t size)
{
    size_t used = 0;
    char chunk[512];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        size_t keep = (size_t)n < size - 1 - used ? (size_t)n : size - 1 - used;
        memcpy(out + used, chunk, keep);
        used += keep;
    }
    out[used] = '\0';
    /* One line for the message. */
    for (char *c = out; *c != '\0'; c++)
        if (*c == '\n')
            *c = ' ';
}

/* Spawn mkfs with stdin /dev/null and stdout, stderr into `write_fd`. */
static int spawn(const char *mkfs, char *const argv[], int write_fd, pid_t *pid)
{
    posix_spawn_file_actions_t actions;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0)
        return rc;
    rc = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&actions, write_fd, 1);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&actions, write_fd, 2);
    /* Its defaults, not whatever MKE2FS_CONFIG the host's environment names. */
    char *const env[] = { NULL };
    if (rc == 0)
        rc = posix_spawn(pid, mkfs, &actions, NULL, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

sbx_status local_disk_mkfs(const char *image, sbx_error *err)
{
    char mkfs[PATH_MAX];
    if (!local_disk_mkfs_find(mkfs, sizeof mkfs))
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED, "disk: no " MKFS " in $PATH, "
                                     "/usr/sbin or /sbin (install e2fsprogs)");
    /* No journal: the file system lives only as long as its sandbox, and
     * a journal would take megabytes of a small disk.  nodiscard keeps the
     * image's allocation (a discard would punch holes in it). */
    char *const argv[] = { mkfs, "-q", "-F", "-m", "0", "-O", "^has_journal",
                           "-E", "nodiscard,lazy_itable_init=1", (char *)image, NULL };
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "disk: pipe: %s", strerror(errno));
    pid_t pid = 0;
    int rc = spawn(mkfs, argv, pipe_fds[1], &pid);
    close(pipe_fds[1]);
    char output[256] = "";
    if (rc == 0)
        collect(pipe_fds[0], output, sizeof output);
    close(pipe_fds[0]);
    if (rc != 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "disk: cannot run %s: %s", mkfs,
                                     strerror(rc));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "disk: waiting for %s: %s",
                                         mkfs, strerror(errno));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "disk: %s %s failed (%s %d): %s", mkfs,
                                 image, WIFEXITED(status) ? "exit status" : "signal",
                                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                                 output);
}
