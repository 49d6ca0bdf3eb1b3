/* Raw HTTP/1.1 exchanges with the engine (see docker_conn.h). */
#include <config.h>

#include "plugin/docker/docker_conn.h"

#include "common/hex_digit.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int64_t docker_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

sbx_status docker_conn_fail(const docker_conn *c, const char *why, sbx_error *err)
{
    return sbx_backend_error_set(err, SBX_ERR_TRANSPORT, "docker: %s: engine socket %s: %s",
                                 c->what, c->socket_path, why);
}

/* Wait for `events` on the socket until `until_ms`: 1 ready, 0 timed out,
 * 2 c->cancel_fd hung up (it is -1 from then on), -1 error (errno). */
static int wait_for(docker_conn *c, short events, int64_t until_ms, short *revents)
{
    for (;;) {
        int64_t left = until_ms - docker_now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p[2] = { { c->fd, events, 0 }, { c->cancel_fd, POLLRDHUP, 0 } };
        int rc = poll(p, 2, left > 1000000 ? 1000000 : (int)left);
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc < 0)
            return -1;
        /* The socket's bytes first: the wrapper's line naming the group
         * to kill may be among them (a hang-up stays until seen). */
        if (p[1].revents != 0 && p[0].revents == 0) {
            c->cancel_fd = -1;
            return 2;
        }
        if (rc > 0) {
            if (revents != NULL)
                *revents = p[0].revents;
            return 1;
        }
    }
}

sbx_status docker_conn_open(docker_conn *c, const docker_engine *engine, const char *what,
                            int64_t deadline_ms, sbx_error *err)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->cancel_fd = -1;
    c->what = what;
    c->socket_path = engine->socket_path;
    c->deadline_ms = deadline_ms;
    c->length = -1;
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    size_t len = strlen(engine->socket_path);
    if (len >= sizeof addr.sun_path)
        return docker_conn_fail(c, strerror(ENAMETOOLONG), err);
    memcpy(addr.sun_path, engine->socket_path, len);
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0)
        return docker_conn_fail(c, strerror(errno), err);
    if (connect(c->fd, (const struct sockaddr *)&addr, sizeof addr) == 0)
        return SBX_OK;
    if (errno != EINPROGRESS && errno != EAGAIN)
        return docker_conn_fail(c, strerror(errno), err);
    /* A full backlog: wait (bounded) for the engine to accept. */
    short revents = 0;
    int rc = wait_for(c, POLLOUT, deadline_ms, &revents);
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (rc == 1 && getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0)
        return SBX_OK;
    return docker_conn_fail(c, rc == 0 ? "timed out connecting" : strerror(soerr ? soerr : errno),
                            err);
}

