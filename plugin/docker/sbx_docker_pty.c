/*
 * sbx-docker-pty: the in-container owner of a docker process's terminal.
 *
 * The Engine API keeps no output of a detached exec (a Tty exec's output
 * reaches only the client attached when it starts, and a process must
 * outlive the call that started it), so the docker backend copies this
 * static program into the container and the process script runs it:
 *
 *   sbx-docker-pty run DIR ROWS COLS STDIN ARGV...
 *       opens a terminal of ROWS x COLS, runs ARGV on it in a session of
 *       its own (stdin, stdout and stderr the terminal), writes DIR/pg
 *       (its pid: its process group) and DIR/tty (the terminal's path),
 *       copies the terminal's output to stdout and, when STDIN is 1, its
 *       stdin to the terminal (end of file typed as the terminal's EOF
 *       character), and ends as ARGV ended (its code, or its signal).
 *   sbx-docker-pty plain DIR ARGV...
 *       runs ARGV with SIGINT and SIGQUIT at their defaults: the script
 *       starts every process from a background subshell, and a shell
 *       ignores both there, for good (no trap can undo it), so without
 *       this a process could never be interrupted.  DIR/pg (its pid, its
 *       process group) is written once they are: the script waits for it,
 *       so a signal sent right after the start is not lost.
 *   sbx-docker-pty resize DIR ROWS COLS
 *       sets the size of the terminal DIR/tty names; the kernel sends
 *       SIGWINCH to the process's foreground group.
 *   sbx-docker-pty serve
 *       the process server (sbx_docker_serve.h): the backend's process
 *       calls over one attached exec instead of an exec each.
 *
 * Messages go to stderr, exit 127 on a failure of its own.  docs/docker.md
 * "Terminals" is its user's guide.
 */
/* _GNU_SOURCE (ptsname_r, pipe2) comes from the build's flags. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "plugin/docker/sbx_docker_serve.h"

/* A pipe SIGCHLD writes a byte into, so that poll sees the command end. */
static int child_pipe[2] = { -1, -1 };

static int fail(const char *what)
{
    fprintf(stderr, "sbx-docker-pty: %s: %s\n", what, strerror(errno));
    return 127;
}

static void on_child(int sig)
{
    (void)sig;
    int saved = errno;
    ssize_t n = write(child_pipe[1], "c", 1);
    (void)n;
    errno = saved;
}

/* A terminal size from two words, each 1..65535; 0 or -1 when bad. */
static int parse_size(const char *rows, const char *cols, struct winsize *out)
{
    char *end1 = NULL, *end2 = NULL;
    long r = strtol(rows, &end1, 10), c = strtol(cols, &end2, 10);
    if (*rows == '\0' || *end1 != '\0' || *cols == '\0' || *end2 != '\0' || r < 1 ||
        r > 65535 || c < 1 || c > 65535)
        return -1;
    memset(out, 0, sizeof *out);
    out->ws_row = (unsigned short)r;
    out->ws_col = (unsigned short)c;
    return 0;
}

/* Write `text` and a newline to DIR/NAME through a temporary file, so a
 * reader sees all of it or nothing; 0 or -1. */
static int publish(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX], temp[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
        snprintf(temp, sizeof temp, "%s/.%s.new", dir, name) >= (int)sizeof temp)
        return -1;
    FILE *f = fopen(temp, "w");
    if (f == NULL)
        return -1;
    int ok = fprintf(f, "%s\n", text) >= 0;
    ok = fclose(f) == 0 && ok;
    return ok && rename(temp, path) == 0 ? 0 : -1;
}

/* Run argv with the signals a background subshell ignored at their
 * defaults; returns only on failure, 127. */
static int exec_plain(char **argv)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    execvp(argv[0], argv);
    fprintf(stderr, "sbx-docker-pty: cannot run '%s': %s\n", argv[0], strerror(errno));
    return 127;
}

/* The command's side: a new session whose controlling terminal is `name`. */
static void run_command(const char *name, char **argv)
{
    setsid();
    int slave = open(name, O_RDWR);
    if (slave < 0 || ioctl(slave, TIOCSCTTY, 0) != 0) {
        fail(name);
        _exit(127);
    }
    dup2(slave, 0);
    dup2(slave, 1);
    dup2(slave, 2);
    if (slave > 2)
        close(slave);
    _exit(exec_plain(argv));
}

