/* libmicrohttpd glue: one request in, one sbx_prov_reply out. */
#include <config.h>

#include "tools/provisioner-common/prov_server.h"

#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_answers.h"
#include "tools/provisioner-common/prov_files.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What a truncated answer announces beyond what it sends. */
#define TRUNCATE_MISSING_BYTES 4096

struct sbx_prov_server {
    struct MHD_Daemon *daemon;
    sbx_prov_server_options options;
    sbx_prov_handlers handlers;
    int tls;                    /* serving HTTPS (redirects name the scheme) */
    pthread_mutex_t lock;       /* guards in_flight */
    pthread_cond_t idle;        /* signalled when in_flight drops */
    unsigned in_flight;         /* requests begun and not yet completed */
};

/* One request in flight: its body, gathered across upload callbacks. */
typedef struct request_state {
    char *body;
    size_t body_len;
    size_t capacity;
    int too_large;
    int out_of_memory;          /* the body could not be kept: answer 503 */
} request_state;

/* The state of a request for which none could be allocated: it is read
 * to its end and answered 503, like one whose body could not be kept. */
static request_state no_memory_state = {.out_of_memory = 1};

typedef struct truncated_body {
    char *data;
    size_t len;
} truncated_body;

int sbx_prov_key_equal(const char *given, const char *key)
{
    if (given == NULL)
        return 0;
    size_t n = strlen(key), m = strlen(given);
    unsigned char diff = n != m;
    /* Every byte of the key is compared whatever differs first. */
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)key[i] ^ (unsigned char)(i < m ? given[i] : 0);
    return diff == 0;
}

/* A certificate or key file larger than this is not a PEM we expect. */
#define MAX_PEM_BYTES (1024 * 1024)

char *sbx_prov_read_pem(const char *path, char *why, size_t why_len)
{
    size_t len = 0;
    const char *problem = NULL;
    char *text = sbx_prov_read_regular(path, MAX_PEM_BYTES, 0, &len, &problem);
    if (text != NULL && len == 0) {
        free(text);
        text = NULL;
        problem = "empty";
    }
    if (text == NULL)
        snprintf(why, why_len, "%s: %s", path,
                 problem == sbx_prov_file_too_large ? "larger than 1 MiB" : problem);
    return text;
}

static void append_body(request_state *rs, size_t limit, const char *data, size_t len)
{
    if (rs->out_of_memory)
        return;
    if (rs->too_large || len > limit - rs->body_len) {
        rs->too_large = 1;
        return;
    }
    if (rs->body_len + len + 1 > rs->capacity) {
        size_t capacity = rs->capacity == 0 ? 1024 : rs->capacity;
        while (capacity < rs->body_len + len + 1)
            capacity *= 2;
        char *grown = sbx_prov_malloc(capacity);
        if (grown == NULL) {
            rs->out_of_memory = 1;
            return;
        }
        if (rs->body_len > 0)
            memcpy(grown, rs->body, rs->body_len);
        free(rs->body);
        rs->body = grown;
        rs->capacity = capacity;
    }
    memcpy(rs->body + rs->body_len, data, len);
    rs->body_len += len;
    rs->body[rs->body_len] = '\0';
}

const char *sbx_prov_request_query(const sbx_prov_request *req, const char *name)
{
    return MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, name);
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