void docker_conn_close(docker_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

/* Send all `len` bytes before the deadline. */
static sbx_status send_all(docker_conn *c, const char *p, size_t len, sbx_error *err)
{
    while (len > 0) {
        ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return docker_conn_fail(c, strerror(errno), err);
        int rc = wait_for(c, POLLOUT, c->deadline_ms, NULL);
        if (rc <= 0)
            return docker_conn_fail(c, rc == 0 ? "timed out sending the request"
                                               : strerror(errno), err);
    }
    return SBX_OK;
}

sbx_status docker_conn_send_bytes(docker_conn *c, const void *bytes, size_t len, sbx_error *err)
{
    return send_all(c, bytes, len, err);
}

sbx_status docker_conn_send(docker_conn *c, const docker_engine *engine,
                            const docker_conn_request *req, sbx_error *err)
{
    size_t size = strlen(req->method) + strlen(engine->api_version) + strlen(req->path) +
                  strlen(req->extra_headers) + 128;
    char *head = malloc(size);
    if (head == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    int n = snprintf(head, size, "%s /%s%s HTTP/1.1\r\nHost: localhost\r\n%sContent-Length: %zu\r\n\r\n",
                     req->method, engine->api_version, req->path, req->extra_headers,
                     req->body_len);
    sbx_status st = send_all(c, head, (size_t)n, err);
    free(head);
    if (st == SBX_OK && req->body_len > 0)
        st = send_all(c, req->body, req->body_len, err);
    return st;
}

/* Read what the socket has into head[] (at most the room left), waiting
 * until the deadline.  0 when the peer closed. */
static sbx_status fill(docker_conn *c, size_t *got, sbx_error *err)
{
    for (;;) {
        ssize_t n = recv(c->fd, c->head + c->head_len, DOCKER_CONN_HEAD_MAX - c->head_len, 0);
        if (n >= 0) {
            c->head_len += (size_t)n;
            c->head[c->head_len] = '\0';
            *got = (size_t)n;
            return SBX_OK;
        }
        if (errno != EAGAIN && errno != EINTR)
            return docker_conn_fail(c, strerror(errno), err);
        int rc = wait_for(c, POLLIN, c->deadline_ms, NULL);
        if (rc <= 0)
            return docker_conn_fail(c, rc == 0 ? "timed out waiting for the engine's answer"
                                               : strerror(errno), err);
    }
}

/* The value of header `name` in the head (up to body_at), or NULL. */
static const char *header_value(const docker_conn *c, const char *name)
{
    size_t nlen = strlen(name);
    for (const char *line = strstr(c->head, "\r\n"); line != NULL && line + 2 < c->head + c->body_at;
         line = strstr(line + 2, "\r\n")) {
        const char *h = line + 2;
        if (strncasecmp(h, name, nlen) == 0 && h[nlen] == ':') {
            h += nlen + 1;
            while (*h == ' ' || *h == '\t')
                h++;
            return h;
        }
    }
    return NULL;
}

const char *docker_conn_header(const docker_conn *c, const char *name, size_t *len)
{
    const char *v = header_value(c, name);
    if (v != NULL)
        *len = strcspn(v, "\r\n");
    return v;
}

sbx_status docker_conn_read_head(docker_conn *c, sbx_error *err)
{
    char *end = NULL;
    while ((end = memmem(c->head, c->head_len, "\r\n\r\n", 4)) == NULL) {
        if (c->head_len >= DOCKER_CONN_HEAD_MAX)
            return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                         "docker: %s: the engine's answer has a head over %d "
                                         "bytes", c->what, DOCKER_CONN_HEAD_MAX);
        size_t got = 0;
        sbx_status st = fill(c, &got, err);
        if (st != SBX_OK)
            return st;
        if (got == 0)
            return docker_conn_fail(c, "the engine closed the connection without an answer",
                                    err);
    }
    /* The head is text: a NUL in it would cut the header search short (the
     * body after it may hold any byte). */
    if (memchr(c->head, '\0', (size_t)(end - c->head)) != NULL)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "docker: %s: the engine's answer is not HTTP", c->what);
    c->body_at = (size_t)(end - c->head) + 4;
    c->pending_at = c->body_at;
    int major = 0, minor = 0;
    long status = 0;
    if (sscanf(c->head, "HTTP/%d.%d %ld", &major, &minor, &status) != 3 || major != 1 ||
        status < 100 || status > 599)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "docker: %s: the engine's answer is not HTTP/1.x", c->what);
    c->status = status;
    const char *te = header_value(c, "Transfer-Encoding");
    c->chunked = te != NULL && strncasecmp(te, "chunked", 7) == 0;
    const char *cl = header_value(c, "Content-Length");
    if (cl != NULL && !c->chunked) {
        char *stop = NULL;
        long long v = strtoll(cl, &stop, 10);
        if (stop == cl || v < 0)
            return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                         "docker: %s: the engine's Content-Length is not a "
                                         "number", c->what);
        c->length = v;
    }
    /* HEAD-like answers without a body: 1xx, 204, 304. */
    if (status < 200 || status == 204 || status == 304)
        c->body_done = 1;
    return SBX_OK;
}

/* recv into `buf`; with `read_ahead` (a chunked body: its framing comes
 * between the data) what follows those `size` bytes goes on into head[]'s
 * room past the head as pending bytes, so that a chunk's size line costs
 * no system call of its own.  Only when nothing is pending. */
static ssize_t receive(docker_conn *c, char *buf, size_t size, int read_ahead)
{
    if (!read_ahead || c->body_at >= DOCKER_CONN_HEAD_MAX)
        return recv(c->fd, buf, size, 0);
    c->head_len = c->pending_at = c->body_at;
    struct iovec iov[2] = { { buf, size },
                            { c->head + c->head_len, DOCKER_CONN_HEAD_MAX - c->head_len } };
    ssize_t n = readv(c->fd, iov, 2);
    if (n > (ssize_t)size) {
        c->head_len += (size_t)n - size;
        c->head[c->head_len] = '\0';
        n = (ssize_t)size;
    }
    return n;
}

/* Raw bytes into `in`, waiting until in->until_ms (`read_ahead` as
 * receive's). */
static sbx_status raw_bytes(docker_conn *c, docker_conn_read *in, int read_ahead, sbx_error *err)
{
    in->got = 0;
    in->timed_out = 0;
    if (c->pending_at < c->head_len) {
        size_t n = c->head_len - c->pending_at;
        n = n < in->size ? n : in->size;
        memcpy(in->buf, c->head + c->pending_at, n);
        c->pending_at += n;
        in->got = n;
        return SBX_OK;
    }
    for (;;) {
        ssize_t n = receive(c, in->buf, in->size, read_ahead);
        if (n >= 0) {
            in->got = (size_t)n;
            return SBX_OK;
        }
        if (errno != EAGAIN && errno != EINTR)
            return docker_conn_fail(c, strerror(errno), err);
        int64_t until = in->until_ms < c->deadline_ms ? in->until_ms : c->deadline_ms;
        int rc = wait_for(c, POLLIN, until, NULL);
        if (rc < 0)
            return docker_conn_fail(c, strerror(errno), err);
        if (rc == 0 && until == c->deadline_ms)
            return docker_conn_fail(c, "timed out reading the engine's answer", err);
        if (rc == 0 || rc == 2) {
            in->timed_out = 1;
            return SBX_OK;
        }
    }
}

/* One byte of the body's framing (a chunk line); a close is a protocol
 * error there. */
