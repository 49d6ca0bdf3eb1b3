/* libmicrohttpd glue: everything that knows about MHD lives here. */
#include "tools/provisioner-emu/emu_server.h"

#include "tools/provisioner-emu/emu_alloc.h"
#include "tools/provisioner-emu/emu_api.h"
#include "tools/provisioner-emu/emu_control.h"
#include "tools/provisioner-emu/emu_routes.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bodies beyond this are answered 413 (nothing the protocol sends is close). */
#define MAX_BODY_BYTES (1024 * 1024)

/* What a truncated answer announces beyond what it sends. */
#define TRUNCATE_MISSING_BYTES 4096

/* A body that no JSON parser accepts. */
#define GARBAGE_BODY "<html>502 this is not JSON {{{"

/* The part of a JSON answer a truncated response sends before closing. */
#define TRUNCATED_BODY "{\"sandbox_id\":\"trunc"

struct sbx_emu_server {
    struct MHD_Daemon *daemon;
    sbx_emu_context *ctx;
    int tls;            /* serving HTTPS (redirects name the scheme) */
};

/* One request in flight: its body, gathered across upload callbacks. */
typedef struct request_state {
    char *body;
    size_t body_len;
    int too_large;
} request_state;

typedef struct truncated_body {
    char *data;
    size_t len;
} truncated_body;

static void append_body(request_state *rs, const char *data, size_t len)
{
    if (rs->too_large || rs->body_len + len > MAX_BODY_BYTES) {
        rs->too_large = 1;
        return;
    }
    char *grown = sbx_emu_xmalloc(rs->body_len + len + 1);
    if (rs->body_len > 0)
        memcpy(grown, rs->body, rs->body_len);
    memcpy(grown + rs->body_len, data, len);
    grown[rs->body_len + len] = '\0';
    free(rs->body);
    rs->body = grown;
    rs->body_len += len;
}

static const char *query_argument(void *conn, const char *name)
{
    return MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, name);
}

static const char *header(struct MHD_Connection *conn, const char *name)
{
    return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

/* Sends what it has, then reports an error: MHD closes the connection
 * with the announced Content-Length unmet. */
static ssize_t truncated_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    truncated_body *t = cls;
    if (pos >= t->len)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    size_t n = t->len - (size_t)pos;
    if (n > max)
        n = max;
    memcpy(buf, t->data + pos, n);
    return (ssize_t)n;
}

static void truncated_free(void *cls)
{
    truncated_body *t = cls;
    free(t->data);
    free(t);
}

static enum MHD_Result send_reply(struct MHD_Connection *conn, sbx_emu_reply *reply)
{
    struct MHD_Response *response = NULL;
    if (reply->kind == SBX_EMU_REPLY_DROP)
        return MHD_NO;   /* MHD closes the socket without a byte of answer */
    if (reply->kind == SBX_EMU_REPLY_TRUNCATE) {
        truncated_body *t = sbx_emu_xmalloc(sizeof *t);
        t->data = sbx_emu_xmemdup(reply->body, reply->body_len);
        t->len = reply->body_len;
        response = MHD_create_response_from_callback(
            reply->body_len + TRUNCATE_MISSING_BYTES, 1024, truncated_reader, t,
            truncated_free);
    } else {
        response = MHD_create_response_from_buffer(reply->body_len, reply->body,
                                                   MHD_RESPMEM_MUST_COPY);
    }
    if (response == NULL)
        return MHD_NO;
    if (reply->content_type != NULL)
        MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, reply->content_type);
    if (reply->location != NULL)
        MHD_add_response_header(response, MHD_HTTP_HEADER_LOCATION, reply->location);
    if (reply->allow != NULL)
        MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, reply->allow);
    enum MHD_Result queued = MHD_queue_response(conn, reply->status, response);
    MHD_destroy_response(response);
    return queued;
}

/* Apply the route's next fault.  Returns 1 when the fault produced the
 * answer; 0 when the request is to be answered normally (no fault, or
 * after a delay or hold). */