/* Copy the terminal's output to stdout and stdin to the terminal until the
 * command has ended and its output is read. */
static void pump(int master, int feed_stdin)
{
    char buf[65536];
    int child_gone = 0;
    for (;;) {
        struct pollfd fds[3] = { { master, POLLIN, 0 }, { child_pipe[0], POLLIN, 0 },
                                 { feed_stdin ? 0 : -1, POLLIN, 0 } };
        /* Once the command has ended, the terminal is read until it says
         * no one holds it (or is quiet for 100 ms: a process the command
         * left behind may hold it forever). */
        int n = poll(fds, 3, child_gone ? 100 : -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (n == 0 && child_gone))
            return;
        if (fds[1].revents != 0) {
            char c;
            if (read(child_pipe[0], &c, 1) > 0)
                child_gone = 1;
        }
        if (fds[0].revents != 0) {
            ssize_t got = read(master, buf, sizeof buf);
            if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN))
                return;
            if (got > 0 && sbx_docker_write_all(1, buf, (size_t)got) != 0)
                return;
        }
        if (feed_stdin && fds[2].revents != 0) {
            ssize_t got = read(0, buf, sizeof buf);
            if (got > 0) {
                sbx_docker_write_all(master, buf, (size_t)got);
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                struct termios t;
                char eof = tcgetattr(master, &t) == 0 ? (char)t.c_cc[VEOF] : 4;
                sbx_docker_write_all(master, &eof, 1);
                feed_stdin = 0;
            }
        }
    }
}

/* `plain`: the signals put back, then DIR/pg published, then argv. */
static int plain(const char *dir, char **argv)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    char number[32];
    snprintf(number, sizeof number, "%ld", (long)getpid());
    if (publish(dir, "pg", number) != 0)
        return fail(dir);
    return exec_plain(argv);
}

static int run(const char *dir, const struct winsize *size, int feed_stdin, char **argv)
{
    /* Before the fork: the command has them at their defaults from its
     * first instruction, so a signal sent once pg is published counts. */
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
        return fail("cannot open a terminal (/dev/ptmx)");
    char name[PATH_MAX];
    if (ptsname_r(master, name, sizeof name) != 0)
        return fail("cannot name the terminal");
    if (ioctl(master, TIOCSWINSZ, size) != 0)
        return fail("cannot size the terminal");
    if (pipe2(child_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return fail("pipe");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_child;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    pid_t pid = fork();
    if (pid < 0)
        return fail("fork");
    if (pid == 0)
        run_command(name, argv);
    char number[32];
    snprintf(number, sizeof number, "%ld", (long)pid);
    if (publish(dir, "tty", name) != 0 || publish(dir, "pg", number) != 0) {
        int code = fail(dir);
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return code;
    }
    pump(master, feed_stdin);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(status)) {
        /* End by the same signal, so the script reports it as the
         * command's. */
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 127;
}

static int resize(const char *dir, const struct winsize *size)
{
    char path[PATH_MAX], name[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/tty", dir) >= (int)sizeof path)
        return 127;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return fail(path);
    int got = fgets(name, sizeof name, f) != NULL;
    fclose(f);
    name[got ? strcspn(name, "\n") : 0] = '\0';
    int fd = open(name, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || ioctl(fd, TIOCSWINSZ, size) != 0)
        return fail(name);
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    struct winsize size;
    if (argc >= 7 && strcmp(argv[1], "run") == 0 && parse_size(argv[3], argv[4], &size) == 0 &&
        (strcmp(argv[5], "0") == 0 || strcmp(argv[5], "1") == 0))
        return run(argv[2], &size, argv[5][0] == '1', argv + 6);
    if (argc >= 4 && strcmp(argv[1], "plain") == 0)
        return plain(argv[2], argv + 3);
    if (argc == 5 && strcmp(argv[1], "resize") == 0 && parse_size(argv[3], argv[4], &size) == 0)
        return resize(argv[2], &size);
    if (argc == 2 && strcmp(argv[1], "serve") == 0)
        return sbx_docker_serve();
    fprintf(stderr, "usage: sbx-docker-pty run DIR ROWS COLS 0|1 ARGV... | plain DIR ARGV... | "
                    "resize DIR ROWS COLS | serve\n");
    return 127;
}