static enum MHD_Result send_reply(struct MHD_Connection *conn, sbx_prov_reply *reply)
{
    struct MHD_Response *response = NULL;
    if (reply->kind == SBX_PROV_REPLY_DROP)
        return MHD_NO;   /* MHD closes the socket without a byte of answer */
    if (reply->kind == SBX_PROV_REPLY_TRUNCATE && !reply->out_of_memory) {
        truncated_body *t = sbx_prov_malloc(sizeof *t);
        char *data = t != NULL ? sbx_prov_memdup(reply->body, reply->body_len) : NULL;
        if (data == NULL) {
            free(t);
            sbx_prov_reply_out_of_memory(reply);
        } else {
            *t = (truncated_body){data, reply->body_len};
            response = MHD_create_response_from_callback(
                reply->body_len + TRUNCATE_MISSING_BYTES, 1024, truncated_reader, t,
                truncated_free);
        }
    }
    if (reply->out_of_memory) {
        static const char no_memory[] = SBX_PROV_OUT_OF_MEMORY_BODY;
        response = MHD_create_response_from_buffer(sizeof no_memory - 1, (void *)no_memory,
                                                   MHD_RESPMEM_PERSISTENT);
        reply->status = SBX_PROV_OUT_OF_MEMORY_STATUS;
    } else if (response == NULL) {
        response = MHD_create_response_from_buffer(reply->body_len, reply->body,
                                                   MHD_RESPMEM_MUST_COPY);
    }
    if (response == NULL)
        return MHD_NO;
    const char *content_type = reply->out_of_memory ? "application/json" : reply->content_type;
    /* An answer whose headers libmicrohttpd could not keep (out of memory)
     * is not sent half-labelled: the connection is closed instead. */
    if ((content_type != NULL &&
         MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type) ==
             MHD_NO) ||
        (reply->location != NULL &&
         MHD_add_response_header(response, MHD_HTTP_HEADER_LOCATION, reply->location) ==
             MHD_NO) ||
        (reply->allow != NULL &&
         MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, reply->allow) == MHD_NO)) {
        MHD_destroy_response(response);
        return MHD_NO;
    }
    enum MHD_Result queued = MHD_queue_response(conn, reply->status, response);
    MHD_destroy_response(response);
    return queued;
}

/* As the real provisioner's middleware: the key guards the /api/ prefix. */
static int key_refused(const sbx_prov_server_options *o, const char *path, const char *key)
{
    if (strncmp(path, "/api/", 5) != 0)
        return 0;
    if (o->api_key == NULL)
        return o->fail_closed;
    return !sbx_prov_key_equal(key, o->api_key);
}

static int route_enabled(const sbx_prov_server *server, sbx_prov_route route)
{
    if (route == SBX_PROV_ROUTE_NONE)
        return 0;
    return server->handlers.route_enabled == NULL ||
           server->handlers.route_enabled(server->handlers.ctx, route);
}

static size_t path_id_max(const sbx_prov_server *server)
{
    return server->options.path_id_max != 0 ? server->options.path_id_max : SBX_PROV_ID_MAX;
}

/* Starlette's redirect_slashes: an unknown path with trailing slashes whose
 * stripped form is a route's path is redirected there (307, no body).
 * Returns 1 when `reply` holds that redirect. */
static int redirect_slashes(const sbx_prov_server *server, struct MHD_Connection *conn,
                            const char *method, const char *path, sbx_prov_reply *reply)
{
    size_t len = strlen(path);
    if (len < 2 || path[len - 1] != '/')
        return 0;
    while (len > 0 && path[len - 1] == '/')
        len--;
    char *stripped = sbx_prov_memdup(path, len);
    if (stripped == NULL) {
        sbx_prov_reply_out_of_memory(reply);
        return 1;
    }
    sbx_prov_match m;
    sbx_prov_route_match(method, stripped, path_id_max(server), &m);
    int redirect = route_enabled(server, m.route != SBX_PROV_ROUTE_NONE ? m.route : m.path_route);
    if (redirect) {
        const char *host = header(conn, MHD_HTTP_HEADER_HOST);
        size_t size = len + (host != NULL ? strlen(host) : 0) + 16;
        char *location = sbx_prov_malloc(size);
        if (location != NULL)
            snprintf(location, size, "%s://%s%s", server->tls ? "https" : "http",
                     host != NULL ? host : "127.0.0.1", stripped);
        sbx_prov_reply_text(reply, 307, NULL, NULL);
        reply->location = location;
        if (location == NULL)
            sbx_prov_reply_out_of_memory(reply);
    }
    free(stripped);
    return redirect;
}

/* In the real provisioner's order: key check (before routing), routing
 * (404, 405, 307), then the route's handler. */
