/* Child processes for tests: fork+exec with a pipe, poll() with deadlines. */
#include <config.h>

#include "tests/support/subprocess.h"

#include "tests/support/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int sbx_test_wait_readable(int fd, long deadline_ms)
{
    for (;;) {
        long left = deadline_ms - sbx_test_now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ready = poll(&p, 1, (int)left);
        if (ready < 0 && errno == EINTR)
            continue;
        return ready < 0 ? -1 : ready > 0;
    }
}

int sbx_test_read_until_eof(int fd, char *keep, size_t keep_cap, long deadline_ms)
{
    size_t kept = 0;
    if (keep != NULL && keep_cap > 0)
        keep[0] = '\0';
    char buf[512];
    for (;;) {
        if (sbx_test_wait_readable(fd, deadline_ms) <= 0)
            return 0;
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n == 0)
            return 1;
        if (n < 0)
            return 0;
        if (keep != NULL && kept + 1 < keep_cap) {
            size_t room = keep_cap - 1 - kept;
            size_t take = (size_t)n < room ? (size_t)n : room;
            memcpy(keep + kept, buf, take);
            kept += take;
            keep[kept] = '\0';
        }
    }
}

/* In the child: stdin from /dev/null, stdout and stderr into the pipe. */
static void exec_child(const char *const *argv, int out_fd)
{
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
        dup2(out_fd, STDERR_FILENO) < 0)
        _exit(126);
    execvp(argv[0], (char *const *)argv);
    _exit(127);
}

int sbx_test_run_program(const char *const *argv, long timeout_ms, char *output,
                         size_t output_cap)
{
    char scratch[1];
    if (output == NULL || output_cap == 0) {
        output = scratch;
        output_cap = sizeof scratch;
    }
    output[0] = '\0';
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(output, output_cap, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0)
        exec_child(argv, fds[1]);
    int fork_errno = errno;
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        snprintf(output, output_cap, "fork: %s", strerror(fork_errno));
        return -1;
    }
    int finished = sbx_test_read_until_eof(fds[0], output, output_cap,
                                           sbx_test_now_ms() + timeout_ms);
    close(fds[0]);
    if (!finished)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!finished) {
        snprintf(output, output_cap, "%s: no result after %ld ms; killed", argv[0],
                 timeout_ms);
        return -1;
    }
    if (!WIFEXITED(status)) {
        snprintf(output, output_cap, "%s: died of signal %d", argv[0],
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        return -1;
    }
    return WEXITSTATUS(status);
}
