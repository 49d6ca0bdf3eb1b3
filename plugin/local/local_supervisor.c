/* A live process's detached supervisor (see local_supervisor.h). */
#include <config.h>

#include "plugin/local/local_supervisor.h"

#include "common/op_results.h"
#include "plugin/local/local_child.h"
#include "plugin/local/local_instance.h"
#include "plugin/local/local_proc_table.h"
#include "plugin/local/local_sigpipe.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* One control message: small enough (< PIPE_BUF) to reach the FIFO whole
 * whatever other hosts write at the same time. */
typedef struct control_message {
    int32_t kind, a, b;
} control_message;

/* The descriptors of a supervisor, made by the host before the fork; -1
 * when unused. */
typedef struct supervisor_fds {
    int control;         /* the control FIFO, read-write (never at EOF) */
    int stdin_read;      /* the stdin FIFO's read end */
    int stdin_keep;      /* its write end: stdin open until it closes */
    int master, slave;   /* the terminal */
    int null_fd;         /* /dev/null, the supervisor's own stdio */
} supervisor_fds;

/* A running supervisor. */
typedef struct supervisor {
    local_ring *ring;
    supervisor_fds fds;
    int poll_fd;          /* epoll: the control FIFO, and with a terminal the
                           * stdin FIFO or (while input waits) the master */
    char pending[4096];   /* terminal input not yet written to the master */
    size_t pending_len, pending_at;
} supervisor;

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void on_output(void *ctx, sbx_stream stream, const char *data, size_t length)
{
    supervisor *s = ctx;
    local_ring_append(s->ring, stream, data, length);
}

static void watch(supervisor *s, int fd, unsigned events, int op)
{
    struct epoll_event ev = { .events = events, .data.fd = fd };
    epoll_ctl(s->poll_fd, op, fd, &ev);
}

/* Write what waits for the terminal; once all is written, read the stdin
 * FIFO again. */
