/* Waiting for a TCP port to accept connections (see tcp_ready.h). */
#include <config.h>

#include "common/tcp_ready.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The kernel announces nothing when a port starts listening, so refused
 * attempts are paced: the pause between rounds starts short (a server
 * usually listens within milliseconds) and doubles up to the maximum. */
#define FIRST_PAUSE_MS 5L
#define MAX_PAUSE_MS 100L

/* What an attempt must see for the server to count as serving. */
typedef enum ready_probe {
    PROBE_TCP,   /* an accepted connection */
    PROBE_HTTP   /* a reply to a request sent on it */
} ready_probe;

/* An attempt's `why` when the connection was accepted and then closed with
 * no reply (errno values are positive). */
#define CLOSED_WITHOUT_REPLY (-1)

static long monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Wait up to `ms` for `pfd` (NULL: nothing, a pause); poll()'s answer. */
static int poll_for(struct pollfd *pfd, long ms)
{
    int rc;
    long deadline = monotonic_ms() + ms;
    do {
        long left = deadline - monotonic_ms();
        rc = poll(pfd, pfd != NULL ? 1 : 0, left > 0 ? (int)left : 0);
    } while (rc < 0 && errno == EINTR);
    return rc;
}

/* Send a request on the connected `fd` and wait until `deadline` (ms) for
 * the first byte of a reply, whatever it says.  1 when one came; else 0
 * with the reason in *why (CLOSED_WITHOUT_REPLY: end of stream first). */
static int answers_http(int fd, long deadline, int *why)
{
    static const char request[] = "HEAD / HTTP/1.0\r\n\r\n";
    /* MSG_NOSIGNAL: a peer that already closed must not raise SIGPIPE. */
    if (send(fd, request, sizeof request - 1, MSG_NOSIGNAL) != (ssize_t)(sizeof request - 1)) {
        *why = errno;
        return 0;
    }
    struct pollfd pfd = { .fd = fd, .events = POLLIN, .revents = 0 };
    long left = deadline - monotonic_ms();
    int rc = poll_for(&pfd, left > 0 ? left : 0);
    if (rc <= 0) {
        *why = rc == 0 ? ETIMEDOUT : errno;
        return 0;
    }
    char byte;
    ssize_t n = recv(fd, &byte, 1, 0);
    if (n > 0)
        return 1;
    *why = n == 0 ? CLOSED_WITHOUT_REPLY : errno;
    return 0;
}

/* One non-blocking connect to `ai`, given at most `budget_ms` to complete
 * (and, for PROBE_HTTP, to be answered).  1 when the probe succeeded; else
 * 0 with the reason in *why. */
static int try_connect(const struct addrinfo *ai, long budget_ms, ready_probe probe, int *why)
{
    long deadline = monotonic_ms() + budget_ms;
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    ai->ai_protocol);
    if (fd < 0) {
        *why = errno;
        return 0;
    }
    int connected = connect(fd, ai->ai_addr, ai->ai_addrlen) == 0;
    if (!connected && errno != EINPROGRESS) {
        *why = errno;
    } else if (!connected) {
        struct pollfd pfd = { .fd = fd, .events = POLLOUT, .revents = 0 };
        int rc = poll_for(&pfd, budget_ms);
        int soerr = 0;
        socklen_t len = sizeof soerr;
        if (rc > 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0)
            connected = soerr == 0;
        *why = rc == 0 ? ETIMEDOUT : rc < 0 ? errno : soerr;
    }
    if (connected && probe == PROBE_HTTP)
        connected = answers_http(fd, deadline, why);
    close(fd);
    return connected;
}

/* The wait of tcp_ready.h's functions, with what an attempt must see. */
static sbx_status wait_ready(const common_ready_target *target, int watch_fd, int *woken,
                             ready_probe probe, sbx_error *err)
{
    const char *host = target->host, *what = target->what;
    int port = target->port;
    long timeout_ms = target->timeout_ms;
    *woken = 0;
    if (timeout_ms <= 0)
        return SBX_OK;
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints, *addrs = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    int gai = getaddrinfo(host, service, &hints, &addrs);
    if (gai != 0)
        return sbx_backend_error_set(err, SBX_ERR_TRANSPORT,
                                     "%s: cannot resolve '%.100s': %s", what,
                                     host, gai_strerror(gai));
    long deadline = monotonic_ms() + timeout_ms;
    long pause = FIRST_PAUSE_MS;
    int why = ETIMEDOUT, ready = 0;
    /* Bounded by the deadline; the count bound only guards against a clock
     * that does not advance. */
    long max_rounds = timeout_ms / FIRST_PAUSE_MS + 2;
    for (long round = 0; !ready && round < max_rounds; round++) {
        for (const struct addrinfo *ai = addrs; ai != NULL && !ready; ai = ai->ai_next) {
            long left = deadline - monotonic_ms();
            ready = left > 0 && try_connect(ai, left, probe, &why);
        }
        long left = deadline - monotonic_ms();
        if (ready || left <= 0)
            break;
        struct pollfd watch = { .fd = watch_fd, .events = POLLIN, .revents = 0 };
        if (poll_for(watch_fd >= 0 ? &watch : NULL, pause < left ? pause : left) > 0) {
            *woken = 1;
            break;
        }
        pause = pause * 2 < MAX_PAUSE_MS ? pause * 2 : MAX_PAUSE_MS;
    }
    freeaddrinfo(addrs);
    if (ready || *woken)
        return SBX_OK;
    const char *open_bracket = strchr(host, ':') != NULL ? "[" : "";
    const char *close_bracket = open_bracket[0] != '\0' ? "]" : "";
    return sbx_backend_error_set(
        err, SBX_ERR_TRANSPORT,
        "%s is not serving: nothing %s on %s%.100s%s:%d within %ld ms "
        "(ready_timeout_ms; last attempt: %s); the sandbox is left for destroy",
        what, probe == PROBE_HTTP ? "answered an HTTP request"
                                  : "accepted a connection",
        open_bracket, host, close_bracket, port, timeout_ms,
        why == CLOSED_WITHOUT_REPLY ? "the connection was closed without a reply"
                                    : strerror(why));
}

sbx_status common_tcp_wait_ready_watching(const common_ready_target *target, int watch_fd,
                                          int *woken, sbx_error *err)
{
    return wait_ready(target, watch_fd, woken, PROBE_TCP, err);
}

sbx_status common_http_wait_ready(const char *host, int port, long timeout_ms, const char *what,
                                  sbx_error *err)
{
    int woken;
    common_ready_target target = { host, port, timeout_ms, what };
    return wait_ready(&target, -1, &woken, PROBE_HTTP, err);
}
