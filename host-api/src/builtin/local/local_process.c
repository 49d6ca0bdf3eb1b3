/* Detached sandbox processes: spawn, identify, stop (see local_process.h). */
#include "host-api/src/builtin/local/local_process.h"

#include <sbx/host.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* How long to wait for the kernel to report a SIGKILLed shell gone. */
#define KILL_WAIT_MS 5000L

/* How often to look at a stopping process when there is no pidfd. */
#define POLL_INTERVAL_MS 10L

/* Read the state letter and start time of `pid` from /proc; 0 when the
 * process does not exist (or /proc cannot be read). */
static int read_proc_stat(long pid, char *state, unsigned long long *start_time)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* The command name may contain anything, ')' included: fields resume
     * after the last ')'. Field 3 is the state, field 22 the start time. */
    char *p = strrchr(buf, ')');
    if (p == NULL)
        return 0;
    unsigned long long start = 0;
    char st = 0;
    int matched = sscanf(p + 1,
                         " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s"
                         " %*s %*s %*s %*s %*s %*s %llu", &st, &start);
    if (matched != 2)
        return 0;
    *state = st;
    *start_time = start;
    return 1;
}

int sbx_local_process_is_running(const sbx_local_process *proc)
{
    if (proc->pid <= 1 || proc->start_time == 0)
        return 0;
    char state;
    unsigned long long start;
    if (!read_proc_stat(proc->pid, &state, &start))
        return 0;
    return start == proc->start_time && state != 'Z' && state != 'X';
}

/* The grandchild: wait for the parent's go-ahead (it first records our start
 * time), then become the shell.  Only async-signal-safe calls. */
static void become_shell(int go_fd, int null_fd, int log_fd, char *const argv[])
{
    char go;
    if (read(go_fd, &go, 1) != 1)
        _exit(127);
    if (dup2(null_fd, STDIN_FILENO) < 0 || dup2(log_fd, STDOUT_FILENO) < 0 ||
        dup2(log_fd, STDERR_FILENO) < 0)
        _exit(127);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    static const int reset[] = { SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD };
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++)
        sigaction(reset[i], &dfl, NULL);
    syscall(SYS_close_range, 3U, ~0U, 0U);
    execve("/bin/sh", argv, environ);
    _exit(127);
}

/* Write (`writing`) or read exactly `len` bytes, through EINTR; 0 on
 * failure or, when reading, on EOF. */
static int transfer_all(int fd, char *p, size_t len, int writing)
{
    while (len > 0) {
        ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

/* Write all of `len` bytes; 0 on failure. */
static int write_all(int fd, const void *data, size_t len)
{
    /* transfer_all only reads from the buffer when writing. */
    return transfer_all(fd, (char *)data, len, 1);
}

/* Read exactly `len` bytes; 0 on EOF or failure. */
static int read_all(int fd, void *data, size_t len)
{
    return transfer_all(fd, data, len, 0);
}

static void close_if_open(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

sbx_status sbx_local_process_spawn(const char *shell_command, const char *log_path,
                                   sbx_local_process *out, sbx_error *err)
{
    char *const argv[] = { (char *)"sh", (char *)"-c", (char *)shell_command, NULL };
    int pid_pipe[2] = { -1, -1 }, go_pipe[2] = { -1, -1 };
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    sbx_status st = SBX_OK;
    if (null_fd < 0 || log_fd < 0 || pipe2(pid_pipe, O_CLOEXEC) != 0 ||
        pipe2(go_pipe, O_CLOEXEC) != 0) {
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "cannot prepare the sandbox process: %s",
                           strerror(errno));
        goto done;
    }
    pid_t child = fork();
    if (child < 0) {
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "fork failed: %s", strerror(errno));
        goto done;
    }
    if (child == 0) {
        /* Intermediate child: start the shell in a new session, report its
         * pid and exit, so that init (not the host) reaps the shell. */
        pid_t grandchild = _Fork();
        if (grandchild == 0) {
            if (setsid() < 0)
                _exit(127);
            become_shell(go_pipe[0], null_fd, log_fd, argv);
        }
        long reported = grandchild;
        _exit(write_all(pid_pipe[1], &reported, sizeof reported) ? 0 : 1);
    }
    close_if_open(&pid_pipe[1]);
    close_if_open(&go_pipe[0]);
    long grandchild = -1;
    int got = read_all(pid_pipe[0], &grandchild, sizeof grandchild);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (!got || grandchild <= 0) {
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "cannot start the sandbox process");
        goto done;
    }
    /* The shell waits for the go byte, so it exists while we read its start
     * time; setsid may not have run yet, which does not change the time. */
    char state;
    out->pid = grandchild;
    if (!read_proc_stat(grandchild, &state, &out->start_time)) {
        kill((pid_t)grandchild, SIGKILL);
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "cannot read the state of process %ld",
                           grandchild);
        goto done;
    }
    if (!write_all(go_pipe[1], "g", 1))
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "cannot start the sandbox process");
done:
    close_if_open(&pid_pipe[0]);
    close_if_open(&pid_pipe[1]);
    close_if_open(&go_pipe[0]);
    close_if_open(&go_pipe[1]);
    close_if_open(&null_fd);
    close_if_open(&log_fd);
    return st;
}