static int apply_fault(sbx_emu_context *ctx, sbx_emu_route route, sbx_emu_reply *reply)
{
    sbx_emu_fault fault;
    sbx_emu_faults_take(ctx->faults, route, &fault);
    sbx_emu_faults_delay(ctx->faults, fault.delay_ms);
    int answered = 1;
    switch (fault.action) {
    case SBX_EMU_FAULT_RESPOND:
        sbx_emu_reply_text(reply, fault.status, fault.body,
                           fault.content_type != NULL ? fault.content_type
                                                      : "application/json");
        reply->location = fault.location;
        fault.location = NULL;
        break;
    case SBX_EMU_FAULT_GARBAGE:
        sbx_emu_reply_text(reply, 200, GARBAGE_BODY, "application/json");
        break;
    case SBX_EMU_FAULT_TRUNCATE:
        sbx_emu_reply_text(reply, 200, TRUNCATED_BODY, "application/json");
        reply->kind = SBX_EMU_REPLY_TRUNCATE;
        break;
    case SBX_EMU_FAULT_DROP:
        reply->kind = SBX_EMU_REPLY_DROP;
        break;
    case SBX_EMU_FAULT_HOLD:
        sbx_emu_faults_hold(ctx->faults, route);
        answered = 0;
        break;
    case SBX_EMU_FAULT_DELAY:
    case SBX_EMU_FAULT_NONE:
        answered = 0;
        break;
    }
    sbx_emu_fault_clear(&fault);
    return answered;
}

/* As the real provisioner's middleware: the key guards the /api/ prefix. */
static int needs_key(const char *path)
{
    return strncmp(path, "/api/", 5) == 0;
}

static int key_refused(const sbx_emu_context *ctx, const char *path, const char *key)
{
    if (!needs_key(path))
        return 0;
    if (ctx->api_key == NULL)
        return ctx->fail_closed;
    return key == NULL || strcmp(key, ctx->api_key) != 0;
}

/* Starlette's redirect_slashes: an unknown path with trailing slashes whose
 * stripped form is a route's path is redirected there (307, no body).
 * Returns 1 when `reply` holds that redirect. */
static int redirect_slashes(sbx_emu_context *ctx, struct MHD_Connection *conn, int tls,
                            const char *method, const char *path, sbx_emu_reply *reply)
{
    size_t len = strlen(path);
    if (len < 2 || path[len - 1] != '/')
        return 0;
    while (len > 0 && path[len - 1] == '/')
        len--;
    char *stripped = sbx_emu_xmemdup(path, len);
    sbx_emu_match m;
    sbx_emu_route_match(method, stripped, &m);
    sbx_emu_route named = m.route != SBX_EMU_ROUTE_NONE ? m.route : m.path_route;
    int redirect = named != SBX_EMU_ROUTE_NONE && sbx_emu_api_route_enabled(ctx, named);
    if (redirect) {
        const char *host = header(conn, MHD_HTTP_HEADER_HOST);
        size_t size = len + (host != NULL ? strlen(host) : 0) + 16;
        char *location = sbx_emu_xmalloc(size);
        snprintf(location, size, "%s://%s%s", tls ? "https" : "http",
                 host != NULL ? host : "127.0.0.1", stripped);
        sbx_emu_reply_text(reply, 307, NULL, NULL);
        reply->location = location;
    }
    free(stripped);
    return redirect;
}

/* In the real provisioner's order: key check (before routing), routing
 * (404, 405), then the route.  A route's fault acts once the request has
 * passed the key check and reached it. */
