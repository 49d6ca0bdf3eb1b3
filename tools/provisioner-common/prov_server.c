/* libmicrohttpd glue: one request in, one prov_reply out. */
#include <config.h>

#include "tools/provisioner-common/prov_server.h"

#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_answers.h"
#include "tools/provisioner-common/prov_conns.h"
#include "tools/provisioner-common/prov_files.h"
#include "tools/provisioner-common/prov_offload.h"
#include "tools/provisioner-common/prov_shown.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* What a truncated answer announces beyond what it sends. */
#define TRUNCATE_MISSING_BYTES 4096

/* Connections libmicrohttpd may hold beyond the cap: those displaced by
 * newcomers stay open until their thread notices the shutdown. */
#define DISPLACED_SLACK 32u

/* Descriptors the program needs besides the connections (the backend's
 * sockets and files, logs, pipes to children). */
#define RESERVED_DESCRIPTORS 64u

#define SHUTTING_DOWN "the server is shutting down"
#define TOO_LARGE "request body too large"

struct prov_server {
    struct MHD_Daemon *daemon;
    prov_server_options options;
    prov_handlers handlers;
    int tls;                    /* serving HTTPS (redirects name the scheme) */
    prov_conns *conns;      /* every open connection */
    prov_offload *offload;      /* NULL: every request on the server's workers */
    pthread_mutex_t lock;       /* guards in_flight and stopping */
    pthread_cond_t idle;        /* signalled when in_flight drops */
    unsigned in_flight;         /* requests begun and not yet completed */
    int stopping;               /* new requests are answered 503 */
};

/* Where an offloaded request is.  SETTLING: read whole, handed to the
 * pool at libmicrohttpd's next call (settle_before_suspending). */
typedef enum offload_stage {
    NOT_OFFLOADED = 0,
    SETTLING,
    OFFLOADED,
    OFFLOAD_ANSWERED
} offload_stage;

/* One request in flight: its body, gathered across upload callbacks; and,
 * while it is answered on the offload pool (its connection suspended),
 * what the pool's thread needs and the answer it made. */
typedef struct request_state {
    char *body;
    size_t body_len;
    size_t capacity;
    size_t announced;           /* the Content-Length (within the limit), else 0 */
    int too_large;
    int out_of_memory;          /* the body could not be kept: answer 503 */
    offload_stage stage;
    prov_offload_job job;
    prov_server *server;
    struct MHD_Connection *conn;
    const char *method, *url;   /* libmicrohttpd's, alive with the request */
    prov_reply reply;
} request_state;

/* The state of a request for which none could be allocated: it is read
 * to its end and answered 503, like one whose body could not be kept. */
static request_state no_memory_state = {.out_of_memory = 1};

typedef struct truncated_body {
    char *data;
    size_t len;
} truncated_body;

int prov_key_equal(const char *given, const char *key)
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

char *prov_read_pem(const char *path, char *why, size_t why_len)
{
    size_t len = 0;
    const char *problem = NULL;
    char *text = prov_read_regular(path, MAX_PEM_BYTES, 0, &len, &problem);
    if (text != NULL && len == 0) {
        free(text);
        text = NULL;
        problem = "empty";
    }
    if (text == NULL)
        snprintf(why, why_len, "%s: %s", path,
                 problem == prov_file_too_large ? "larger than 1 MiB" : problem);
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
        /* The announced length at once: a large body is copied into its
         * buffer once, never through a chain of doublings (each holding
         * the old buffer and the new one). */
        size_t capacity = rs->capacity == 0 ? (rs->announced > 0 ? rs->announced + 1 : 1024)
                                            : rs->capacity;
        while (capacity < rs->body_len + len + 1)
            capacity *= 2;
        char *grown = prov_malloc(capacity);
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

const char *prov_request_query(const prov_request *req, const char *name)
{
    return MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, name);
}

