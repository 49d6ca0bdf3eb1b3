/*
 * The process server of sbx-docker-pty (see sbx_docker_serve.h): each
 * request is run as an exec of the engine would run it (a session of its
 * own, the given working directory, stdin from the request, stdout and
 * stderr captured), and its answer written once it ended and its output
 * pipes closed.  The server reads the whole of a request's stdin while
 * the command runs (never holding more than one pipe's worth), so the
 * backend may send it all before reading the answer.  The process
 * script's read and wait are answered here instead of run, when the
 * request says it is the script (sbx_docker_proc_native.h).
 */
#include "plugin/docker/sbx_docker_serve.h"

#include "plugin/docker/docker_proc_wire.h"
#include "plugin/docker/sbx_docker_proc_native.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int fail(const char *what)
{
    fprintf(stderr, "sbx-docker-pty serve: %s: %s\n", what, strerror(errno));
    return 127;
}

/* 1 when all `n` bytes were read, 0 at an end of file before the first,
 * -1 otherwise. */
static int read_full(int fd, void *buf, size_t n)
{
    size_t at = 0;
    while (at < n) {
        ssize_t got = read(fd, (char *)buf + at, n - at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got == 0 && at == 0 ? 0 : -1;
        at += (size_t)got;
    }
    return 1;
}

int sbx_docker_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t put = write(fd, p, n);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return -1;
        p += put;
        n -= (size_t)put;
    }
    return 0;
}

/* A command's stream as answered: its first `max` bytes. */
typedef struct captured {
    char *data;
    size_t len, cap, max;
    int truncated;
} captured;

static int capture(captured *c, const char *bytes, size_t n)
{
    size_t keep = c->max - c->len < n ? c->max - c->len : n;
    c->truncated |= keep < n;
    if (c->len + keep > c->cap) {
        size_t cap = c->cap ? c->cap : 4096;
        while (cap < c->len + keep)
            cap *= 2;
        char *grown = realloc(c->data, cap);
        if (grown == NULL)
            return -1;
        c->data = grown;
        c->cap = cap;
    }
    memcpy(c->data + c->len, bytes, keep);
    c->len += keep;
    return 0;
}

/* One request being carried out. */
typedef struct running {
    pid_t pid;
    int to_child;            /* its stdin's write end, -1 once closed */
    int from_out, from_err;  /* its stdout's and stderr's read ends, -1 at their end */
    uint32_t stdin_left;     /* request bytes not yet read from our stdin */
    char pending[65536];     /* read from our stdin, not yet taken by the command */
    size_t pending_at, pending_len;
    captured out, err;
} running;

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The command's side of the fork: never returns. */
static void run_child(const int pipes[3][2], int report, const char *dir, char **argv)
{
    setsid();
    dup2(pipes[0][0], 0);
    dup2(pipes[1][1], 1);
    dup2(pipes[2][1], 2);
    signal(SIGPIPE, SIG_DFL);
    if (dir[0] != '\0' && chdir(dir) != 0) {
        unsigned char why = (unsigned char)errno;
        if (write(report, &why, 1) < 0)
            _exit(127);
        _exit(127);
    }
    execvp(argv[0], argv);
    _exit(127);
}

/* Start the command: 0, or -1 with errno (no pipe, no fork). */
static int start(running *r, const char *dir, char **argv, int *report)
{
    int pipes[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } }, rep[2] = { -1, -1 };
    int ok = pipe2(rep, O_CLOEXEC) == 0;
    for (int i = 0; ok && i < 3; i++)
        ok = pipe2(pipes[i], O_CLOEXEC) == 0;
    r->pid = ok ? fork() : -1;
    if (r->pid == 0)
        run_child((const int(*)[2])pipes, rep[1], dir, argv);
    int saved = errno;
    close(rep[1]);
    for (int i = 0; i < 3; i++)
        close(pipes[i][i == 0 ? 0 : 1]);
    if (r->pid < 0) {
        close(rep[0]);
        for (int i = 0; i < 3; i++)
            close(pipes[i][i == 0 ? 1 : 0]);
        errno = saved;
        return -1;
    }
    *report = rep[0];
    r->to_child = pipes[0][1];
    r->from_out = pipes[1][0];
    r->from_err = pipes[2][0];
    fcntl(r->to_child, F_SETFL, O_NONBLOCK);
    if (r->stdin_left == 0)
        close_fd(&r->to_child);
    return 0;
}

/* One step of the command's stdin: bytes of the request read from ours
 * or handed on to it.  0, or -1 when our peer went away. */
