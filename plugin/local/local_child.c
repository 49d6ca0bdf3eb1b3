/* Closing what a forked process inherited (see local_child.h). */
#include <config.h>

#include "plugin/local/local_child.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

long local_child_fd_limit(void)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
        limit.rlim_cur > 1048576)
        return 1048576;
    return (long)limit.rlim_cur;
}

/* Close [from, to] (to < 0: all above from) without allocating. */
static void close_fds(long from, long to, long fd_limit)
{
    if (to >= 0 && to < from)
        return;
    if (syscall(SYS_close_range, (unsigned int)from,
                to < 0 ? ~0U : (unsigned int)to, 0U) == 0)
        return;
    long last = to < 0 || to >= fd_limit ? fd_limit - 1 : to;
    for (long fd = from; fd <= last; fd++)
        close((int)fd);
}

void local_child_close_all_but(const int *keep, size_t count, long fd_limit)
{
    long from = 3;
    for (size_t i = 0; i < count; i++) {
        if (keep[i] < from)
            continue;
        close_fds(from, keep[i] - 1, fd_limit);
        from = keep[i] + 1L;
    }
    close_fds(from, -1, fd_limit);
}

int local_child_above_stdio(int fd)
{
    return fd >= 3 ? fd : fcntl(fd, F_DUPFD, 3);
}

void local_child_reset_signals(void)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    /* SIGKILL and SIGSTOP refuse; nothing else is in the way. */
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &dfl, NULL);
}
