/* The subreaper of an exec (see local_reaper.h).  Only async-signal-safe
 * calls from here on: the host that forked us may hold any lock. */
#include <config.h>

#include "plugin/local/local_reaper.h"

#include "plugin/local/local_child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* How often the reaper looks at the command when there is no pidfd. */
#define POLL_INTERVAL_MS 20

static void write_text(int fd, const char *text)
{
    ssize_t n = write(fd, text, strlen(text));
    (void)n;
}

/* The command's process: its own session (no controlling terminal, out of
 * the host's process group), its streams and working directory, nothing
 * else of the host's, default signals; then each candidate file in turn,
 * as execvp does.  127 when none exists, 126 when one exists but cannot
 * run, with a line on stderr, as a shell does. */
_Noreturn static void run_command(const local_reaper_plan *p)
{
    int in = local_child_above_stdio(p->stdin_fd);
    int out = local_child_above_stdio(p->stdout_fd);
    int errs = local_child_above_stdio(p->stderr_fd);
    if (setsid() < 0 || in < 0 || out < 0 || errs < 0 || dup2(in, STDIN_FILENO) < 0 ||
        dup2(out, STDOUT_FILENO) < 0 || dup2(errs, STDERR_FILENO) < 0 || fchdir(p->cwd_fd) != 0)
        _exit(126);
    /* A terminal becomes the controlling one of this session (isolated,
     * the command forked by local_isolation_command is in it too). */
    if (p->terminal && ioctl(STDIN_FILENO, TIOCSCTTY, 0) != 0)
        _exit(126);
    if (p->isolation != NULL)
        local_isolation_command(p->isolation);
    local_child_reset_signals();
    /* The group exists and its signals are at their defaults: a signal to
     * it is no longer ignored (as the reaper's SIGTERM) or missed; one
     * that comes before the exec ends this process as it would the
     * command.  (Under valgrind, which queues a signal for its guest, an
     * exec in between can drop it.) */
    local_reaper_report notice = { 0, 0, 0, 0, 0, 1 };
    if (p->announce)
        while (write(p->report_fd, &notice, sizeof notice) < 0 && errno == EINTR)
            ;
    local_child_close_all_but(NULL, 0, p->fd_limit);
    int cannot_run = 0;
    for (size_t i = 0; p->candidates[i] != NULL; i++) {
        execve(p->candidates[i], p->argv, p->envp);
        if (errno == ENOEXEC) {
            p->sh_argv[1] = p->candidates[i];
            execve("/bin/sh", p->sh_argv, p->envp);
        }
        if (errno != ENOENT && errno != ENOTDIR)
            cannot_run = 1;
    }
    write_text(STDERR_FILENO, "sbx-local: ");
    write_text(STDERR_FILENO, p->argv[0]);
    write_text(STDERR_FILENO, cannot_run ? ": cannot execute\n" : ": command not found\n");
    _exit(cannot_run ? 126 : 127);
}

/* SIGKILL every child of ours that /proc lists (orphans of the command's
 * tree are reparented to us, so repeating this reaches them all); the
 * number listed, or -1 when the list cannot be read. */
static int kill_children(void)
{
    int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char buf[512];
    ssize_t n;
    long pid = 0;
    int listed = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                pid = pid * 10 + (buf[i] - '0');
                continue;
            }
            if (pid > 0) {
                kill((pid_t)pid, SIGKILL);
                listed++;
            }
            pid = 0;
        }
    }
    if (pid > 0) {
        kill((pid_t)pid, SIGKILL);
        listed++;
    }
    close(fd);
    return listed;
}

static void pause_ms(long ms)
{
    struct timespec t = { 0, ms * 1000000L };
    nanosleep(&t, NULL);
}

/* Kill and reap every descendant; the command's status into *r when it is
 * reaped here.  Without /proc's list of children (a kernel without
 * CONFIG_PROC_CHILDREN) only the command's session can be killed. */
static void end_everything(pid_t command, local_reaper_report *r)
{
    if (!r->ended)
        kill(-command, SIGKILL);
    for (;;) {
        int listed = kill_children();
        int status;
        pid_t got = waitpid(-1, &status, listed > 0 ? 0 : WNOHANG);
        if (got == command) {
            r->status = status;
            r->ended = 1;
        }
        if (got < 0 && errno == ECHILD)
            return;
        if (got == 0) {
            if (listed < 0 && r->ended)
                return;
            /* A child /proc did not list yet (just reparented): look again. */
            pause_ms(1);
        }
    }
}

static void sort_fds(int *fds, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && fds[j - 1] > fds[j]; j--) {
            int t = fds[j];
            fds[j] = fds[j - 1];
            fds[j - 1] = t;
        }
}

/* Wait until the command exits (reaped into *r) or the stop comes. */
static void wait_command(const local_reaper_plan *p, pid_t command, local_reaper_report *r)
{
    int pidfd = (int)syscall(SYS_pidfd_open, command, 0U);
    for (;;) {
        struct pollfd fds[2] = { { p->stop_fd, POLLIN, 0 }, { pidfd, POLLIN, 0 } };
        int ready = poll(fds, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : POLL_INTERVAL_MS);
        if (ready < 0 && errno != EINTR)
            break;
        int status;
        if (waitpid(command, &status, WNOHANG) == command) {
            r->status = status;
            r->ended = 1;
            break;
        }
        if (ready > 0 && fds[0].revents != 0) {
            r->stopped = 1;
            break;
        }
    }
    if (pidfd >= 0)
        close(pidfd);
}

_Noreturn void local_reaper_run(const local_reaper_plan *p)
{
    local_reaper_report r = { 0, 0, 0, 0, 0, 0 };
    local_child_reset_signals();
    /* A terminal's signals are the host's to act on: when the host dies,
     * its end of the stop pipe closes and everything is ended here. */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    int keep[9] = { p->cwd_fd, p->stdin_fd, p->stdout_fd, p->stderr_fd, p->stop_fd,
                    p->report_fd, -1, -1, -1 };
    if (p->isolation != NULL)
        local_isolation_keep_fds(p->isolation, keep + 6);
    sort_fds(keep, 9);
    /* Before the close: the cgroups' files are among what it closes. */
    int joined = p->cgroup != NULL ? local_cgroup_join_enter(p->cgroup) : 0;
    local_child_close_all_but(keep, 9, p->fd_limit);
    pid_t command = -1;
    if ((r.error = joined) != 0) {
        /* Never run beyond the sandbox's limits. */
    } else if (p->isolation != NULL &&
               (r.error = local_isolation_enter(p->isolation, &r.stage)) != 0) {
        /* Never run unisolated: the report names the step that failed. */
    } else if (prctl(PR_SET_CHILD_SUBREAPER, 1L, 0L, 0L, 0L) != 0 || (command = _Fork()) < 0) {
        r.error = errno;
    } else {
        if (command == 0)
            run_command(p);
        close(p->cwd_fd);
        close(p->stdin_fd);
        close(p->stdout_fd);
        close(p->stderr_fd);
        wait_command(p, command, &r);
        end_everything(command, &r);
        if (p->isolation != NULL)
            local_isolation_outcome(p->isolation, &r.status, &r.error, &r.stage);
    }
    ssize_t n;
    while ((n = write(p->report_fd, &r, sizeof r)) < 0 && errno == EINTR)
        ;
    _exit(0);
}