static int feed(running *r, const struct pollfd *ours, const struct pollfd *theirs)
{
    if (ours->revents != 0 && r->stdin_left > 0) {
        size_t want = r->stdin_left < sizeof r->pending ? r->stdin_left : sizeof r->pending;
        ssize_t got = read(0, r->pending, want);
        if (got <= 0)
            return got < 0 && errno == EINTR ? 0 : -1;
        r->stdin_left -= (uint32_t)got;
        /* A command that closed its stdin drops the rest, as a pipe does. */
        r->pending_len = r->to_child >= 0 ? (size_t)got : 0;
        r->pending_at = 0;
    } else if (ours->revents != 0) {
        /* Nothing is due before the answer: an end of file (or anything
         * else) says the backend is gone. */
        return -1;
    }
    if (theirs->revents != 0 && r->to_child >= 0) {
        ssize_t put = write(r->to_child, r->pending + r->pending_at,
                            r->pending_len - r->pending_at);
        if (put < 0 && errno != EINTR && errno != EAGAIN) {
            close_fd(&r->to_child);
            r->pending_len = r->pending_at = 0;
        } else if (put > 0) {
            r->pending_at += (size_t)put;
        }
    }
    if (r->pending_at == r->pending_len) {
        r->pending_at = r->pending_len = 0;
        if (r->stdin_left == 0)
            close_fd(&r->to_child);
    }
    return 0;
}

/* Read what one of the command's streams has: 0, or -1 out of memory. */
static int drain(int *fd, captured *c)
{
    char buf[65536];
    ssize_t got = read(*fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR)
        return 0;
    if (got <= 0) {
        close_fd(fd);
        return 0;
    }
    return capture(c, buf, (size_t)got);
}

/* Carry the command through to the end of its output; 0, or 127 when
 * our peer went away (the command's session is then killed). */
static int pump(running *r)
{
    while (r->from_out >= 0 || r->from_err >= 0 || r->stdin_left > 0 || r->pending_len > 0) {
        int has_pending = r->pending_len > r->pending_at;
        struct pollfd p[4] = {
            { has_pending ? -1 : 0, POLLIN, 0 },
            { has_pending && r->to_child >= 0 ? r->to_child : -1, POLLOUT, 0 },
            { r->from_out, POLLIN, 0 },
            { r->from_err, POLLIN, 0 },
        };
        if (poll(p, 4, -1) < 0) {
            if (errno == EINTR)
                continue;
            return fail("poll");
        }
        if (feed(r, &p[0], &p[1]) != 0 || (p[2].revents != 0 && drain(&r->from_out, &r->out)) ||
            (p[3].revents != 0 && drain(&r->from_err, &r->err))) {
            kill(-r->pid, SIGKILL);
            return 127;
        }
    }
    return 0;
}

/* The answer of an ended command. */
static int answer(const running *r, uint32_t kind, uint32_t value)
{
    unsigned char head[DOCKER_PROC_WIRE_ANSWER_WORDS * 4];
    uint32_t flags = (r->out.truncated ? DOCKER_PROC_WIRE_OUT_TRUNCATED : 0) |
                     (r->err.truncated ? DOCKER_PROC_WIRE_ERR_TRUNCATED : 0);
    uint32_t words[DOCKER_PROC_WIRE_ANSWER_WORDS] = { kind, value, (uint32_t)r->out.len,
                                                      (uint32_t)r->err.len, flags };
    for (int i = 0; i < DOCKER_PROC_WIRE_ANSWER_WORDS; i++)
        docker_proc_wire_put(head + 4 * i, words[i]);
    if (sbx_docker_write_all(1, head, sizeof head) != 0 ||
        sbx_docker_write_all(1, r->out.data, r->out.len) != 0)
        return -1;
    return sbx_docker_write_all(1, r->err.data, r->err.len);
}

/* The argv of a request's words (directory first): NULL when malformed. */
static char **split_words(char *words, uint32_t len, const char **dir)
{
    if (len < 2 || words[len - 1] != '\0')
        return NULL;
    size_t count = 0;
    for (uint32_t i = 0; i < len; i++)
        count += words[i] == '\0';
    char **argv = count >= 2 ? calloc(count, sizeof *argv) : NULL;
    if (argv == NULL)
        return NULL;
    *dir = words;
    size_t at = 0;
    for (char *w = words + strlen(words) + 1; w < words + len; w += strlen(w) + 1)
        argv[at++] = w;
    return argv[0][0] != '\0' ? argv : (free(argv), NULL);
}

/* sbx_docker_sink: an answer made here kept as a command's output is. */
static int keep_answer(void *ctx, int stream, const char *bytes, size_t n)
{
    running *r = ctx;
    return capture(stream == 1 ? &r->out : &r->err, bytes, n);
}

