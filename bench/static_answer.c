/*
 * static-answer: a minimal HTTP/1.1 server for bench/run that answers every
 * request with one file's bytes (status 200, application/json, keep-alive),
 * so a list's client side is timed against a server that does almost no
 * work per call (the emulator builds a 10k list answer anew each time).
 *
 *   static-answer FILE SECONDS
 *
 * Listens on an ephemeral port of 127.0.0.1 only, prints
 * "listening on http://127.0.0.1:PORT" on stdout, serves each connection on
 * its own thread, and exits by itself after SECONDS (or on SIGTERM).
 * A request's body (its Content-Length) is read and dropped, so a POST of a
 * large body is timed as the trip of those bytes and one answer.
 */
#include <config.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static char *answer;     /* header and body, sent as one block */
static size_t answer_len;

/* The Content-Length of a request head (0 when it has none). */
static unsigned long long body_length(const char *head, size_t len)
{
    static const char name[] = "\ncontent-length:";
    for (size_t i = 0; i + sizeof name - 1 <= len; i++) {
        size_t k = 0;
        while (k < sizeof name - 1 && tolower((unsigned char)head[i + k]) == name[k])
            k++;
        if (k == sizeof name - 1)
            return strtoull(head + i + k, NULL, 10);
    }
    return 0;
}

/* Read and discard one request, head and body; 0 at its end, -1 at EOF. */
static int read_request(int fd, char *buf, size_t size, size_t *have)
{
    unsigned long long body = 0;
    int in_head = 1;
    for (;;) {
        char *end = in_head ? memmem(buf, *have, "\r\n\r\n", 4) : NULL;
        size_t used = 0;
        if (end != NULL) {
            used = (size_t)(end + 4 - buf);
            body = body_length(buf, used);
            in_head = 0;
        }
        if (!in_head) {
            size_t drop = *have - used < body ? *have - used : (size_t)body;
            body -= drop;
            used += drop;
            memmove(buf, buf + used, *have - used);
            *have -= used;
            if (body == 0)
                return 0;
        } else if (*have == size) { /* a head this long is not one of ours */
            return -1;
        }
        ssize_t n = read(fd, buf + *have, size - *have);
        if (n <= 0)
            return -1;
        *have += (size_t)n;
    }
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void *serve(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char buf[256 * 1024]; /* a 100 KiB body in a read or two */
    size_t have = 0;
    while (read_request(fd, buf, sizeof buf, &have) == 0 &&
           write_all(fd, answer, answer_len) == 0) {
    }
    close(fd);
    return NULL;
}

static int load(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0)
        return -1;
    long size = ftell(f);
    char head[160];
    int head_len = snprintf(head, sizeof head,
                            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                            "Content-Length: %ld\r\n\r\n", size);
    answer = malloc((size_t)head_len + (size_t)size);
    if (size < 0 || answer == NULL || fseek(f, 0, SEEK_SET) != 0)
        return -1;
    memcpy(answer, head, (size_t)head_len);
    if (fread(answer + head_len, 1, (size_t)size, f) != (size_t)size)
        return -1;
    answer_len = (size_t)head_len + (size_t)size;
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3 || atoi(argv[2]) <= 0) {
        fprintf(stderr, "usage: static-answer FILE SECONDS\n");
        return 2;
    }
    if (load(argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof addr;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        listen(lfd, 128) != 0 || getsockname(lfd, (struct sockaddr *)&addr, &alen) != 0) {
        perror("static-answer: listen");
        return 1;
    }
    printf("listening on http://127.0.0.1:%u\n", ntohs(addr.sin_port));
    fflush(stdout);
    alarm((unsigned)atoi(argv[2])); /* the default action ends the process */
    for (;;) {
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) {
            if (errno == EINTR)
                continue;
            perror("static-answer: accept");
            return 1;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_t t;
        if (pthread_create(&t, NULL, serve, (void *)(intptr_t)fd) != 0) {
            close(fd);
            continue;
        }
        pthread_detach(t);
    }
}
