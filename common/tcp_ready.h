/*
 * Waiting for a sandbox's server: create returns only once the sandbox's
 * published TCP port accepts a connection (local backend), or answers an
 * HTTP request (docker backend), so that its URL answers (the
 * `ready_timeout_ms` option of the local and docker backends).
 */
#ifndef SBX_COMMON_TCP_READY_H
#define SBX_COMMON_TCP_READY_H

#include <sbx/backend.h>

/* What a wait waits for: a server at host:port, for timeout_ms. */
typedef struct common_ready_target {
    const char *host;   /* a numeric address or a name; IPv6 without brackets */
    int port;
    long timeout_ms;
    const char *what;   /* how messages name it, e.g. "sandbox 'x'" */
} common_ready_target;

/* Try to connect to the target's host and port until a connection is
 * accepted or its `timeout_ms` pass;
 * each attempt is a non-blocking connect bounded by what is left.  SBX_OK
 * once one connection was accepted (and closed again) or when timeout_ms
 * is 0.  SBX_ERR_TRANSPORT at the deadline or when `host` does not
 * resolve, with a message starting with `what` naming the address, the timeout and the last attempt's error.  Also stop
 * waiting as soon as `watch_fd` (>= 0; -1: none) becomes readable or hangs
 * up: then SBX_OK with *woken = 1 and no connection accepted, for the
 * caller to say why (a sandbox's process that exited).  Thread-safe. */
sbx_status common_tcp_wait_ready_watching(const common_ready_target *target, int watch_fd,
                                          int *woken, sbx_error *err);

/* As common_tcp_wait_ready_watching with no watch_fd, for a server that
 * speaks HTTP: an attempt counts only once the server replies (anything)
 * to a request sent on the connection (HEAD / HTTP/1.0).  A connection
 * accepted and then closed with no reply -- a proxy with nothing behind it
 * yet, such as Docker's userland proxy before the container's server
 * listens -- is "not yet", and tried again.  At the deadline the message
 * says nothing answered HTTP. */
sbx_status common_http_wait_ready(const char *host, int port, long timeout_ms, const char *what,
                                  sbx_error *err);

#endif
