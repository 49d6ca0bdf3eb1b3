/* Child-process runner for the sbxctl suites: posix_spawn with both output
 * pipes drained through poll() until EOF or a deadline. */
#include <config.h>

#include "tests/sbxctl/run_sbxctl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Bytes kept of each output stream; sbxctl prints far less. */
#define CAPTURE_LIMIT (4u * 1024u * 1024u)

typedef struct capture {
    int fd;
    char *data;
    size_t len, cap;
} capture;

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int name_matches(const char *entry, const char *spec)
{
    size_t name_len = strcspn(spec, "=");
    return strncmp(entry, spec, name_len) == 0 && entry[name_len] == '=';
}

/* environ with `changes` applied; the array is malloc'd, the strings borrowed. */
static char **build_environment(const char *const *changes)
{
    size_t base = 0, extra = 0;
    while (environ[base] != NULL)
        base++;
    while (changes != NULL && changes[extra] != NULL)
        extra++;
    char **envp = calloc(base + extra + 1, sizeof *envp);
    if (envp == NULL)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < base; i++) {
        int replaced = 0;
        for (size_t j = 0; j < extra && !replaced; j++)
            replaced = name_matches(environ[i], changes[j]);
        if (!replaced)
            envp[n++] = environ[i];
    }
    for (size_t j = 0; j < extra; j++) {
        if (strchr(changes[j], '=') != NULL)
            envp[n++] = (char *)changes[j];
    }
    envp[n] = NULL;
    return envp;
}

static char **build_argv(const char *bin, const char *const *args)
{
    size_t count = 0;
    while (args[count] != NULL)
        count++;
    char **argv = calloc(count + 2, sizeof *argv);
    if (argv == NULL)
        return NULL;
    argv[0] = (char *)bin;
    for (size_t i = 0; i < count; i++)
        argv[i + 1] = (char *)args[i];
    return argv;
}

/* Read what is available; returns 1 at EOF (fd closed), else 0. */
static int drain(capture *c)
{
    char chunk[4096];
    ssize_t got = read(c->fd, chunk, sizeof chunk);
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (got <= 0) {
        close(c->fd);
        c->fd = -1;
        return 1;
    }
    if (c->len + (size_t)got + 1 > c->cap && c->len + (size_t)got < CAPTURE_LIMIT) {
        size_t cap = c->cap == 0 ? 8192 : c->cap;
        while (cap < c->len + (size_t)got + 1)
            cap *= 2;
        char *grown = realloc(c->data, cap);
        if (grown != NULL) {
            c->data = grown;
            c->cap = cap;
        }
    }
    if (c->len + (size_t)got + 1 <= c->cap) {
        memcpy(c->data + c->len, chunk, (size_t)got);
        c->len += (size_t)got;
        c->data[c->len] = '\0';
    }
    return 0;
}

static int pump(capture *out, capture *err, long long deadline)
{
    while (out->fd >= 0 || err->fd >= 0) {
        long long left = deadline - now_ms();
        if (left <= 0)
            return -1;
        struct pollfd fds[2] = {{out->fd, POLLIN, 0}, {err->fd, POLLIN, 0}};
        int ready = poll(fds, 2, (int)left);
        if (ready < 0 && errno != EINTR)
            return -1;
        if (ready <= 0)
            continue;
        if (out->fd >= 0 && fds[0].revents != 0)
            drain(out);
        if (err->fd >= 0 && fds[1].revents != 0)
            drain(err);
    }
    return 0;
}

static char *take_text(capture *c, size_t *len)
{
    *len = c->len;
    if (c->data == NULL)
        return strdup("");
    return c->data;
}

int sbx_test_run_sbxctl(const char *const *args, const char *const *env, int timeout_ms,
                        sbx_test_run *run)
{
    return sbx_test_run_sbxctl_stdin(args, env, "/dev/null", timeout_ms, run);
}