static const char *header(struct MHD_Connection *conn, const char *name)
{
    return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

const char *prov_request_header(const prov_request *req, const char *name)
{
    return header(req->connection, name);
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

/* Queue `reply` on `conn` (with Connection: close when `close_after`). */
static enum MHD_Result send_reply(struct MHD_Connection *conn, prov_reply *reply,
                                  int close_after)
{
    struct MHD_Response *response = NULL;
    if (reply->kind == PROV_REPLY_DROP)
        return MHD_NO;   /* MHD closes the socket without a byte of answer */
    if (reply->kind == PROV_REPLY_TRUNCATE && !reply->out_of_memory) {
        truncated_body *t = prov_malloc(sizeof *t);
        char *data = t != NULL ? prov_memdup(reply->body, reply->body_len) : NULL;
        if (data == NULL) {
            free(t);
            prov_reply_out_of_memory(reply);
        } else {
            *t = (truncated_body){data, reply->body_len};
            response = MHD_create_response_from_callback(
                reply->body_len + TRUNCATE_MISSING_BYTES, 1024, truncated_reader, t,
                truncated_free);
        }
    }
    if (reply->out_of_memory) {
        static const char no_memory[] = PROV_OUT_OF_MEMORY_BODY;
        response = MHD_create_response_from_buffer(sizeof no_memory - 1, (void *)no_memory,
                                                   MHD_RESPMEM_PERSISTENT);
        reply->status = PROV_OUT_OF_MEMORY_STATUS;
    } else if (response == NULL && reply->from_file) {
        /* libmicrohttpd closes the file with the response (never when it
         * cannot make one: then prov_reply_clear does). */
        response = MHD_create_response_from_fd64(reply->file_size, reply->file_fd);
        if (response != NULL)
            reply->from_file = 0;
    } else if (response == NULL) {
        /* Handed over, not copied: a large answer (a file read) is never
         * held twice. */
        response = reply->body_release != NULL
                       ? MHD_create_response_from_buffer_with_free_callback_cls(
                             reply->body_len, reply->body, reply->body_release, reply->body_cls)
                       : MHD_create_response_from_buffer_with_free_callback(reply->body_len,
                                                                            reply->body, free);
        if (response != NULL) {
            reply->body = NULL;
            reply->body_release = NULL;
        }
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
         MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, reply->allow) == MHD_NO) ||
        (close_after &&
         MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close") == MHD_NO)) {
        MHD_destroy_response(response);
        return MHD_NO;
    }
    enum MHD_Result queued = MHD_queue_response(conn, reply->status, response);
    MHD_destroy_response(response);
    return queued;
}

/* As the real provisioner's middleware: the key guards the /api/ prefix. */
static int key_refused(const prov_server_options *o, const char *path, const char *key)
{
    if (strncmp(path, "/api/", 5) != 0)
        return 0;
    if (o->api_key == NULL)
        return o->fail_closed;
    return !prov_key_equal(key, o->api_key);
}

static int route_enabled(const prov_server *server, prov_route route)
{
    if (route == PROV_ROUTE_NONE)
        return 0;
    return server->handlers.route_enabled == NULL ||
           server->handlers.route_enabled(server->handlers.ctx, route);
}

static size_t path_id_max(const prov_server *server)
{
    return server->options.path_id_max != 0 ? server->options.path_id_max : PROV_ID_MAX;
}

/* Starlette's redirect_slashes: an unknown path with trailing slashes whose
 * stripped form is a route's path is redirected there (307, no body).
 * Returns 1 when `reply` holds that redirect. */
static int redirect_slashes(const prov_server *server, struct MHD_Connection *conn,
                            const char *method, const char *path, prov_reply *reply)
{
    size_t len = strlen(path);
    if (len < 2 || path[len - 1] != '/')
        return 0;
    while (len > 0 && path[len - 1] == '/')
        len--;
    char *stripped = prov_memdup(path, len);
    if (stripped == NULL) {
        prov_reply_out_of_memory(reply);
        return 1;
    }
    prov_match m;
    prov_route_match(method, stripped, path_id_max(server), &m);
    int redirect = route_enabled(server, m.route != PROV_ROUTE_NONE ? m.route : m.path_route);
    if (redirect) {
        const char *host = header(conn, MHD_HTTP_HEADER_HOST);
        size_t size = len + (host != NULL ? strlen(host) : 0) + 16;
        char *location = prov_malloc(size);
        if (location != NULL)
            snprintf(location, size, "%s://%s%s", server->tls ? "https" : "http",
                     host != NULL ? host : "127.0.0.1", stripped);
        prov_reply_text(reply, 307, NULL, NULL);
        reply->location = location;
        if (location == NULL)
            prov_reply_out_of_memory(reply);
    }
    free(stripped);
    return redirect;
}

/* In the real provisioner's order, after the key check (answer_early):
 * routing (404, 405, 307), then the route's handler. */
static void answer_protocol(prov_server *server, struct MHD_Connection *conn,
                            const prov_request *req, prov_reply *reply)
{
    const prov_handlers *h = &server->handlers;
    if (h->received != NULL)
        h->received(h->ctx, req);
    prov_match m;
    prov_route_match(req->method, req->path, path_id_max(server), &m);
    if (!route_enabled(server, m.route != PROV_ROUTE_NONE ? m.route : m.path_route)) {
        if (!redirect_slashes(server, conn, req->method, req->path, reply))
            prov_answer_no_route(reply);
        return;
    }
    if (m.route == PROV_ROUTE_NONE) {
        prov_reply_detail(reply, 405, "Method Not Allowed");
        reply->allow = prov_strdup(prov_route_method(m.path_route));
        if (reply->allow == NULL)
            prov_reply_out_of_memory(reply);
        return;
    }
    h->answer(h->ctx, req, m.route, m.id, reply);
}

static void begin_request(prov_server *server)
{
    pthread_mutex_lock(&server->lock);
    server->in_flight++;
    pthread_mutex_unlock(&server->lock);
}

/* MHD's own unescaping cuts a path at %00 (prov_url_unescape). */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *text)
{
    (void)cls;
    (void)conn;
    return prov_url_unescape(text);
}

