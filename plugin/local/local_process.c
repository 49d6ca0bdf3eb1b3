/* Detached sandbox processes: spawn, identify, stop (see local_process.h). */
#include <config.h>

#include "plugin/local/local_process.h"

#include "plugin/local/local_child.h"
#include "plugin/local/local_server.h"
#include "plugin/local/local_time.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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

int local_process_identify(long pid, local_process *out)
{
    char state;
    out->pid = pid;
    return read_proc_stat(pid, &state, &out->start_time);
}

int local_process_is_running(const local_process *proc)
{
    if (proc->pid <= 1 || proc->start_time == 0)
        return 0;
    char state;
    unsigned long long start;
    if (!read_proc_stat(proc->pid, &state, &start))
        return 0;
    return start == proc->start_time && state != 'Z' && state != 'X';
}

/* Descriptors a launch hands to its children. */
typedef struct launch_fds {
    int null_fd, log_fd;
    int go_fd;          /* the shell's end of the go channel */
    int pid_fd;         /* the watcher's end of the pid pipe */
    int status_fd;      /* the watcher's end of the status pipe */
    int host_ends[3];   /* the host's ends, closed in the children at once */
    long fd_limit;      /* where closing stops when close_range is missing */
    const local_server *server;  /* isolation=namespaces; NULL: none */
    const local_shell_command *command;
    char **env_slots;            /* room for the shell's environment when the
                                  * command sets some; NULL: none */
    size_t env_slot_count;
} launch_fds;

/* Close every descriptor of the shell's process but `go_fd` and those of
 * the server (sorted here: the fork may not call qsort). */
static void keep_only(const launch_fds *fds, int go_fd)
{
    int keep[LOCAL_SERVER_KEEP + 1] = { go_fd, -1, -1, -1, -1 };
    size_t count = 1;
    if (fds->server != NULL) {
        local_server_keep_fds(fds->server, keep + 1);
        count += LOCAL_SERVER_KEEP;
    }
    for (size_t i = 1; i < count; i++)
        for (size_t j = i; j > 0 && keep[j] < keep[j - 1]; j--) {
            int t = keep[j];
            keep[j] = keep[j - 1];
            keep[j - 1] = t;
        }
    local_child_close_all_but(keep, count, fds->fd_limit);
}

/* 1 when the "NAME=value" strings a and b set the same NAME. */
static int same_name(const char *a, const char *b)
{
    while (*a != '\0' && *a != '=' && *a == *b) {
        a++;
        b++;
    }
    return *a == '=' && *b == '=';
}

/* The environment the shell execs with: environ as it is now (the
 * host's, or the isolated command's once local_server_enter has set it)
 * with the command's variables set over it, laid out in the slots the
 * parent allocated (no allocation after fork). */
static char *const *shell_environment(const launch_fds *fds)
{
    const local_shell_command *command = fds->command;
    if (command->env_count == 0 || fds->env_slots == NULL)
        return environ;
    size_t n = 0, room = fds->env_slot_count - command->env_count - 1;
    for (char **e = environ; *e != NULL && n < room; e++) {
        int overridden = 0;
        for (size_t i = 0; i < command->env_count && !overridden; i++)
            overridden = same_name(*e, command->env[i]);
        if (!overridden)
            fds->env_slots[n++] = *e;
    }
    for (size_t i = 0; i < command->env_count; i++)
        fds->env_slots[n++] = command->env[i];
    fds->env_slots[n] = NULL;
    return fds->env_slots;
}

/* The shell's process: its own session, stdin from /dev/null, stdout and
 * stderr to the log, nothing else but the go channel; then wait for the go
 * byte (the host first records our pid and start time) and become the
 * shell.  The host holds the only other end of the go channel, so a host
 * that dies first reads as EOF here and the shell never starts.  Only
 * async-signal-safe calls. */
