/* The host's process table (see proc_table.h). */
#include <config.h>

#include "tests/support/proc_table.h"

#include "tests/support/subprocess.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARGS_CAP 8192

/* Read up to `cap` - 1 bytes of /proc/`pid`/`what` into `buf`, NUL-ended;
 * returns how many (0 when unreadable). */
static size_t read_proc_file(const char *pid, const char *what, char *buf, size_t cap)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/%s/%s", pid, what);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, cap - 1) : -1;
    if (fd >= 0)
        close(fd);
    size_t got = n > 0 ? (size_t)n : 0;
    buf[got] = '\0';
    return got;
}

/* The parent named by /proc/`pid`/stat, or 0. */
static long parent_of(const char *pid)
{
    char stat[512];
    read_proc_file(pid, "stat", stat, sizeof stat);
    /* "PID (COMM) STATE PPID ...": COMM may hold spaces and ')'. */
    const char *after = strrchr(stat, ')');
    long ppid = 0;
    if (after == NULL || sscanf(after + 1, " %*c %ld", &ppid) != 1)
        return 0;
    return ppid;
}

int sbx_test_proc_each(int (*visit)(const sbx_test_process *p, void *ctx), void *ctx)
{
    DIR *dir = opendir("/proc");
    if (dir == NULL)
        return 0;
    int stop = 0;
    char args[ARGS_CAP], line[ARGS_CAP];
    for (struct dirent *e; !stop && (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        sbx_test_process p = {.pid = atol(e->d_name), .ppid = parent_of(e->d_name)};
        p.args_len = read_proc_file(e->d_name, "cmdline", args, sizeof args);
        for (size_t i = 0; i <= p.args_len; i++)
            line[i] = i < p.args_len && args[i] == '\0' ? ' ' : args[i];
        p.args = args;
        p.line = line;
        stop = visit(&p, ctx);
    }
    closedir(dir);
    return stop;
}

int sbx_test_wait_process_end(long pid, long deadline_ms)
{
    int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0U);
    if (pidfd < 0)
        return errno == ESRCH;
    /* A pidfd turns readable when its process has ended. */
    int ended = sbx_test_wait_readable(pidfd, deadline_ms) > 0;
    close(pidfd);
    return ended;
}