static void answer_provisioner(sbx_emu_server *server, struct MHD_Connection *conn,
                               const char *method, const char *path,
                               const request_state *rs, sbx_emu_reply *reply)
{
    sbx_emu_context *ctx = server->ctx;
    const char *key = header(conn, "X-API-Key");
    const char *content_type = header(conn, MHD_HTTP_HEADER_CONTENT_TYPE);
    sbx_emu_request_log_add(ctx->log, method, path, key, content_type, rs->body, rs->body_len);
    if (key_refused(ctx, path, key)) {
        /* As the reference: plain text, and no Content-Type at all. */
        sbx_emu_reply_text(reply, 401, "Unauthorized", NULL);
        return;
    }
    sbx_emu_match m;
    sbx_emu_route_match(method, path, &m);
    sbx_emu_route named = m.route != SBX_EMU_ROUTE_NONE ? m.route : m.path_route;
    if (named == SBX_EMU_ROUTE_NONE || !sbx_emu_api_route_enabled(ctx, named)) {
        if (!redirect_slashes(ctx, conn, server->tls, method, path, reply))
            sbx_emu_api_answer(ctx, SBX_EMU_ROUTE_NONE, "", NULL, 0, NULL, reply);
        return;
    }
    if (m.route == SBX_EMU_ROUTE_NONE) {
        sbx_emu_reply_detail(reply, 405, "Method Not Allowed");
        reply->allow = sbx_emu_xstrdup(sbx_emu_route_method(m.path_route));
        return;
    }
    if (apply_fault(ctx, m.route, reply))
        return;
    sbx_emu_api_answer(ctx, m.route, m.id, rs->body, rs->body_len, content_type, reply);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    sbx_emu_server *server = cls;
    request_state *rs = *con_cls;
    if (rs == NULL) {
        rs = sbx_emu_xmalloc(sizeof *rs);
        memset(rs, 0, sizeof *rs);
        *con_cls = rs;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        append_body(rs, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }

    sbx_emu_reply reply = {.status = 200};
    if (rs->too_large)
        sbx_emu_reply_detail(&reply, 413, "request body too large");
    else if (strncmp(url, SBX_EMU_CONTROL_PREFIX, strlen(SBX_EMU_CONTROL_PREFIX)) == 0)
        sbx_emu_control_answer(server->ctx, method, url, query_argument, conn, rs->body,
                               rs->body_len, &reply);
    else
        answer_provisioner(server, conn, method, url, rs, &reply);

    if (server->ctx->verbose)
        fprintf(stderr, "sbx-provisioner-emu: %s %s -> %u%s\n", method, url, reply.status,
                reply.kind == SBX_EMU_REPLY_DROP       ? " (dropped)"
                : reply.kind == SBX_EMU_REPLY_TRUNCATE ? " (truncated)"
                                                       : "");
    enum MHD_Result result = send_reply(conn, &reply);
    sbx_emu_reply_clear(&reply);
    return result;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode code)
{
    (void)cls;
    (void)conn;
    (void)code;
    request_state *rs = *con_cls;
    if (rs != NULL) {
        free(rs->body);
        free(rs);
        *con_cls = NULL;
    }
}

sbx_emu_server *sbx_emu_server_start(sbx_emu_context *ctx, unsigned port,
                                     const sbx_emu_tls *tls, unsigned *bound_port,
                                     char *why, size_t why_len)
{
    /* Debian's libmicrohttpd has GnuTLS, but a build without it would
     * start a plain-HTTP daemon or fail obscurely: say so instead. */
    if (tls != NULL && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
        snprintf(why, why_len,
                 "this libmicrohttpd was built without TLS support: cannot serve HTTPS "
                 "(--tls-cert/--tls-key)");
        return NULL;
    }
    sbx_emu_server *server = sbx_emu_xmalloc(sizeof *server);
    server->ctx = ctx;
    server->tls = tls != NULL;
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                     MHD_USE_POLL | (ctx->verbose ? MHD_USE_ERROR_LOG : 0) |
                     (tls != NULL ? MHD_USE_TLS : 0);
    /* MHD only reads the PEM text (its type says void *, not const). */
    struct MHD_OptionItem tls_options[] = {
        {MHD_OPTION_HTTPS_MEM_CERT, 0, tls != NULL ? (void *)tls->cert_pem : NULL},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, tls != NULL ? (void *)tls->key_pem : NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    server->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, server,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, server,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, 256u,
        /* Without TLS only the array's end marker is passed. */
        MHD_OPTION_ARRAY, tls != NULL ? tls_options : tls_options + 2,
        MHD_OPTION_END);
    if (server->daemon == NULL) {
        snprintf(why, why_len, "cannot listen on 127.0.0.1:%u%s", port,
                 tls != NULL ? " with HTTPS (port in use, or the certificate and key "
                               "are not a matching PEM pair)"
                             : "");
        free(server);
        return NULL;
    }
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    *bound_port = info != NULL ? info->port : port;
    return server;
}

void sbx_emu_server_stop(sbx_emu_server *server)
{
    if (server == NULL)
        return;
    sbx_emu_faults_shutdown(server->ctx->faults);
    MHD_stop_daemon(server->daemon);
    free(server);
}