static void answer_protocol(sbx_prov_server *server, struct MHD_Connection *conn,
                            const sbx_prov_request *req, sbx_prov_reply *reply)
{
    const sbx_prov_handlers *h = &server->handlers;
    if (h->received != NULL)
        h->received(h->ctx, req);
    if (key_refused(&server->options, req->path, req->api_key)) {
        /* As the reference: plain text, and no Content-Type at all. */
        sbx_prov_reply_text(reply, 401, "Unauthorized", NULL);
        return;
    }
    sbx_prov_match m;
    sbx_prov_route_match(req->method, req->path, path_id_max(server), &m);
    if (!route_enabled(server, m.route != SBX_PROV_ROUTE_NONE ? m.route : m.path_route)) {
        if (!redirect_slashes(server, conn, req->method, req->path, reply))
            sbx_prov_answer_no_route(reply);
        return;
    }
    if (m.route == SBX_PROV_ROUTE_NONE) {
        sbx_prov_reply_detail(reply, 405, "Method Not Allowed");
        reply->allow = sbx_prov_strdup(sbx_prov_route_method(m.path_route));
        if (reply->allow == NULL)
            sbx_prov_reply_out_of_memory(reply);
        return;
    }
    h->answer(h->ctx, req, m.route, m.id, reply);
}

static void begin_request(sbx_prov_server *server)
{
    pthread_mutex_lock(&server->lock);
    server->in_flight++;
    pthread_mutex_unlock(&server->lock);
}

/* MHD's own unescaping cuts a path at %00 (sbx_prov_url_unescape). */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *text)
{
    (void)cls;
    (void)conn;
    return sbx_prov_url_unescape(text);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    sbx_prov_server *server = cls;
    request_state *rs = *con_cls;
    if (rs == NULL) {
        rs = sbx_prov_malloc(sizeof *rs);
        if (rs != NULL)
            memset(rs, 0, sizeof *rs);
        *con_cls = rs != NULL ? rs : &no_memory_state;
        begin_request(server);
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        append_body(rs, server->options.max_body_bytes, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }

    sbx_prov_request req = {
        .method = method,
        .path = url,
        .api_key = header(conn, "X-API-Key"),
        .content_type = header(conn, MHD_HTTP_HEADER_CONTENT_TYPE),
        .body = rs->body != NULL ? rs->body : "",
        .body_len = rs->body_len,
        .connection = conn,
    };
    sbx_prov_reply reply = {.status = 200};
    const sbx_prov_handlers *h = &server->handlers;
    if (rs->out_of_memory)
        sbx_prov_reply_out_of_memory(&reply);
    else if (rs->too_large)
        sbx_prov_reply_detail(&reply, 413, "request body too large");
    else if (h->outside == NULL || !h->outside(h->ctx, &req, &reply))
        answer_protocol(server, conn, &req, &reply);

    if (server->options.verbose)
        fprintf(stderr, "%s: %s %s -> %u%s\n", server->options.name, method, url, reply.status,
                reply.kind == SBX_PROV_REPLY_DROP       ? " (dropped)"
                : reply.kind == SBX_PROV_REPLY_TRUNCATE ? " (truncated)"
                                                        : "");
    enum MHD_Result result = send_reply(conn, &reply);
    sbx_prov_reply_clear(&reply);
    return result;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode code)
{
    (void)conn;
    (void)code;
    sbx_prov_server *server = cls;
    request_state *rs = *con_cls;
    if (rs == NULL)
        return;
    if (rs != &no_memory_state) {
        free(rs->body);
        free(rs);
    }
    *con_cls = NULL;
    pthread_mutex_lock(&server->lock);
    server->in_flight--;
    pthread_cond_broadcast(&server->idle);
    pthread_mutex_unlock(&server->lock);
}

/* The listening address as a socket address.  Returns its length, or 0
 * when `address` is not a numeric IPv4 or IPv6 address. */
static socklen_t socket_address(const char *address, unsigned port,
                                struct sockaddr_storage *out)
{
    memset(out, 0, sizeof *out);
    struct sockaddr_in *v4 = (struct sockaddr_in *)out;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)out;
    if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        return sizeof *v4;
    }
    if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        return sizeof *v6;
    }
    return 0;
}

