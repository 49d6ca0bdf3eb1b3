/* The HTTP server of the provisioner protocol, shared by the emulator and
 * sbx-provisiond (libmicrohttpd; everything that knows about MHD lives
 * here).  It checks the API key of /api/ paths from the headers, before a
 * byte of the body is read, in constant time (401 "Unauthorized", plain
 * text, as the reference), refuses a body over the limit (413, from
 * Content-Length when it is given), bounds how long and how many
 * connections clients may hold (prov_conns.h), routes a request as the
 * real provisioner's framework does (404 {"detail":"Not Found"}, 405 with
 * Allow, 307 for trailing slashes) and hands what reaches a route to the
 * program's handler. */
#ifndef PROV_SERVER_H
#define PROV_SERVER_H

#include <stddef.h>

#include "tools/provisioner-common/prov_reply.h"
#include "tools/provisioner-common/prov_routes.h"

typedef struct prov_server prov_server;

/* One request as received.  Everything is borrowed for the handler call. */
typedef struct prov_request {
    const char *method;
    const char *path;           /* unescaped (but %00 as written), without the query
                                 * string */
    const char *api_key;        /* the X-API-Key header, NULL when absent */
    const char *content_type;   /* NULL when absent */
    const char *body;           /* NUL-terminated copy of the request's own: a
                                 * route may rewrite its body_len bytes in place
                                 * (a file write decodes its content there);
                                 * "" when none */
    size_t body_len;
    void *connection;           /* for prov_request_query */
    int client_fd;              /* the client's socket, for a backend call to
                                 * watch for the client going away (poll
                                 * only: never read, written or closed); -1
                                 * when unknown */
    size_t worker_bytes;        /* > 0: tried on the server's worker that read
                                 * it (prov_server_options.worker_bytes): a
                                 * route whose work may go past this many
                                 * bytes of local file calls answers
                                 * PROV_REPLY_POOL; 0: do it whole */
} prov_request;

/* A query-string argument of `req`, or NULL when it has none. */
const char *prov_request_query(const prov_request *req, const char *name);

/* A header of `req` (`name` case-insensitive), or NULL when it has none. */
const char *prov_request_header(const prov_request *req, const char *name);

/* What the program does with requests.  Called from the server's threads,
 * concurrently; `ctx` is passed back. */
typedef struct prov_handlers {
    void *ctx;
    /* A request outside the protocol (the emulator's /_emu/ control API),
     * before the key check: return 1 when `reply` holds its answer.  NULL:
     * there are none. */
    int (*outside)(void *ctx, const prov_request *req, prov_reply *reply);
    /* Every protocol request as it arrives, before the key check (the
     * emulator's request log).  NULL: not needed. */
    void (*received)(void *ctx, const prov_request *req);
    /* Whether `route` exists now (NULL: every route does). */
    int (*route_enabled)(void *ctx, prov_route route);
    /* Answer a request that passed the key check and reached `route`;
     * `id` is the path's sandbox id ("" when the route has none). */
    void (*answer)(void *ctx, const prov_request *req, prov_route route,
                   const char *id, prov_reply *reply);
} prov_handlers;

/* How a server listens and checks requests.  Strings are borrowed and must
 * outlive the server. */
typedef struct prov_server_options {
    const char *name;           /* the program, in --verbose lines */
    const char *address;        /* numeric IPv4 or IPv6 address */
    unsigned port;              /* 0: an ephemeral port */
    const char *cert_pem;       /* with key_pem: serve HTTPS (PEM text) */
    const char *key_pem;
    const char *api_key;        /* NULL: no key configured */
    int fail_closed;            /* no key configured: every /api/ request is 401 */
    size_t max_body_bytes;      /* a larger body answers 413 */
    size_t path_id_max;         /* the longest path {id} routed (longer: 404); 0:
                                 * PROV_ID_MAX */
    unsigned threads;           /* 0: a thread per connection; N: a pool of N */
    unsigned idle_timeout_s;    /* a connection silent this long is closed (0: never) */
    unsigned request_timeout_s; /* a request must arrive whole within this (0: no bound) */
    unsigned max_connections;   /* open at once (0: libmicrohttpd's default) */
    unsigned max_per_address;   /* open at once from one client address (0: no cap) */
    int verbose;                /* one line per request on stderr, tokens
                                 * masked (prov_shown.h) */
    const char *offload_prefix; /* NULL: none; else requests under it are
                                 * answered on a pool of their own
                                 * (prov_offload.h; with `threads` > 0 only),
                                 * counted under the path segment after it */
    unsigned offload_threads;   /* that pool's threads */
    unsigned offload_share;     /* the most requests of one segment running
                                 * at once (0: no cap) */
    unsigned offload_queue;     /* the most more of them waiting; beyond,
                                 * 429 {"detail":...} */
    size_t worker_bytes;        /* > 0: a request under offload_prefix whose
                                 * segment's share has room is first tried on
                                 * the worker that read it, counted in that
                                 * share (prov_request.worker_bytes); one
                                 * answering PROV_REPLY_POOL goes to the pool;
                                 * 0: each goes to the pool */
} prov_server_options;

/* Start serving `handlers` (copied) as `options` say.  With a connection
 * cap, the soft limit on open descriptors is first raised to the hard one.
 * Returns the server and sets *bound_port, or NULL with the reason in `why`
 * (`why_len` bytes): a bad address, the port cannot be bound, the cap does
 * not fit the descriptor limit, libmicrohttpd was built without TLS, or it
 * refused the PEM pair. */
prov_server *prov_server_start(const prov_server_options *options,
                                       const prov_handlers *handlers,
                                       unsigned *bound_port, char *why, size_t why_len);

/* Stop accepting connections (a request arriving on an open one is
 * answered 503), wait at most `drain_ms` for the requests in flight to be
 * answered, then close every connection, join the threads and free the
 * server.  Returns how many requests were still in flight when it stopped
 * waiting.  With `abandoned` NULL, requests still in the handler are waited
 * for.  Otherwise they are answered 503 (HTTPS: their connection is shut
 * down) and *abandoned says how many there were: when it is not 0 their
 * threads still run, so the server is left as it is and the caller must
 * not free what the handlers use, but end the process.  NULL is accepted. */
unsigned prov_server_stop(prov_server *server, unsigned drain_ms, unsigned *abandoned);

/* The whole of a PEM file (a certificate chain or a private key) as a new
 * NUL-terminated string (free it; wipe a key first), or NULL with the
 * reason in `why` (`why_len` bytes): unreadable, not a regular file (a
 * FIFO is refused, never waited on), empty, or over 1 MiB. */
char *prov_read_pem(const char *path, char *why, size_t why_len);

/* Whether `given` (NULL: absent) equals `key`, in time that depends on the
 * length of `key` only (an attacker learns nothing from timing). */
int prov_key_equal(const char *given, const char *key);

#endif
