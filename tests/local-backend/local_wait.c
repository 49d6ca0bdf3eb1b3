/* Waiting for a test's events (see local_wait.h). */
#include <config.h>

#include "tests/local-backend/local_wait.h"

#include "tests/local-backend/local_fixture.h"
#include "tests/support/clock.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <unistd.h>

/* poll `fd` for input until it is ready (1) or `deadline` passes (0). */
static int ready_before(int fd, long deadline)
{
    for (;;) {
        long left = deadline - sbx_test_now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p = { fd, POLLIN, 0 };
        int n = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (n > 0)
            return 1;
        if (n < 0 && errno != EINTR)
            return 0;
    }
}

int sbx_local_test_wait_exit(long pid, long timeout_ms)
{
    int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0U);
    if (pidfd < 0)
        return errno == ESRCH;
    /* A pidfd turns readable when its process has ended. */
    int ended = ready_before(pidfd, sbx_test_now_ms() + timeout_ms);
    close(pidfd);
    return ended;
}

int sbx_local_test_wait_no_process_with(const char *word, long timeout_ms)
{
    long deadline = sbx_test_now_ms() + timeout_ms;
    long pid;
    while ((pid = sbx_local_test_host_process_with(word)) != 0) {
        long left = deadline - sbx_test_now_ms();
        if (left <= 0 || !sbx_local_test_wait_exit(pid, left))
            return 0;
    }
    return 1;
}

int sbx_local_test_wait_path(const char *path, long timeout_ms)
{
    long deadline = sbx_test_now_ms() + timeout_ms;
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (fd >= 0 && inotify_add_watch(fd, dir, IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
        close(fd);
        fd = -1;
    }
    int found;
    /* Looked at after the watch is set, so that no creation is missed. */
    while (!(found = sbx_local_test_path_exists(path)) && fd >= 0 && ready_before(fd, deadline)) {
        char events[4096];
        while (read(fd, events, sizeof events) > 0)
            ;
    }
    if (fd >= 0)
        close(fd);
    return found;
}
