/*
 * A sandbox's HTTP server for the readiness tests, as a real process on
 * 127.0.0.1: prints "port N" once it listens, then answers every request
 * with one status and prints one line per request ("GET /path 503").
 *
 *   ready_server FLAG_FILE   503 until FLAG_FILE exists, then 200 (a server
 *                            that becomes ready when the test says so)
 *   ready_server =STATUS     always STATUS (e.g. =502: a proxy with nothing
 *                            behind it)
 *
 * One request per connection (Connection: close); runs until killed.
 */
#include <config.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int answer_status(const char *mode)
{
    if (mode[0] == '=')
        return atoi(mode + 1);
    return access(mode, F_OK) == 0 ? 200 : 503;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: ready_server FLAG_FILE | =STATUS\n", stderr);
        return 2;
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = { .sin_family = AF_INET };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
        perror("ready_server");
        return 1;
    }
    printf("port %d\n", ntohs(addr.sin_port));
    fflush(stdout);
    for (;;) {
        int c = accept(fd, NULL, NULL);
        if (c < 0)
            continue;
        char request[4096];
        size_t used = 0;
        ssize_t n;
        while (used < sizeof request - 1 &&
               (n = recv(c, request + used, sizeof request - 1 - used, 0)) > 0) {
            used += (size_t)n;
            request[used] = '\0';
            if (strstr(request, "\r\n\r\n") != NULL)
                break;
        }
        request[used] = '\0';
        char method[16] = "", target[1024] = "";
        sscanf(request, "%15s %1023s", method, target);
        int status = answer_status(argv[1]);
        char reply[256];
        int m = snprintf(reply, sizeof reply,
                         "HTTP/1.1 %d X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
                         status);
        if (send(c, reply, (size_t)m, MSG_NOSIGNAL) < 0)
            perror("ready_server: send");
        close(c);
        printf("%s %s %d\n", method, target, status);
        fflush(stdout);
    }
}