static void become_shell(const launch_fds *fds, char *const argv[])
{
    int null_fd = local_child_above_stdio(fds->null_fd);
    int log_fd = local_child_above_stdio(fds->log_fd);
    int go_fd = local_child_above_stdio(fds->go_fd);
    if (setsid() < 0 || null_fd < 0 || log_fd < 0 || go_fd < 0 ||
        dup2(null_fd, STDIN_FILENO) < 0 || dup2(log_fd, STDOUT_FILENO) < 0 ||
        dup2(log_fd, STDERR_FILENO) < 0)
        _exit(127);
    keep_only(fds, go_fd);
    char go;
    ssize_t n;
    while ((n = read(go_fd, &go, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        _exit(127);
    close(go_fd);
    local_child_reset_signals();
    if (fds->server != NULL)
        local_server_enter(fds->server);
    execve("/bin/sh", argv, shell_environment(fds));
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

/* The watcher: the shell's parent while the host waits for it to serve, so
 * that the host learns its exit status at once.  It dies with the thread
 * that forked it (a create cut short leaves no watcher), forks the shell,
 * reports its pid, and reports its wait status when it exits.  The host
 * kills it when done; the shell then belongs to init. */
static void run_watcher(pid_t host, const launch_fds *fds, char *const argv[])
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != host)
        _exit(1);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &dfl, NULL);   /* a host ignoring SIGCHLD would hide the status */
    pid_t shell = _Fork();
    if (shell == 0)
        become_shell(fds, argv);
    int keep[2] = { fds->pid_fd < fds->status_fd ? fds->pid_fd : fds->status_fd,
                    fds->pid_fd < fds->status_fd ? fds->status_fd : fds->pid_fd };
    local_child_close_all_but(keep, 2, fds->fd_limit);
    long reported = shell;
    if (shell < 0 || !write_all(fds->pid_fd, &reported, sizeof reported))
        _exit(1);
    close(fds->pid_fd);
    int status;
    while (waitpid(shell, &status, 0) < 0)
        if (errno != EINTR)
            _exit(1);
    _exit(write_all(fds->status_fd, &status, sizeof status) ? 0 : 1);
}

static void close_if_open(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

sbx_status local_process_start(const local_shell_command *command, int log_fd,
                               const local_server *server, local_process *out,
                               local_launch *launch, sbx_error *err)
{
    char *const argv[] = { (char *)"sh", (char *)"-c", (char *)command->text, NULL };
    /* environ at exec is the host's or the isolated command's (PATH, HOME,
     * LANG): room for the larger with the command's own. */
    size_t host_vars = 0;
    while (environ[host_vars] != NULL)
        host_vars++;
    size_t slot_count = (host_vars > 3 ? host_vars : 3) + command->env_count + 1;
    char **env_slots = command->env_count > 0 ? calloc(slot_count, sizeof *env_slots) : NULL;
    int pid_pipe[2] = { -1, -1 }, status_pipe[2] = { -1, -1 }, go[2] = { -1, -1 };
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    *launch = (local_launch)LOCAL_LAUNCH_INIT;
    sbx_status st = SBX_OK;
    /* The go channel is a socket so that the host's send cannot raise
     * SIGPIPE when the shell is gone. */
    if (null_fd < 0 || (command->env_count > 0 && env_slots == NULL) ||
        pipe2(pid_pipe, O_CLOEXEC) != 0 || pipe2(status_pipe, O_CLOEXEC) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go) != 0) {
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot prepare the sandbox process: %s",
                                   strerror(errno));
        goto done;
    }
    launch_fds fds = { null_fd, log_fd, go[1], pid_pipe[1], status_pipe[1],
                       { go[0], pid_pipe[0], status_pipe[0] }, local_child_fd_limit(),
                       server, command, env_slots, slot_count };
    pid_t host = getpid();
    pid_t child = fork();
    if (child < 0) {
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "fork failed: %s", strerror(errno));
        goto done;
    }
    if (child == 0) {
        for (size_t i = 0; i < 3; i++)
            close(fds.host_ends[i]);
        run_watcher(host, &fds, argv);
    }
    launch->watcher_pid = child;
    launch->go_fd = go[0];
    launch->status_fd = status_pipe[0];
    go[0] = status_pipe[0] = -1;
    close_if_open(&pid_pipe[1]);
    close_if_open(&status_pipe[1]);
    close_if_open(&go[1]);
    long shell = -1;
    if (!read_all(pid_pipe[0], &shell, sizeof shell) || shell <= 0) {
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot start the sandbox process");
        goto done;
    }
    /* The shell waits for the go byte, so it exists while we read its start
     * time; setsid may not have run yet, which does not change the time. */
    char state;
    out->pid = shell;
    if (!read_proc_stat(shell, &state, &out->start_time)) {
        kill((pid_t)shell, SIGKILL);
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot read the state of process %ld",
                                   shell);
    }
