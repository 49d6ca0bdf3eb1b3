/* Watched child processes (see watched_child.h). */
#include <config.h>

#include "tests/support/watched_child.h"

#include "tests/support/clock.h"
#include "tests/support/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child: the redirections, then exec; never returns. */
static void exec_child(const char *const *argv, int out_fd, int in_fd, int err_fd)
{
    if (dup2(out_fd, STDOUT_FILENO) < 0 || (in_fd >= 0 && dup2(in_fd, STDIN_FILENO) < 0) ||
        (err_fd >= 0 && dup2(err_fd, STDERR_FILENO) < 0))
        _exit(127);
    execv(argv[0], (char *const *)argv);
    _exit(127);
}

static void close_all(const int *fds, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

int sbx_test_child_spawn(sbx_test_child *c, const char *program, const char *const *args,
                         const char *stderr_path, int with_stdin)
{
    *c = (sbx_test_child){-1, -1, -1};
    size_t n = 0;
    while (args != NULL && args[n] != NULL)
        n++;
    /* Built before fork: the child may only exec. */
    const char **argv = calloc(n + 2, sizeof *argv);
    if (argv == NULL) {
        fprintf(stderr, "%s: cannot start: out of memory\n", program);
        return -1;
    }
    argv[0] = program;
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = args[i];
    int fds[5] = {-1, -1, -1, -1, -1}; /* out read, out write, in read, in write, stderr file */
    int joined = stderr_path != NULL && strcmp(stderr_path, SBX_TEST_STDERR_TO_STDOUT) == 0;
    if (pipe2(fds, O_CLOEXEC) != 0 || (with_stdin && pipe2(fds + 2, O_CLOEXEC) != 0) ||
        (stderr_path != NULL && !joined &&
         (fds[4] = open(stderr_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)) < 0)) {
        fprintf(stderr, "%s: cannot start: %s\n", program, strerror(errno));
        close_all(fds, 5);
        free(argv);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0)
        exec_child(argv, fds[1], fds[2], joined ? fds[1] : fds[4]);
    int saved = errno;
    free(argv);
    int parent_keeps[] = {fds[0], fds[3]}, child_only[] = {fds[1], fds[2], fds[4]};
    close_all(child_only, 3);
    if (pid < 0) {
        fprintf(stderr, "%s: cannot fork: %s\n", program, strerror(saved));
        close_all(parent_keeps, 2);
        return -1;
    }
    *c = (sbx_test_child){pid, fds[0], fds[3]};
    return 0;
}

int sbx_test_read_line(int fd, char *line, size_t cap, long deadline_ms)
{
    size_t len = 0;
    for (;;) {
        int ready = sbx_test_wait_readable(fd, deadline_ms);
        if (ready <= 0)
            return ready;
        char ch;
        ssize_t n = read(fd, &ch, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        if (ch == '\n')
            break;
        if (len + 1 < cap)
            line[len++] = ch;
    }
    if (cap > 0)
        line[len] = '\0';
    return 1;
}

int sbx_test_child_expect(sbx_test_child *c, const char *prefix, char *rest, size_t cap,
                          long timeout_ms)
{
    char line[512];
    int got = sbx_test_read_line(c->out_fd, line, sizeof line, sbx_test_now_ms() + timeout_ms);
    size_t skip = strlen(prefix);
    if (got == 1 && strncmp(line, prefix, skip) == 0 && strlen(line + skip) < cap) {
        snprintf(rest, cap, "%s", line + skip);
        return 1;
    }
    fprintf(stderr, "child %d did not say '%s...' (%s%s)\n", (int)c->pid, prefix,
            got == 0 ? "nothing within the deadline" : got < 0 ? "it ended" : "it said: ",
            got == 1 ? line : "");
    return 0;
}

int sbx_test_child_finish(sbx_test_child *c, int signal_number, long timeout_ms, char *keep,
                          size_t keep_cap)
{
    if (signal_number != 0)
        kill(c->pid, signal_number);
    if (c->in_fd >= 0)
        close(c->in_fd);
    if (!sbx_test_read_until_eof(c->out_fd, keep, keep_cap, sbx_test_now_ms() + timeout_ms)) {
        fprintf(stderr, "child %d did not end within %ld ms; killing it\n", (int)c->pid,
                timeout_ms);
        kill(c->pid, SIGKILL);
    }
    close(c->out_fd);
    int status = 0;
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {
    }
    *c = (sbx_test_child){-1, -1, -1};
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
