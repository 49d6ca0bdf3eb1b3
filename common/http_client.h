/*
 * A small HTTP/1.1 client over libcurl, shared by the HTTP backends (remote
 * provisioner, Docker Engine API).  Internal: modules link it statically and
 * export none of it.
 *
 * Safety properties every caller gets:
 *   - redirects are never followed (a redirect could carry the API key to
 *     another host); a 3xx is returned as it is;
 *   - only http:// and https:// are spoken; TLS peers and host names are
 *     always verified (against ca_file, or the system CAs);
 *   - proxy environment variables are ignored for loopback, private,
 *     link-local and cluster-local hosts (*.svc, *.cluster.local,
 *     *.localhost, *.docker.internal, localhost) and for unix sockets;
 *   - a response body larger than max_response_bytes aborts the transfer
 *     (SBX_ERR_PROTOCOL), so memory use is bounded;
 *   - header values never appear in errors or log lines (they may hold keys).
 *
 * Thread safety: one client may be used by many threads at once.  It keeps a
 * pool of libcurl easy handles (keep-alive connections are reused across
 * calls); a lock is held only to take or return a handle, never during a
 * transfer.
 */
#ifndef SBX_COMMON_HTTP_CLIENT_H
#define SBX_COMMON_HTTP_CLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sbx/backend.h>

typedef struct common_http_client common_http_client;

/* The bound on an answer's body when the caller sets none: the default of
 * every backend (inspect answers are a few KiB, lists grow with entries). */
#define COMMON_HTTP_DEFAULT_MAX_RESPONSE ((size_t)16 * 1024 * 1024)

/* How to build a client; every pointer but `services` is borrowed for
 * common_http_client_new only (the client copies what it keeps). */
typedef struct common_http_client_options {
    const char *base_url;          /* "http://127.0.0.1:8002", no trailing '/'
                                    * ("http://localhost" for unix sockets) */
    const char *unix_socket_path;  /* NULL, or a unix socket to connect through (docker) */
    const char *ca_file;           /* NULL: system CAs; TLS peers always verified */
    long connect_timeout_ms;       /* 0: library default */
    size_t max_response_bytes;     /* a larger body is SBX_ERR_PROTOCOL, never an
                                    * unbounded allocation (0: the default) */
    const char *const *headers;    /* extra request headers "Name: value" (e.g.
                                    * X-API-Key); copied */
    size_t header_count;           /* header values with CR or LF are refused: SBX_ERR_CONFIG */
    const sbx_host_services *services; /* the host's log callback (NULL: none); must
                                        * outlive the client (backend.h: it does) */
    const char *log_name;          /* the name log lines go under (NULL: "http"); copied */
    int base_path_is_capability;   /* the base URL's path is a secret (a sandbox URL's
                                    * /s/TOKEN): messages and log lines show it as
                                    * "/..." and mask it in libcurl's texts too */
} common_http_client_options;

/* Create a client.  SBX_ERR_CONFIG for a missing/non-http(s) base URL, a
 * malformed header or one with CR/LF (the message names the header's name,
 * never its value), SBX_ERR_INTERNAL when libcurl or memory fails.  On
 * success *out is released with common_http_client_free. */
sbx_status common_http_client_new(const common_http_client_options *o, common_http_client **out,
                                  sbx_error *err);

/* Release a client and its pooled connections.  NULL is accepted.  No call
 * on the client may be in progress. */
void common_http_client_free(common_http_client *c);

/* The client's base URL as logs and messages may show it: without any
 * "user:password@", and with its path as "/..." when it is a capability.
 * Owned by the client. */
const char *common_http_client_shown_url(const common_http_client *c);

/* An answer: the status and the body (NUL-terminated for convenience; body
 * may contain NULs, body_len is authoritative).  Owned by the caller, released
 * with common_http_response_clear. */
typedef struct common_http_response {
    long status;
    char *body;
    size_t body_len;
} common_http_response;

/* Where the body of one expected answer goes instead of a buffer: a
 * streaming decoder reads it as it arrives, so a large answer is never held
 * whole.  write gets the body's next len bytes (len > 0); it returns 0 to go
 * on, anything else when it ran out of memory (the transfer stops). */
typedef struct common_http_body_sink {
    long status;   /* the (2xx) status whose body goes to write; others are buffered */
    int (*write)(void *ctx, const char *data, size_t len);
    void *ctx;
    /* NULL, or told the body's length (its Content-Length, at most
     * max_response_bytes) before its first write when the answer names
     * one: to size a buffer at once rather than grow it chunk by chunk */
    void (*expect)(void *ctx, uint64_t length);
} common_http_body_sink;

/* One HTTP call, as it travels from a backend through its layers to the
 * client: set what applies, the rest zero (a compound literal reads well). */
typedef struct common_http_call {
    const char *method;    /* "GET", "POST", "DELETE" or "PUT" */
    const char *path;      /* begins with '/', appended to the base URL as given:
                            * callers validate or escape what they splice in */
    const char *json_body; /* NULL, or sent with Content-Type: application/json */
    long timeout_ms;       /* bounds the whole call; 0: only the connect timeout */
    const common_http_body_sink *sink; /* NULL: the whole answer is buffered;
                            * else an answer with sink->status hands its body to
                            * the sink (resp->body is then ""), any other is
                            * buffered; max_response_bytes counts streamed bytes */
} common_http_call;

/* Send `call` and read its answer into *resp (any status, 4xx and 5xx
 * included, is SBX_OK: interpreting it is the caller's job).  Transport
 * failures -> SBX_ERR_TRANSPORT, oversize -> SBX_ERR_PROTOCOL,
 * SBX_ERR_INTERNAL for memory or a sink that stopped the transfer.  On error
 * *resp is left cleared, but for resp->status when our memory ran out
 * reading an answer: then it is that answer's status (the peer did act).
 * Thread-safe: many threads may call it at once on one client. */
sbx_status common_http_perform(common_http_client *c, const common_http_call *call,
                               common_http_response *resp, sbx_error *err);

/* Free the body of a response and zero it.  NULL is accepted. */
void common_http_response_clear(common_http_response *resp);

#endif /* SBX_COMMON_HTTP_CLIENT_H */