done:
    if (st != SBX_OK)
        local_launch_release(launch);
    close_if_open(&pid_pipe[0]);
    close_if_open(&pid_pipe[1]);
    close_if_open(&status_pipe[0]);
    close_if_open(&status_pipe[1]);
    close_if_open(&go[0]);
    close_if_open(&go[1]);
    close_if_open(&null_fd);
    free(env_slots);
    return st;
}

sbx_status local_process_go(local_launch *launch, sbx_error *err)
{
    ssize_t n;
    while ((n = send(launch->go_fd, "g", 1, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    int saved = errno;
    close_if_open(&launch->go_fd);
    if (n != 1)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot start the sandbox process: %s",
                                     strerror(saved));
    return SBX_OK;
}

int local_launch_exit_status(local_launch *launch, int *status)
{
    struct pollfd p = { .fd = launch->status_fd, .events = POLLIN, .revents = 0 };
    if (launch->status_fd < 0 || poll(&p, 1, 0) <= 0)
        return 0;
    /* Written whole by one write of an int, far below PIPE_BUF. */
    return read_all(launch->status_fd, status, sizeof *status);
}

void local_launch_release(local_launch *launch)
{
    if (launch->watcher_pid > 0) {
        kill((pid_t)launch->watcher_pid, SIGKILL);
        while (waitpid((pid_t)launch->watcher_pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    launch->watcher_pid = 0;
    close_if_open(&launch->go_fd);
    close_if_open(&launch->status_fd);
    close_if_open(&launch->ready_fd);
}

/* Wait until the process behind `pidfd` exits (becomes a zombie or is
 * reaped) or timeout_ms pass; 1 when it exited. */
static int wait_exit_pidfd(int pidfd, long timeout_ms)
{
    long deadline = local_now_ms() + timeout_ms;
    for (;;) {
        long left = deadline - local_now_ms();
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
static int wait_exit_polling(const local_process *proc, long timeout_ms)
{
    long deadline = local_now_ms() + timeout_ms;
    while (local_process_is_running(proc)) {
        long left = deadline - local_now_ms();
        if (left <= 0)
            return 0;
        local_pause_ms(left < POLL_INTERVAL_MS ? left : POLL_INTERVAL_MS);
    }
    return 1;
}

static int wait_exit(int pidfd, const local_process *proc, long timeout_ms)
{
    return pidfd >= 0 ? wait_exit_pidfd(pidfd, timeout_ms) : wait_exit_polling(proc, timeout_ms);
}

sbx_status local_process_stop(const local_process *proc, long timeout_ms,
                              sbx_error *err)
{
    /* Pin the process with a pidfd first, then check it is still ours: from
     * then on its pid (= its group id) cannot be recycled under us.  ESRCH:
     * it is gone, and a leftover group of a dead shell is not touched, since
     * its id may already name someone else's group. */
    int pidfd = (int)syscall(SYS_pidfd_open, (pid_t)proc->pid, 0U);
    if ((pidfd < 0 && errno == ESRCH) || !local_process_is_running(proc)) {
        if (pidfd >= 0)
            close(pidfd);
        return SBX_OK;
    }
    pid_t group = (pid_t)proc->pid;
    sbx_status st = SBX_OK;
    if (kill(-group, SIGTERM) != 0 && errno != ESRCH) {
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot signal process group %ld: %s",
                                   proc->pid, strerror(errno));
    } else {
        int exited = timeout_ms > 0 && wait_exit(pidfd, proc, timeout_ms);
        /* Also after a clean exit: children that ignored SIGTERM go now. */
        if (kill(-group, SIGKILL) != 0 && errno != ESRCH)
            st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot kill process group %ld: %s",
                                       proc->pid, strerror(errno));
        else if (!exited && !wait_exit(pidfd, proc, KILL_WAIT_MS))
            st = sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                       "process %ld survived SIGKILL", proc->pid);
    }
    if (pidfd >= 0)
        close(pidfd);
    return st;
}
