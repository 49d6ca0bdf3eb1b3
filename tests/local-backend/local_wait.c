/* Waiting for a test's events (see local_wait.h). */
#include <config.h>

#include "tests/local-backend/local_wait.h"

#include "tests/local-backend/local_fixture.h"
#include "tests/support/clock.h"
#include "tests/support/proc_table.h"
#include "tests/support/subprocess.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

int sbx_local_test_wait_no_process_with(const char *word, long timeout_ms)
{
    long deadline = sbx_test_now_ms() + timeout_ms;
    long pid;
    while ((pid = sbx_local_test_host_process_with(word)) != 0) {
        if (!sbx_test_wait_process_end(pid, deadline))
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
    while (!(found = sbx_local_test_path_exists(path)) && fd >= 0 &&
           sbx_test_wait_readable(fd, deadline) > 0) {
        char events[4096];
        while (read(fd, events, sizeof events) > 0)
            ;
    }
    if (fd >= 0)
        close(fd);
    return found;
}