/* Read and drop the rest of the request's stdin (no command takes it):
 * 0, or -1 when it is cut short. */
static int skip_stdin(running *r)
{
    char sink[4096];
    while (r->stdin_left > 0) {
        size_t n = r->stdin_left < sizeof sink ? r->stdin_left : sizeof sink;
        if (read_full(0, sink, n) != 1)
            return -1;
        r->stdin_left -= (uint32_t)n;
    }
    return 0;
}

/* The process script's call answered here (sbx_docker_proc_native.h)
 * when the request says it runs the script (`sh -c SCRIPT $0 OP...`) in
 * the container's directory: 1 answered, 0 not one of those, -1 out of
 * memory. */
static int answer_natively(running *r, uint32_t flags, const char *dir, char **argv)
{
    if ((flags & DOCKER_PROC_WIRE_SCRIPT) == 0 || dir[0] != '\0' || argv[1] == NULL ||
        argv[2] == NULL || argv[3] == NULL)
        return 0;
    return sbx_docker_proc_native(argv + 4, keep_answer, r);
}

/* Run one request whose header is `head`: 0 to go on, else the exit code. */
static int serve_one(const unsigned char *head)
{
    uint32_t words_len = docker_proc_wire_get(head), max_output = docker_proc_wire_get(head + 8);
    if (words_len > DOCKER_PROC_WIRE_WORDS_MAX) {
        fprintf(stderr, "sbx-docker-pty serve: a request of %lu bytes of words\n",
                (unsigned long)words_len);
        return 127;
    }
    char *words = malloc(words_len ? words_len : 1);
    const char *dir = NULL;
    char **argv = NULL;
    if (words == NULL || read_full(0, words, words_len) != 1 ||
        (argv = split_words(words, words_len, &dir)) == NULL) {
        free(words);
        fprintf(stderr, "sbx-docker-pty serve: a malformed request\n");
        return 127;
    }
    running *r = calloc(1, sizeof *r);
    int report = -1, code = 127, native = 0;
    if (r != NULL) {
        r->stdin_left = docker_proc_wire_get(head + 4);
        r->out.max = r->err.max = max_output;
        r->to_child = r->from_out = r->from_err = -1;
        native = answer_natively(r, docker_proc_wire_get(head + 12), dir, argv);
    }
    if (r == NULL || native < 0) {
        code = fail("memory");
    } else if (native) {
        code = skip_stdin(r) == 0 && answer(r, DOCKER_PROC_WIRE_EXITED, 0) == 0 ? 0 : 127;
    } else if (start(r, dir, argv, &report) != 0) {
        /* The request's stdin is still ours to read. */
        int why = errno;
        code = skip_stdin(r) == 0 && answer(r, DOCKER_PROC_WIRE_NOSTART, (uint32_t)why) == 0
                   ? 0
                   : 127;
    } else if ((code = pump(r)) == 0) {
        int status = 0;
        while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
            ;
        unsigned char why = 0;
        int nodir = read(report, &why, 1) == 1;
        uint32_t kind = nodir                ? DOCKER_PROC_WIRE_NODIR
                        : WIFSIGNALED(status) ? DOCKER_PROC_WIRE_SIGNALED
                                              : DOCKER_PROC_WIRE_EXITED;
        uint32_t value = nodir                ? why
                         : WIFSIGNALED(status) ? (uint32_t)WTERMSIG(status)
                                               : (uint32_t)WEXITSTATUS(status);
        code = answer(r, kind, value) == 0 ? 0 : 127;
    }
    if (report >= 0)
        close(report);
    if (r != NULL) {
        close_fd(&r->to_child);
        close_fd(&r->from_out);
        close_fd(&r->from_err);
        free(r->out.data);
        free(r->err.data);
    }
    free(r);
    free(argv);
    free(words);
    return code;
}

int sbx_docker_serve(void)
{
    /* The engine may start us with either ignored; a command gets SIGPIPE
     * back at its default (run_child). */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGCHLD, SIG_DFL);
    if (sbx_docker_write_all(1, DOCKER_PROC_WIRE_HELLO, DOCKER_PROC_WIRE_HELLO_LEN) != 0)
        return fail("stdout");
    for (;;) {
        unsigned char head[DOCKER_PROC_WIRE_REQUEST_WORDS * 4];
        int got = read_full(0, head, sizeof head);
        if (got == 0)
            return 0;
        if (got < 0) {
            fprintf(stderr, "sbx-docker-pty serve: a request cut short\n");
            return 127;
        }
        int code = serve_one(head);
        if (code != 0)
            return code;
    }
}
