/* A real redis-server for the tests (see redis_server.h). */
#include <config.h>

#include "tests/manager/redis_server.h"

#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/clock.h"
#include "tests/support/subprocess.h"

int redis_server_available(void)
{
    const char *path = getenv("PATH");
    if (path == NULL)
        return 0;
    char *copy = strdup(path);
    int found = 0;
    for (char *dir = strtok(copy, ":"); dir != NULL && !found; dir = strtok(NULL, ":")) {
        char candidate[512];
        snprintf(candidate, sizeof candidate, "%s/redis-server", dir);
        found = access(candidate, X_OK) == 0;
    }
    free(copy);
    return found;
}

char *redis_server_command(const redis_server *server, int argc, const char **argv)
{
    struct timeval tv = {2, 0};
    redisContext *c = redisConnectUnixWithTimeout(server->socket, tv);
    if (c == NULL || c->err) {
        if (c != NULL)
            redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, tv);
    redisReply *r = redisCommandArgv(c, argc, argv, NULL);
    char *text = NULL;
    if (r != NULL) {
        char num[32];
        if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS)
            text = strdup(r->str);
        else if (r->type == REDIS_REPLY_INTEGER) {
            snprintf(num, sizeof num, "%lld", r->integer);
            text = strdup(num);
        } else if (r->type == REDIS_REPLY_NIL)
            text = strdup("(nil)");
        freeReplyObject(r);
    }
    redisFree(c);
    return text;
}

static int spawn(redis_server *s)
{
    char log[300];
    snprintf(log, sizeof log, "%s/redis.log", s->dir);
    s->pid = fork();
    if (s->pid < 0)
        return -1;
    if (s->pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        int null_fd = open("/dev/null", O_RDONLY);
        if (fd < 0 || null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(126);
        char port[16];
        snprintf(port, sizeof port, "%d", s->port);
        execlp("redis-server", "redis-server", "--port", port, "--bind", "127.0.0.1",
               "--unixsocket", s->socket, "--unixsocketperm", "700", "--save", "",
               "--appendonly", "no", "--dir", s->dir, (char *)NULL);
        _exit(127);
    }
    long deadline = sbx_test_now_ms() + 10000;
    const char *ping[] = {"PING"};
    while (sbx_test_now_ms() < deadline) {
        char *pong = redis_server_command(s, 1, ping);
        int ok = pong != NULL && strcmp(pong, "PONG") == 0;
        free(pong);
        if (ok)
            return 0;
        int status;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid) {
            fprintf(stderr, "redis-server exited at start (see %s)\n", log);
            s->pid = -1;
            return -1;
        }
    }
    fprintf(stderr, "redis-server did not answer within 10 s (see %s)\n", log);
    redis_server_stop(s, 1);
    return -1;
}

/* A fresh private directory and the socket's path in it: 0 or -1. */
static int make_dir(redis_server *s)
{
    memset(s, 0, sizeof *s);
    const char *base = getenv("XDG_STATE_HOME");
    snprintf(s->dir, sizeof s->dir, "%s/redis-XXXXXX", base != NULL && base[0] == '/' ? base : "/tmp");
    if (base != NULL)
        mkdir(base, 0700);
    if (mkdtemp(s->dir) == NULL) {
        fprintf(stderr, "mkdtemp %s: %s\n", s->dir, strerror(errno));
        return -1;
    }
    snprintf(s->socket, sizeof s->socket, "%s/redis.sock", s->dir);
    snprintf(s->url, sizeof s->url, "unix://%s", s->socket);
    return 0;
}

int redis_server_start(redis_server *s)
{
    return make_dir(s) == 0 ? spawn(s) : -1;
}

/* A port of 127.0.0.1 free a moment ago (the kernel's pick), or -1. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
               getsockname(fd, (struct sockaddr *)&a, &len) == 0 ? ntohs(a.sin_port) : -1;
    if (fd >= 0)
        close(fd);
    return port;
}

int redis_server_start_tcp(redis_server *s)
{
    /* Another process may take the port between the pick and the bind:
     * a few picks. */
    for (int attempt = 0; attempt < 5; attempt++) {
        int port = free_port();
        if (port <= 0)
            return -1;
        if (make_dir(s) != 0)
            return -1;
        s->port = port;
        if (spawn(s) == 0)
            return 0;
        redis_server_stop(s, 0);
    }
    return -1;
}

int redis_server_restart(redis_server *s)
{
    return spawn(s);
}

void redis_server_stop(redis_server *s, int keep_dir)
{
    if (s->pid > 0) {
        /* The pidfd becomes readable when the server exits. */
        int pidfd = pidfd_open(s->pid, 0);
        kill(s->pid, SIGTERM);
        if (pidfd < 0 || sbx_test_wait_readable(pidfd, sbx_test_now_ms() + 5000) != 1)
            kill(s->pid, SIGKILL);
        if (pidfd >= 0)
            close(pidfd);
        int status;
        waitpid(s->pid, &status, 0);
        s->pid = -1;
    }
    if (!keep_dir) {
        char path[400];
        const char *files[] = {"redis.log", "redis.sock", "dump.rdb"};
        for (size_t i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%s", s->dir, files[i]);
            unlink(path);
        }
        rmdir(s->dir);
    }
}