sbx_prov_server *sbx_prov_server_start(const sbx_prov_server_options *options,
                                       const sbx_prov_handlers *handlers,
                                       unsigned *bound_port, char *why, size_t why_len)
{
    int tls = options->cert_pem != NULL;
    /* Debian's libmicrohttpd has GnuTLS, but a build without it would
     * start a plain-HTTP daemon or fail obscurely: say so instead. */
    if (tls && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
        snprintf(why, why_len,
                 "this libmicrohttpd was built without TLS support: cannot serve HTTPS "
                 "(--tls-cert/--tls-key)");
        return NULL;
    }
    struct sockaddr_storage addr;
    socklen_t addr_len = socket_address(options->address, options->port, &addr);
    if (addr_len == 0) {
        snprintf(why, why_len, "'%s' is not a numeric IPv4 or IPv6 address", options->address);
        return NULL;
    }
    sbx_prov_server *server = sbx_prov_malloc(sizeof *server);
    if (server == NULL) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    memset(server, 0, sizeof *server);
    server->options = *options;
    server->handlers = *handlers;
    server->tls = tls;
    pthread_mutex_init(&server->lock, NULL);
    pthread_cond_init(&server->idle, NULL);

    /* A pool's threads wait with epoll where there is one: sbx-provisiond's
     * GET took about a tenth less CPU per request than with poll.  A thread
     * per connection polls its one socket (MHD has no epoll for it). */
    unsigned wait = options->threads > 0 && MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES
                        ? MHD_USE_EPOLL
                        : MHD_USE_POLL;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | wait | MHD_USE_ITC |
                     (options->threads == 0 ? MHD_USE_THREAD_PER_CONNECTION : 0) |
                     (addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0) |
                     (options->verbose ? MHD_USE_ERROR_LOG : 0) | (tls ? MHD_USE_TLS : 0);
    /* MHD only reads the PEM text (its type says void *, not const);
     * without TLS only the array's end marker is passed, and without a
     * pool only its end marker too. */
    struct MHD_OptionItem tls_options[] = {
        {MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)options->cert_pem},
        {MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)options->key_pem},
        {MHD_OPTION_END, 0, NULL},
    };
    struct MHD_OptionItem pool_options[] = {
        {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)options->threads, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    server->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, server,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, server,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, 256u,
        MHD_OPTION_ARRAY, tls ? tls_options : tls_options + 2,
        MHD_OPTION_ARRAY, options->threads > 0 ? pool_options : pool_options + 1,
        MHD_OPTION_END);
    if (server->daemon == NULL) {
        int ipv6 = addr.ss_family == AF_INET6;
        snprintf(why, why_len, "cannot listen on %s%s%s:%u%s", ipv6 ? "[" : "",
                 options->address, ipv6 ? "]" : "", options->port,
                 tls ? " with HTTPS (address or port in use, or the certificate and key "
                       "are not a matching PEM pair)"
                     : " (address or port in use, or not an address of this host)");
        pthread_cond_destroy(&server->idle);
        pthread_mutex_destroy(&server->lock);
        free(server);
        return NULL;
    }
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    *bound_port = info != NULL ? info->port : options->port;
    return server;
}

unsigned sbx_prov_server_stop(sbx_prov_server *server, unsigned drain_ms)
{
    if (server == NULL)
        return 0;
    MHD_socket listener = MHD_quiesce_daemon(server->daemon);
    if (listener != MHD_INVALID_SOCKET)
        close(listener);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += drain_ms / 1000;
    deadline.tv_nsec += (long)(drain_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&server->lock);
    while (server->in_flight > 0 &&
           pthread_cond_timedwait(&server->idle, &server->lock, &deadline) != ETIMEDOUT) {
    }
    unsigned left = server->in_flight;
    pthread_mutex_unlock(&server->lock);
    MHD_stop_daemon(server->daemon);
    pthread_cond_destroy(&server->idle);
    pthread_mutex_destroy(&server->lock);
    free(server);
    return left;
}