/* The request on `conn` with `body` (borrowed; NULL: none). */
static prov_request request_of(struct MHD_Connection *conn, const char *method,
                                   const char *url, const char *body, size_t body_len)
{
    const union MHD_ConnectionInfo *socket =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    return (prov_request){
        .client_fd = socket != NULL ? socket->connect_fd : -1,
        .method = method,
        .path = url,
        .api_key = header(conn, "X-API-Key"),
        .content_type = header(conn, MHD_HTTP_HEADER_CONTENT_TYPE),
        .body = body != NULL ? body : "",
        .body_len = body_len,
        .connection = conn,
    };
}

static int stopping(prov_server *server)
{
    pthread_mutex_lock(&server->lock);
    int stop = server->stopping;
    pthread_mutex_unlock(&server->lock);
    return stop;
}

/* The Content-Length the request announces into *length: 1, or 0 when it
 * has none (an unparsable one is libmicrohttpd's to refuse; one past
 * SIZE_MAX is SIZE_MAX). */
static int announced_length(struct MHD_Connection *conn, size_t *length)
{
    const char *text = header(conn, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (text == NULL || text[0] < '0' || text[0] > '9')
        return 0;
    errno = 0;
    unsigned long long n = strtoull(text, NULL, 10);
    *length = errno == ERANGE || n > SIZE_MAX ? SIZE_MAX : (size_t)n;
    return 1;
}

/* A Content-Length over `limit`. */
static int announced_too_large(struct MHD_Connection *conn, size_t limit)
{
    size_t length = 0;
    return announced_length(conn, &length) && length > limit;
}

/* What is answered from the headers alone, before a byte of the body is
 * read (so that a client without the key holds no memory for its body):
 * 503 while stopping, 401 for a refused key, 413 for an announced body
 * over the limit.  Returns 1 when `reply` holds that answer. */
static int answer_early(prov_server *server, struct MHD_Connection *conn, const char *method,
                        const char *url, prov_reply *reply)
{
    const prov_request req = request_of(conn, method, url, NULL, 0);
    if (stopping(server)) {
        prov_reply_detail(reply, 503, SHUTTING_DOWN);
    } else if (key_refused(&server->options, url, req.api_key)) {
        const prov_handlers *h = &server->handlers;
        /* The program's log sees the request, without the body it was
         * never sent. */
        if (h->received != NULL)
            h->received(h->ctx, &req);
        /* As the reference: plain text, and no Content-Type at all. */
        prov_reply_text(reply, 401, "Unauthorized", NULL);
    } else if (announced_too_large(conn, server->options.max_body_bytes)) {
        prov_reply_detail(reply, 413, TOO_LARGE);
    } else {
        return 0;
    }
    return 1;
}

/* Log (--verbose), send and release `reply`. */
static enum MHD_Result finish(prov_server *server, struct MHD_Connection *conn,
                              const char *method, const char *url, prov_reply *reply,
                              int close_after)
{
    if (server->options.verbose) {
        /* The whole request line is masked, method too: a client chooses
         * both, and may put a capability token in either. */
        char request[PROV_REQUEST_SHOWN_MAX];
        prov_shown_request(method, url, request, sizeof request);
        fprintf(stderr, "%s: %s -> %u%s\n", server->options.name, request, reply->status,
                reply->kind == PROV_REPLY_DROP       ? " (dropped)"
                : reply->kind == PROV_REPLY_TRUNCATE ? " (truncated)"
                                                         : "");
    }
    enum MHD_Result result = send_reply(conn, reply, close_after);
    prov_reply_clear(reply);
    return result;
}

/* The tracker's entry of `conn` (NULL: untracked, memory ran out). */
static prov_conn *tracked(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info != NULL ? info->socket_context : NULL;
}

/* The program's answer to the request whose body `rs` holds
 * (`worker_bytes`: prov_request's). */
static void answer_handlers(prov_server *server, struct MHD_Connection *conn, const char *method,
                            const char *url, request_state *rs, size_t worker_bytes,
                            prov_reply *reply)
{
    prov_request req = request_of(conn, method, url, rs->body, rs->body_len);
    req.worker_bytes = worker_bytes;
    const prov_handlers *h = &server->handlers;
    if (h->outside == NULL || !h->outside(h->ctx, &req, reply))
        answer_protocol(server, conn, &req, reply);
}

static request_state *state_of_job(prov_offload_job *job)
{
    return (request_state *)((char *)job - offsetof(request_state, job));
}

/* On an offload thread: the answer. */
static void run_offloaded(prov_offload_job *job)
{
    request_state *rs = state_of_job(job);
    answer_handlers(rs->server, rs->conn, rs->method, rs->url, rs, 0, &rs->reply);
    rs->stage = OFFLOAD_ANSWERED;
}

/* The job no longer counts: hand the connection back to libmicrohttpd,
 * which calls on_request again to send the answer. */
static void offloaded_done(prov_offload_job *job)
{
    MHD_resume_connection(state_of_job(job)->conn);
}

/* Whether the request for `url` is answered on the offload pool. */
static int offloadable(const prov_server *server, const char *url)
{
    const char *prefix = server->options.offload_prefix;
    return server->offload != NULL && strncmp(url, prefix, strlen(prefix)) == 0;
}

/* The path segment a request under the offload prefix is counted under
 * (`*len` bytes). */
static const char *segment_of(const prov_server *server, const char *url, size_t *len)
{
    const char *segment = url + strlen(server->options.offload_prefix);
    *len = strcspn(segment, "/");
    return segment;
}

/* Answer a request of the pool's on this worker, when its segment's share
 * has room now (it counts in it meanwhile) and its route finds it short
 * enough: returns 1 with `reply` set.  Returns 0 when the pool is to
 * answer it: a thread of the pool is then one more hand-over, but a
 * worker never does more than worker_bytes of file calls, so /health and
 * the other tenants wait on none for long. */
static int answer_on_worker(prov_server *server, struct MHD_Connection *conn,
                            const char *method, const char *url, request_state *rs,
                            prov_reply *reply)
{
    if (server->options.worker_bytes == 0 || !offloadable(server, url))
        return 0;
    size_t len = 0;
    const char *segment = segment_of(server, url, &len);
    if (prov_offload_enter(server->offload, &rs->job, segment, len) != 1)
        return 0;
    answer_handlers(server, conn, method, url, rs, server->options.worker_bytes, reply);
    prov_offload_leave(server->offload, &rs->job);
    if (reply->kind != PROV_REPLY_POOL)
        return 1;
    prov_reply_clear(reply);
    return 0;
}

/* libmicrohttpd (0.9.75) leaves a suspended connection's event state as it
 * was and, on resume, takes its socket as readable: a connection suspended
 * in the call that ends the reading of its request (state "read") is read
 * before the handler is called for the answer, and a client that has
 * half-closed (its EOF) is then closed without it.  So a request for the
 * pool is not suspended in that call: it returns and is called again at
 * once, its state now "block" (waiting for the answer, nothing to read),
 * and a connection resumed in that state goes to the handler first.
 * Returns 1 when `rs` waits for that next call. */
static int settle_before_suspending(const prov_server *server, const char *url,
                                    request_state *rs)
{
    if (rs->stage != NOT_OFFLOADED || rs->out_of_memory || rs->too_large ||
        !offloadable(server, url))
        return 0;
    rs->stage = SETTLING;
    return 1;
}

/* Hand a request under the offload prefix to the pool, its connection
 * suspended meanwhile: returns 1.  Returns -1 with `reply` set when it
 * cannot: 429 when its segment has its share running and its queue full, 503 when memory
 * ran out.  Returns 0 for a request that is not the pool's. */
static int offload(prov_server *server, struct MHD_Connection *conn, const char *method,
                   const char *url, request_state *rs, prov_reply *reply)
{
    if (!offloadable(server, url))
        return 0;
    size_t len = 0;
    const char *segment = segment_of(server, url, &len);
    int admitted = prov_offload_admit(server->offload, &rs->job, segment, len);
    if (admitted == 0) {
        char detail[160];
        snprintf(detail, sizeof detail,
                 "too many requests of this sandbox at once: it may run %u at a time and "
                 "have %u more waiting; try again when one has ended",
                 prov_offload_share(server->offload), server->options.offload_queue);
        prov_reply_detail(reply, 429, detail);
        return -1;
    }
    if (admitted < 0) {
        prov_reply_out_of_memory(reply);
        return -1;
    }
    rs->server = server;
    rs->conn = conn;
    rs->method = method;
    rs->url = url;
    rs->job.run = run_offloaded;
    rs->job.done = offloaded_done;
    rs->stage = OFFLOADED;
    MHD_suspend_connection(conn);
    prov_offload_queue(server->offload, &rs->job);
    return 1;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    prov_server *server = cls;
    request_state *rs = *con_cls;
    if (rs == NULL) {
        prov_reply early = {.status = 200};
        if (answer_early(server, conn, method, url, &early))
            return finish(server, conn, method, url, &early, early.status == 503);
        prov_conns_begun(server->conns, tracked(conn), method, url);
        rs = prov_malloc(sizeof *rs);
        if (rs != NULL) {
            memset(rs, 0, sizeof *rs);
            /* answer_early refused one over the limit */
            if (!announced_length(conn, &rs->announced))
                rs->announced = 0;
        }
        *con_cls = rs != NULL ? rs : &no_memory_state;
        begin_request(server);
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        append_body(rs, server->options.max_body_bytes, upload_data, *upload_data_size);
        *upload_data_size = 0;
        return MHD_YES;
    }

    if (settle_before_suspending(server, url, rs))
        return MHD_YES;
    prov_reply reply = {.status = 200};
    int closing = 0;
    if (rs->stage == OFFLOAD_ANSWERED) {
        /* Resumed: the pool's answer. */
        reply = rs->reply;
        memset(&rs->reply, 0, sizeof rs->reply);
    } else {
        closing = !prov_conns_answering(server->conns, tracked(conn));
        if (closing)
            prov_reply_detail(&reply, 503, SHUTTING_DOWN);
        else if (rs->out_of_memory)
            prov_reply_out_of_memory(&reply);
        else if (rs->too_large)
            prov_reply_detail(&reply, 413, TOO_LARGE);
        else if (!answer_on_worker(server, conn, method, url, rs, &reply)) {
            int offloaded = offload(server, conn, method, url, rs, &reply);
            if (offloaded > 0)
                return MHD_YES;
            if (offloaded == 0)
                answer_handlers(server, conn, method, url, rs, 0, &reply);
        }
    }
    if (!prov_conns_answered(server->conns, tracked(conn))) {
        /* Cut at the drain's end: the client has its 503 or its EOF. */
        prov_reply_clear(&reply);
        return MHD_NO;
    }
    return finish(server, conn, method, url, &reply, closing);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode code)
{
    (void)code;
    prov_server *server = cls;
    prov_conns_completed(server->conns, tracked(conn));
    request_state *rs = *con_cls;
    if (rs == NULL)
        return;
    if (rs != &no_memory_state) {
        prov_reply_clear(&rs->reply);
        free(rs->body);
        free(rs);
    }
    *con_cls = NULL;
    pthread_mutex_lock(&server->lock);
    server->in_flight--;
    pthread_cond_broadcast(&server->idle);
    pthread_mutex_unlock(&server->lock);
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    prov_server *server = cls;
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        /* Before libmicrohttpd closes the socket: its number is not reused
         * while the tracker may still shut it down. */
        prov_conns_remove(server->conns, *socket_context);
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info != NULL)
        *socket_context = prov_conns_add(server->conns, info->connect_fd);
}