static sbx_status framing_byte(docker_conn *c, char *byte, sbx_error *err)
{
    docker_conn_read in = { .buf = byte, .size = 1, .until_ms = c->deadline_ms };
    sbx_status st = raw_bytes(c, &in, 1, err);
    if (st == SBX_OK && in.got == 0)
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                   "docker: %s: the engine's chunked answer ends early", c->what);
    return st;
}

/* Read a chunk-size line ("HEX[;ext]\r\n") into c->chunk_left; after a
 * chunk's data, its CRLF comes first (`after_data`). */
static sbx_status next_chunk(docker_conn *c, int after_data, sbx_error *err)
{
    char byte = 0;
    sbx_status st = SBX_OK;
    if (after_data) {
        for (int i = 0; i < 2 && st == SBX_OK; i++)
            st = framing_byte(c, &byte, err);
        if (st != SBX_OK)
            return st;
    }
    uint64_t size = 0;
    int digits = 0, in_ext = 0;
    for (;;) {
        st = framing_byte(c, &byte, err);
        if (st != SBX_OK)
            return st;
        if (byte == '\n')
            break;
        if (byte == '\r' || in_ext)
            continue;
        if (byte == ';') {
            in_ext = 1;
            continue;
        }
        int v = common_hex_digit((char)byte);
        if (v < 0 || ++digits > 15)
            return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                         "docker: %s: the engine's chunked answer is malformed",
                                         c->what);
        size = size * 16 + (uint64_t)v;
    }
    if (digits == 0)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "docker: %s: the engine's chunked answer is malformed",
                                     c->what);
    c->chunk_left = size;
    /* The last chunk: its trailer is not needed, the connection closes. */
    if (size == 0)
        c->body_done = 1;
    return SBX_OK;
}

sbx_status docker_conn_read_body(docker_conn *c, void *buf, size_t size, size_t *got,
                                 sbx_error *err)
{
    *got = 0;
    if (c->body_done || size == 0)
        return SBX_OK;
    sbx_status st = SBX_OK;
    if (c->chunked) {
        /* chunk_left 0 and not done: before the first chunk, or after one. */
        if (c->chunk_left == 0)
            st = next_chunk(c, c->chunk_started, err);
        c->chunk_started = 1;
        if (st != SBX_OK || c->body_done)
            return st;
        size = c->chunk_left < size ? (size_t)c->chunk_left : size;
    } else if (c->length >= 0) {
        size = (uint64_t)c->length < size ? (size_t)c->length : size;
        if (size == 0) {
            c->body_done = 1;
            return SBX_OK;
        }
    }
    docker_conn_read in = { .buf = buf, .size = size, .until_ms = c->deadline_ms };
    st = raw_bytes(c, &in, c->chunked, err);
    *got = in.got;
    if (st != SBX_OK)
        return st;
    if (*got == 0) {
        if (c->chunked || c->length > 0)
            return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                         "docker: %s: the engine's answer ends early", c->what);
        c->body_done = 1;
    } else if (c->chunked) {
        c->chunk_left -= *got;
    } else if (c->length >= 0) {
        c->length -= (int64_t)*got;
        c->body_done = c->length == 0;
    }
    return SBX_OK;
}

void docker_conn_error_body(docker_conn *c, char *buf, size_t size, common_http_response *resp)
{
    size_t len = 0;
    sbx_error ignored;
    while (len + 1 < size) {
        size_t got = 0;
        if (docker_conn_read_body(c, buf + len, size - 1 - len, &got, &ignored) != SBX_OK ||
            got == 0)
            break;
        len += got;
    }
    buf[len] = '\0';
    resp->status = c->status;
    resp->body = buf;
    resp->body_len = len;
}

sbx_status docker_conn_pump(docker_conn *c, docker_conn_outgoing *out, docker_conn_read *in,
                            sbx_error *err)
{
    in->got = 0;
    in->timed_out = 0;
    /* Send what the socket takes now; wait for either direction. */
    while (out != NULL && !out->half_closed) {
        if (out->sent == out->length) {
            shutdown(c->fd, SHUT_WR);
            out->half_closed = 1;
            break;
        }
        ssize_t n = send(c->fd, out->data + out->sent, out->length - out->sent,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            out->sent += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EPIPE) {
            /* The command stopped reading and the engine closed its side:
             * what it left unread is dropped, as a pipe would. */
            out->half_closed = 1;
            break;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return docker_conn_fail(c, strerror(errno), err);
        if (c->pending_at < c->head_len)
            break;
        int64_t until = in->until_ms < c->deadline_ms ? in->until_ms : c->deadline_ms;
        short revents = 0;
        int rc = wait_for(c, POLLIN | POLLOUT, until, &revents);
        if (rc < 0)
            return docker_conn_fail(c, strerror(errno), err);
        if (rc == 0 && until == c->deadline_ms)
            return docker_conn_fail(c, "timed out on the exec stream", err);
        if (rc == 0 || rc == 2) {
            in->timed_out = 1;
            return SBX_OK;
        }
        if (revents & (POLLIN | POLLHUP | POLLERR))
            break;
    }
    return raw_bytes(c, in, 0, err);
}