int sbx_test_run_sbxctl_stdin(const char *const *args, const char *const *env,
                              const char *stdin_path, int timeout_ms, sbx_test_run *run)
{
    memset(run, 0, sizeof *run);
    run->exit_code = -1;
    const char *bin = getenv("SBXCTL_BIN");
    if (bin == NULL || bin[0] == '\0') {
        fprintf(stderr, "SBXCTL_BIN is not set\n");
        return -1;
    }

    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
        perror("pipe2");
        return -1;
    }
    char **argv = build_argv(bin, args);
    char **envp = build_environment(env);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, stdin_path, O_RDONLY, 0);

    pid_t pid = -1;
    int spawn_error = argv != NULL && envp != NULL
                          ? posix_spawn(&pid, bin, &actions, NULL, argv, envp)
                          : ENOMEM;
    posix_spawn_file_actions_destroy(&actions);
    free(argv);
    free(envp);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (spawn_error != 0) {
        fprintf(stderr, "cannot run %s: %s\n", bin, strerror(spawn_error));
        close(out_pipe[0]);
        close(err_pipe[0]);
        return -1;
    }

    capture out = {out_pipe[0], NULL, 0, 0}, err = {err_pipe[0], NULL, 0, 0};
    if (pump(&out, &err, now_ms() + timeout_ms) != 0) {
        run->timed_out = 1;
        kill(pid, SIGKILL);
        if (out.fd >= 0)
            close(out.fd);
        if (err.fd >= 0)
            close(err.fd);
    }
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
        continue;
    if (!run->timed_out && WIFEXITED(wstatus))
        run->exit_code = WEXITSTATUS(wstatus);
    run->out = take_text(&out, &run->out_len);
    run->err = take_text(&err, &run->err_len);
    if (run->timed_out)
        fprintf(stderr, "sbxctl did not finish within %d ms\n", timeout_ms);
    return run->timed_out || run->exit_code < 0 ? -1 : 0;
}

void sbx_test_run_clear(sbx_test_run *run)
{
    free(run->out);
    free(run->err);
    run->out = run->err = NULL;
}

size_t sbx_test_count_lines(const char *text)
{
    size_t lines = 0;
    for (; text != NULL && *text != '\0'; text++)
        lines += *text == '\n';
    return lines;
}

struct json_object *sbx_test_run_json(const sbx_test_run *run)
{
    if (run->out == NULL || run->out_len == 0 || run->out[run->out_len - 1] != '\n' ||
        sbx_test_count_lines(run->out) != 1) {
        fprintf(stderr, "stdout is not one line: [%s]\n", run->out != NULL ? run->out : "");
        return NULL;
    }
    for (size_t i = 0; i + 1 < run->out_len; i++) {
        if ((unsigned char)run->out[i] < 0x20) {
            fprintf(stderr, "stdout holds control byte 0x%02x: [%s]\n",
                    (unsigned char)run->out[i], run->out);
            return NULL;
        }
    }
    json_tokener *tokener = json_tokener_new();
    if (tokener == NULL)
        return NULL;
    /* Strict JSON (RFC 8259, no comments or single quotes) in UTF-8, as
     * any consumer of sbxctl's output may demand. */
    json_tokener_set_flags(tokener, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    int text_len = (int)(run->out_len - 1);
    json_object *object = json_tokener_parse_ex(tokener, run->out, text_len);
    int whole = json_tokener_get_error(tokener) == json_tokener_success &&
                (int)json_tokener_get_parse_end(tokener) == text_len;
    json_tokener_free(tokener);
    if (object == NULL || !whole || !json_object_is_type(object, json_type_object)) {
        fprintf(stderr, "stdout is not one JSON object: [%s]\n", run->out);
        json_object_put(object);
        return NULL;
    }
    return object;
}

/* A TCP socket bound to 127.0.0.1 on an ephemeral port (into *port),
 * listening with `backlog` when it is above 0; -1 on failure. */
static int loopback_socket(int *port, int backlog)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof address;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0 ||
        (backlog > 0 && listen(fd, backlog) != 0) ||
        getsockname(fd, (struct sockaddr *)&address, &len) != 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(address.sin_port);
    return fd;
}

int sbx_test_refusing_port(int *port)
{
    return loopback_socket(port, 0);
}

int sbx_test_listening_port(int *port)
{
    return loopback_socket(port, 8);
}