static void feed_terminal(supervisor *s)
{
    while (s->pending_at < s->pending_len) {
        ssize_t n = write(s->fds.master, s->pending + s->pending_at,
                          s->pending_len - s->pending_at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        s->pending_at = n < 0 ? s->pending_len : s->pending_at + (size_t)n;
    }
    s->pending_len = s->pending_at = 0;
    watch(s, s->fds.master, 0, EPOLL_CTL_DEL);
    if (s->fds.stdin_read >= 0)
        watch(s, s->fds.stdin_read, EPOLLIN, EPOLL_CTL_ADD);
}

/* Input on the stdin FIFO, for the terminal. */
static void take_input(supervisor *s)
{
    ssize_t n = read(s->fds.stdin_read, s->pending, sizeof s->pending);
    if (n <= 0)
        return;
    s->pending_len = (size_t)n;
    s->pending_at = 0;
    watch(s, s->fds.stdin_read, 0, EPOLL_CTL_DEL);
    watch(s, s->fds.master, EPOLLOUT, EPOLL_CTL_ADD);
    feed_terminal(s);
}

/* Close stdin: the FIFO's last writer goes (the command reads end of
 * file), or on a terminal the end-of-file character is typed. */
static void close_stdin(supervisor *s)
{
    if (s->fds.master < 0) {
        close_fd(&s->fds.stdin_keep);
        return;
    }
    struct termios t;
    char eof = tcgetattr(s->fds.master, &t) == 0 ? (char)t.c_cc[VEOF] : 4;
    ssize_t n = write(s->fds.master, &eof, 1);
    (void)n;
}

/* One message; 1 when it asks for the end. */
static int obey(supervisor *s, const control_message *m, pid_t group)
{
    switch (m->kind) {
    case LOCAL_CONTROL_STOP:
        return 1;
    case LOCAL_CONTROL_SIGNAL:
        if (group > 0)
            kill(-group, m->a);
        return 0;
    case LOCAL_CONTROL_CLOSE_STDIN:
        close_stdin(s);
        return 0;
    case LOCAL_CONTROL_RESIZE: {
        struct winsize size = { (unsigned short)m->a, (unsigned short)m->b, 0, 0 };
        if (s->fds.master >= 0)
            ioctl(s->fds.master, TIOCSWINSZ, &size);
        return 0;
    }
    default:
        return 0;
    }
}

static int on_control(void *ctx, pid_t group)
{
    supervisor *s = ctx;
    struct epoll_event events[4];
    int n = epoll_wait(s->poll_fd, events, 4, 0);
    int stop = 0;
    for (int i = 0; i < n; i++) {
        int fd = events[i].data.fd;
        if (fd == s->fds.master) {
            feed_terminal(s);
        } else if (fd == s->fds.stdin_read) {
            take_input(s);
        } else {
            control_message m;
            while (read(s->fds.control, &m, sizeof m) == (ssize_t)sizeof m)
                stop |= obey(s, &m, group);
        }
    }
    return stop;
}

/* How the run ended, into the output file. */
static void record_end(local_ring *ring, sbx_status st, const sbx_exec_result *r,
                       const sbx_error *err)
{
    if (st == SBX_OK) {
        local_ring_finish(ring, r->outcome, r->exit_code, r->term_signal);
        return;
    }
    if (st == SBX_ERR_NOT_FOUND) {   /* destroyed while it ran */
        local_ring_finish(ring, SBX_EXEC_SIGNALED, -1, SIGKILL);
        return;
    }
    char line[SBX_ERROR_MESSAGE_MAX + 16];
    int n = snprintf(line, sizeof line, "sbx-local: %s\n", err->message);
    local_ring_append(ring, SBX_STREAM_STDERR, line,
                      n < 0 ? 0 : (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    local_ring_finish(ring, SBX_EXEC_EXITED, 126, 0);
}

static int ascending(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* Nothing of the host's but what the run needs. */
static void keep_only(const local_supervisor_plan *plan, const supervisor_fds *f)
{
    int keep[16];
    size_t n = local_exec_prepared_fds(plan->prepared, keep);
    int mine[] = { plan->ring->fd, f->control, f->stdin_read, f->stdin_keep, f->master,
                   f->slave };
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        if (mine[i] >= 0)
            keep[n++] = mine[i];
    qsort(keep, n, sizeof keep[0], ascending);
    local_child_close_all_but(keep, n, local_child_fd_limit());
}

/* The supervisor: never returns. */
_Noreturn static void supervise(const local_supervisor_plan *plan, supervisor_fds *f)
{
    dup2(f->null_fd, STDIN_FILENO);
    dup2(f->null_fd, STDOUT_FILENO);
    dup2(f->null_fd, STDERR_FILENO);
    keep_only(plan, f);
    local_child_reset_signals();
    signal(SIGPIPE, SIG_IGN);
    /* The host's log callback is the host's: a fork never calls it. */
    local_exec_prepared_quiet(plan->prepared);
    supervisor s = { plan->ring, *f, epoll_create1(EPOLL_CLOEXEC), { 0 }, 0, 0 };
    local_ring_set_supervisor(plan->ring, getpid());
    watch(&s, f->control, EPOLLIN, EPOLL_CTL_ADD);
    if (f->master >= 0 && f->stdin_read >= 0)
        watch(&s, f->stdin_read, EPOLLIN, EPOLL_CTL_ADD);
    local_exec_hooks hooks = { on_output, &s, s.poll_fd, on_control,
                               f->master >= 0 ? f->slave : f->stdin_read, f->master, 1 };
    sbx_exec_result *result = NULL;
    sbx_error err;
    memset(&err, 0, sizeof err);
    sbx_status st = local_exec_run(plan->prepared, &hooks, &result, &err);
    record_end(plan->ring, st, result, &err);
    _exit(0);
}

/* The terminal: a master (non-blocking reads are the run's) and its
 * slave, of rows x cols; 0 with errno on failure. */
static int open_terminal(const local_supervisor_plan *plan, supervisor_fds *f)
{
    char name[128];
    f->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (f->master < 0 || grantpt(f->master) != 0 || unlockpt(f->master) != 0 ||
        ptsname_r(f->master, name, sizeof name) != 0)
        return 0;
    f->slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    struct winsize size = { (unsigned short)plan->rows, (unsigned short)plan->cols, 0, 0 };
    return f->slave >= 0 && ioctl(f->master, TIOCSWINSZ, &size) == 0;
}

/* The FIFOs (and terminal) of the process; 0 with errno on failure. */
static int make_fds(const local_supervisor_plan *plan, supervisor_fds *f)
{
    if ((f->null_fd = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0 ||
        mkfifoat(plan->dir_fd, LOCAL_PROC_CONTROL, 0600) != 0 ||
        (f->control = openat(plan->dir_fd, LOCAL_PROC_CONTROL,
                             O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0)
        return 0;
    if (plan->stdin_open || plan->pty) {
        if (mkfifoat(plan->dir_fd, LOCAL_PROC_STDIN, 0600) != 0 ||
            (f->stdin_read = openat(plan->dir_fd, LOCAL_PROC_STDIN,
                                    O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 ||
            (f->stdin_keep = openat(plan->dir_fd, LOCAL_PROC_STDIN,
                                    O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
            return 0;
        /* The command's reads block, as on any pipe. */
        if (!plan->pty && fcntl(f->stdin_read, F_SETFL, 0) != 0)
            return 0;
    }
    return !plan->pty || open_terminal(plan, f);
}

static void close_fds(supervisor_fds *f)
{
    int *all[] = { &f->control, &f->stdin_read, &f->stdin_keep, &f->master, &f->slave,
                   &f->null_fd };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        close_fd(all[i]);
}

sbx_status local_supervisor_start(const local_supervisor_plan *plan, const char *sandbox_id,
                                  sbx_error *err)
{
    supervisor_fds f = { -1, -1, -1, -1, -1, -1 };
    if (!make_fds(plan, &f)) {
        int e = errno;
        close_fds(&f);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "process start in sandbox '%s': "
                                     "cannot make its stdin, control or terminal: %s",
                                     sandbox_id, strerror(e));
    }
    pid_t middle = fork();
    if (middle == 0) {
        /* Out of the host's session, then orphaned at once: the
         * supervisor is nobody's child but init's (or a subreaper's). */
        setsid();
        pid_t pid = fork();
        if (pid == 0)
            supervise(plan, &f);
        _exit(pid < 0 ? 1 : 0);
    }
    int status = 0, e = errno;
    if (middle > 0)
        while (waitpid(middle, &status, 0) < 0 && errno == EINTR)
            ;
    close_fds(&f);
    if (middle < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "process start in sandbox '%s': "
                                     "cannot fork its supervisor: %s", sandbox_id,
                                     strerror(middle < 0 ? e : EAGAIN));
    return SBX_OK;
}

int local_supervisor_ask(int table, const char *name, local_control_kind kind, int a, int b)
{
    char path[64];
    snprintf(path, sizeof path, "%s%s%s", name != NULL ? name : "", name != NULL ? "/" : "",
             LOCAL_PROC_CONTROL);
    int fd = openat(table, path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;     /* ENXIO: nobody reads */
    struct stat sb;
    control_message m = { (int32_t)kind, a, b };
    /* The supervisor may close its end between the open and the write. */
    sigset_t saved;
    local_sigpipe_hold(&saved);
    int ok = fstat(fd, &sb) == 0 && S_ISFIFO(sb.st_mode) &&
             write(fd, &m, sizeof m) == (ssize_t)sizeof m;
    local_sigpipe_release(&saved);
    close(fd);
    return ok;
}
