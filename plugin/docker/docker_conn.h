/*
 * One raw HTTP/1.1 exchange with the engine over its unix socket, for the
 * calls the shared HTTP client cannot make: exec start, whose connection
 * the engine hijacks (the command's stdin goes out on it and a
 * half-close, shutdown(SHUT_WR), is its end of file: libcurl has no
 * half-close), and the archive calls, whose tar bodies are streamed both
 * ways whatever their size.  Every wait is bounded by the connection's
 * deadline.  Not thread-safe: one connection, one thread.
 */
#ifndef SBX_DOCKER_CONN_H
#define SBX_DOCKER_CONN_H

#include "plugin/docker/docker_engine.h"

#include <stddef.h>
#include <stdint.h>

/* Bytes of an answer's head kept (status line and headers). */
#define DOCKER_CONN_HEAD_MAX 8192

typedef struct docker_conn {
    int fd;
    int64_t deadline_ms;          /* CLOCK_MONOTONIC ms; every wait ends there */
    const char *what;             /* the operation, for messages ("exec in sandbox 'x'") */
    const char *socket_path;
    char head[DOCKER_CONN_HEAD_MAX + 1];
    size_t head_len;              /* bytes of head[], the answer's head and what followed
                                   * (then a chunked body's bytes read ahead) */
    size_t body_at;               /* where the body starts in head[] */
    size_t pending_at;            /* next unread byte of head[] past the head */
    long status;                  /* the answer's status (0 before the head is read) */
    int chunked;                  /* Transfer-Encoding: chunked */
    int64_t length;               /* Content-Length, -1 when none */
    uint64_t chunk_left;          /* bytes left of the current chunk */
    int chunk_started;            /* a chunk's size line was read */
    int body_done;                /* the body's last byte was read */
    int cancel_fd;                /* -1, or a descriptor (borrowed) whose hang-up
                                   * ends docker_conn_pump's wait as its
                                   * until_ms does; -1 again once it hung up */
} docker_conn;

/* Monotonic milliseconds, the clock of every deadline. */
int64_t docker_now_ms(void);

/* Connect to the engine's socket, bounded by `deadline_ms` (cancel_fd
 * -1: set it once the head is read, for the pump).  SBX_OK, or
 * SBX_ERR_TRANSPORT naming `what` and the socket.  `what` is borrowed for
 * the connection's life. */
sbx_status docker_conn_open(docker_conn *c, const docker_engine *engine, const char *what,
                            int64_t deadline_ms, sbx_error *err);

/* Close the connection (a closed or zeroed one is fine). */
void docker_conn_close(docker_conn *c);

/* A request as docker_conn_send writes it (every pointer borrowed). */
typedef struct docker_conn_request {
    const char *method;
    const char *path;             /* goes under /VERSION */
    const char *extra_headers;    /* each line ending in "\r\n", or "" */
    const void *body;
    size_t body_len;              /* Content-Length; a body of 0 bytes sends none */
} docker_conn_request;

/* Send `req` under the engine's API version.  SBX_ERR_TRANSPORT when it
 * cannot be sent. */
sbx_status docker_conn_send(docker_conn *c, const docker_engine *engine,
                            const docker_conn_request *req, sbx_error *err);

/* Send `len` raw bytes (on a hijacked connection) before the deadline.
 * SBX_ERR_TRANSPORT when they cannot be sent. */
sbx_status docker_conn_send_bytes(docker_conn *c, const void *bytes, size_t len, sbx_error *err);

/* Read the answer's status line and headers (c->status, the body's
 * framing).  SBX_ERR_TRANSPORT on a timeout or a close, SBX_ERR_PROTOCOL
 * for a head that is not HTTP/1.x or is too long. */
sbx_status docker_conn_read_head(docker_conn *c, sbx_error *err);

/* The value of header `name` (case-insensitive) of the head read, and its
 * length in *len (up to its line's end); NULL when it has none.  Points
 * into c->head. */
const char *docker_conn_header(const docker_conn *c, const char *name, size_t *len);

/* Read up to `size` bytes of the body (chunked or not): *got 0 at its
 * end.  SBX_ERR_TRANSPORT / SBX_ERR_PROTOCOL as docker_conn_read_head. */
sbx_status docker_conn_read_body(docker_conn *c, void *buf, size_t size, size_t *got,
                                 sbx_error *err);

/* The body of an error answer, at most `size` - 1 bytes, NUL-terminated
 * (what fits; never fails: a body that cannot be read is ""), as a
 * response for docker_engine_error.  resp->body points into `buf`. */
void docker_conn_error_body(docker_conn *c, char *buf, size_t size, common_http_response *resp);

/* The command's side of a hijacked connection: bytes still to send as
 * its stdin (then a half-close, its end of file). */
typedef struct docker_conn_outgoing {
    const char *data;
    size_t length;
    size_t sent;
    int half_closed;       /* shutdown(SHUT_WR) done */
} docker_conn_outgoing;

/* A read of raw bytes: where they go, until when they are awaited, and
 * what came. */
typedef struct docker_conn_read {
    void *buf;
    size_t size;
    int64_t until_ms;     /* <= the connection's deadline */
    size_t got;           /* bytes read into buf */
    int timed_out;        /* until_ms passed, or c->cancel_fd hung up */
} docker_conn_read;

/* Pump a hijacked connection (after a 101 or 200 head): send what `out`
 * holds as the socket takes it (half-closing once all is sent; `out` NULL:
 * nothing is sent and nothing closed), and read raw bytes into `in`, what
 * the head's read left over first.  Returns when bytes arrived (in->got >
 * 0), the peer closed (in->got 0), or in->until_ms passed or c->cancel_fd
 * hung up (POLLRDHUP, POLLHUP, POLLERR) (in->got 0 and in->timed_out 1).
 * SBX_ERR_TRANSPORT for a socket error or the deadline. */
sbx_status docker_conn_pump(docker_conn *c, docker_conn_outgoing *out, docker_conn_read *in,
                            sbx_error *err);

/* The transport error of the connection: "docker: WHAT: engine socket
 * PATH: WHY". */
sbx_status docker_conn_fail(const docker_conn *c, const char *why, sbx_error *err);

#endif