/* With a connection cap: the soft descriptor limit raised to the hard one,
 * and the cap checked against it.  Returns 0 after saying why. */
static int descriptors_fit(const prov_server_options *o, char *why, size_t why_len)
{
    if (o->max_connections == 0)
        return 1;
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return 1;
    if (limit.rlim_cur < limit.rlim_max) {
        struct rlimit raised = {limit.rlim_max, limit.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            limit = raised;
    }
    rlim_t need = (rlim_t)o->max_connections + DISPLACED_SLACK + 2u * o->threads +
                  RESERVED_DESCRIPTORS;
    if (limit.rlim_cur != RLIM_INFINITY && need > limit.rlim_cur) {
        snprintf(why, why_len,
                 "%u connections at once need about %llu open descriptors, but the limit "
                 "(ulimit -n) is %llu: lower the connection cap or raise the limit",
                 o->max_connections, (unsigned long long)need,
                 (unsigned long long)limit.rlim_cur);
        return 0;
    }
    return 1;
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

prov_server *prov_server_start(const prov_server_options *options,
                                       const prov_handlers *handlers,
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
    if (!descriptors_fit(options, why, why_len))
        return NULL;
    prov_server *server = prov_malloc(sizeof *server);
    prov_conns *conns = server != NULL
                                ? prov_conns_new(options->max_connections,
                                                     options->request_timeout_s * 1000u, tls)
                                : NULL;
    if (conns == NULL) {
        free(server);
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    memset(server, 0, sizeof *server);
    server->conns = conns;
    server->options = *options;
    server->handlers = *handlers;
    server->tls = tls;
    pthread_mutex_init(&server->lock, NULL);
    pthread_cond_init(&server->idle, NULL);
    /* libmicrohttpd cannot suspend a connection that has a thread of its
     * own: offloading needs the pool of workers. */
    int offloading = options->offload_prefix != NULL && options->offload_threads > 0 &&
                     options->threads > 0;
    if (offloading &&
        (server->offload = prov_offload_new(options->offload_threads,
                                            options->offload_share,
                                            options->offload_queue)) == NULL) {
        snprintf(why, why_len, "cannot start %u threads for the offloaded requests",
                 options->offload_threads);
        pthread_cond_destroy(&server->idle);
        pthread_mutex_destroy(&server->lock);
        prov_conns_free(server->conns);
        free(server);
        return NULL;
    }

    /* A pool's threads wait with epoll where there is one: sbx-provisiond's
     * GET took about a tenth less CPU per request than with poll.  A thread
     * per connection polls its one socket (MHD has no epoll for it). */
    unsigned wait = options->threads > 0 && MHD_is_feature_supported(MHD_FEATURE_EPOLL) == MHD_YES
                        ? MHD_USE_EPOLL
                        : MHD_USE_POLL;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | wait | MHD_USE_ITC |
                     (options->threads == 0 ? MHD_USE_THREAD_PER_CONNECTION : 0) |
                     (addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0) |
                     (options->verbose ? MHD_USE_ERROR_LOG : 0) | (tls ? MHD_USE_TLS : 0) |
                     (offloading ? MHD_ALLOW_SUSPEND_RESUME : 0);
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
    /* Only the limits that are set (0 leaves libmicrohttpd's default). */
    struct MHD_OptionItem limits[4];
    size_t n = 0;
    if (options->idle_timeout_s > 0)
        limits[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT,
                                              (intptr_t)options->idle_timeout_s, NULL};
    if (options->max_connections > 0)
        limits[n++] = (struct MHD_OptionItem){
            MHD_OPTION_CONNECTION_LIMIT, (intptr_t)(options->max_connections + DISPLACED_SLACK),
            NULL};
    if (options->max_per_address > 0)
        limits[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                                              (intptr_t)options->max_per_address, NULL};
    limits[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    server->daemon = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, server,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, server,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, server,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, 256u,
        MHD_OPTION_ARRAY, tls ? tls_options : tls_options + 2,
        MHD_OPTION_ARRAY, options->threads > 0 ? pool_options : pool_options + 1,
        MHD_OPTION_ARRAY, limits,
        MHD_OPTION_END);
    if (server->daemon == NULL) {
        int ipv6 = addr.ss_family == AF_INET6;
        snprintf(why, why_len, "cannot listen on %s%s%s:%u%s", ipv6 ? "[" : "",
                 options->address, ipv6 ? "]" : "", options->port,
                 tls ? " with HTTPS (address or port in use, or the certificate and key "
                       "are not a matching PEM pair)"
                     : " (address or port in use, or not an address of this host)");
        prov_offload_free(server->offload);
        pthread_cond_destroy(&server->idle);
        pthread_mutex_destroy(&server->lock);
        prov_conns_free(server->conns);
        free(server);
        return NULL;
    }
    const union MHD_DaemonInfo *info =
        MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    *bound_port = info != NULL ? info->port : options->port;
    return server;
}

/* Names a request cut at the drain's end on stderr. */
static void report_cut(void *ctx, const char *what)
{
    const prov_server *server = ctx;
    fprintf(stderr, "%s: %s: still running after the drain: answered 503 and cut off\n",
            server->options.name, what);
}

unsigned prov_server_stop(prov_server *server, unsigned drain_ms, unsigned *abandoned)
{
    if (server == NULL)
        return 0;
    pthread_mutex_lock(&server->lock);
    server->stopping = 1;
    pthread_mutex_unlock(&server->lock);
    /* Shut down, not closed, until libmicrohttpd has stopped: its workers
     * still take the socket out of their epoll sets.  New connections are
     * refused from now on. */
    MHD_socket listener = MHD_quiesce_daemon(server->daemon);
    if (listener != MHD_INVALID_SOCKET)
        shutdown(listener, SHUT_RDWR);
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
    if (abandoned != NULL) {
        *abandoned = prov_conns_cut_answering(server->conns, report_cut, server);
        /* Stopping libmicrohttpd would join the threads still in the
         * handler, for as long as their backend call takes. */
        if (*abandoned > 0)
            return left;
    }
    MHD_stop_daemon(server->daemon);
    if (listener != MHD_INVALID_SOCKET)
        close(listener);
    prov_offload_free(server->offload);
    prov_conns_free(server->conns);
    pthread_cond_destroy(&server->idle);
    pthread_mutex_destroy(&server->lock);
    free(server);
    return left;
}