static long monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Wait until the process behind `pidfd` exits (becomes a zombie or is
 * reaped) or timeout_ms pass; 1 when it exited. */
static int wait_exit_pidfd(int pidfd, long timeout_ms)
{
    long deadline = monotonic_ms() + timeout_ms;
    for (;;) {
        long left = deadline - monotonic_ms();
        struct pollfd p = { .fd = pidfd, .events = POLLIN, .revents = 0 };
        int rc = poll(&p, 1, left > 0 ? (int)left : 0);
        if (rc > 0)
            return 1;
        if (rc == 0 || errno != EINTR)
            return 0;
    }
}

/* Without pidfds (old kernels, some sandboxes and debuggers) the only way
 * to learn that a process we did not fork has exited is to look: every
 * POLL_INTERVAL_MS until timeout_ms pass; 1 when it exited. */
static int wait_exit_polling(const sbx_local_process *proc, long timeout_ms)
{
    long deadline = monotonic_ms() + timeout_ms;
    while (sbx_local_process_is_running(proc)) {
        long left = deadline - monotonic_ms();
        if (left <= 0)
            return 0;
        struct timespec pause = { 0, (left < POLL_INTERVAL_MS ? left : POLL_INTERVAL_MS) * 1000000L };
        nanosleep(&pause, NULL);
    }
    return 1;
}

static int wait_exit(int pidfd, const sbx_local_process *proc, long timeout_ms)
{
    return pidfd >= 0 ? wait_exit_pidfd(pidfd, timeout_ms) : wait_exit_polling(proc, timeout_ms);
}

sbx_status sbx_local_process_stop(const sbx_local_process *proc, long timeout_ms,
                                  sbx_error *err)
{
    /* Pin the process with a pidfd first, then check it is still ours: from
     * then on its pid (= its group id) cannot be recycled under us.  ESRCH:
     * it is gone, and a leftover group of a dead shell is not touched, since
     * its id may already name someone else's group. */
    int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)proc->pid, 0U);
    if ((pidfd < 0 && errno == ESRCH) || !sbx_local_process_is_running(proc)) {
        if (pidfd >= 0)
            close(pidfd);
        return SBX_OK;
    }
    pid_t group = (pid_t)proc->pid;
    sbx_status st = SBX_OK;
    if (kill(-group, SIGTERM) != 0 && errno != ESRCH) {
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "cannot signal process group %ld: %s",
                           proc->pid, strerror(errno));
    } else {
        int exited = timeout_ms > 0 && wait_exit(pidfd, proc, timeout_ms);
        /* Also after a clean exit: children that ignored SIGTERM go now. */
        if (kill(-group, SIGKILL) != 0 && errno != ESRCH)
            st = sbx_error_set(err, SBX_ERR_INTERNAL, "cannot kill process group %ld: %s",
                               proc->pid, strerror(errno));
        else if (!exited && !wait_exit(pidfd, proc, KILL_WAIT_MS))
            st = sbx_error_set(err, SBX_ERR_INTERNAL,
                               "process %ld survived SIGKILL", proc->pid);
    }
    if (pidfd >= 0)
        close(pidfd);
    return st;
}
