/* AIO routing, key check and request log (aio_server.h). */
#include <config.h>

#include "tools/aio-api/aio_server.h"

#include "common/base64.h"
#include "common/utf8.h"

#include "tools/aio-api/aio_bash_sessions.h"
#include "tools/aio-api/aio_routes.h"
#include "tools/aio-api/aio_shell_table.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct aio_server {
    aio_server_options options;
    aio_shells *shells;         /* the sandboxes' shell sessions */
    aio_bash_sessions *bash_sessions; /* the bash sessions clients created */
    int log_fd;                 /* -1: no request log */
    pthread_mutex_t log_lock;   /* one line at a time */
};

/* A served path: its method and handler, and whether the handler
 * bounds its work by aio_call.worker_bytes (a file call; any other
 * route is answered on the pool). */
typedef struct aio_route_entry {
    const char *path;
    const char *method;
    void (*handler)(const aio_call *call, prov_reply *reply);
    int bounded;
} aio_route_entry;

static const aio_route_entry routes[] = {
    {"/v1/sandbox", "GET", aio_route_sandbox, 0},
    {"/v1/bash/exec", "POST", aio_route_exec, 0},
    {"/v1/bash/output", "POST", aio_route_bash_output, 0},
    {"/v1/bash/write", "POST", aio_route_bash_write, 0},
    {"/v1/bash/kill", "POST", aio_route_bash_kill, 0},
    {"/v1/bash/sessions", "GET", aio_route_bash_sessions, 0},
    {"/v1/bash/sessions/{id}/close", "POST", aio_route_bash_session_close, 0},
    {"/v1/bash/sessions/create", "POST", aio_route_bash_session_create, 0},
    {"/v1/file/read", "POST", aio_route_read, 1},
    {"/v1/file/write", "POST", aio_route_write, 1},
    {"/v1/file/list", "POST", aio_route_list, 1},
    {"/v1/file/upload", "POST", aio_route_upload, 1},
    {"/v1/file/download", "GET", aio_route_download, 1},
    /* The shell sessions: a shell kept alive (<sbx/session.h>), which
     * the bash routes' one-command sessions are not. */
    {"/v1/shell/exec", "POST", aio_route_shell_exec, 0},
    {"/v1/shell/view", "POST", aio_route_shell_view, 0},
    {"/v1/shell/wait", "POST", aio_route_shell_wait, 0},
    {"/v1/shell/write", "POST", aio_route_shell_write, 0},
    {"/v1/shell/kill", "POST", aio_route_shell_kill, 0},
    {"/v1/shell/sessions/create", "POST", aio_route_shell_create, 0},
    {"/v1/shell/sessions", "GET", aio_route_shell_sessions, 0},
    {"/v1/shell/sessions", "DELETE", aio_route_shell_end_all, 0},
    {"/v1/shell/sessions/{id}", "DELETE", aio_route_shell_end, 0},
    {"/v1/file/find", "POST", aio_route_find, 0},
    {"/v1/file/glob", "POST", aio_route_glob, 0},
    {"/v1/file/grep", "POST", aio_route_grep, 0},
    {"/v1/file/search", "POST", aio_route_search, 0},
    {"/v1/file/replace", "POST", aio_route_replace, 0},
    {"/v1/file/str_replace_editor", "POST", aio_route_str_replace_editor, 0},
};

aio_server *aio_server_new(const aio_server_options *options, char *why, size_t why_len)
{
    aio_server *server = prov_malloc(sizeof *server);
    if (server == NULL) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    server->options = *options;
    if (server->options.exec_timeout_ms <= 0)
        server->options.exec_timeout_ms = AIO_EXEC_TIMEOUT_MS;
    if (server->options.max_answer_bytes == 0)
        server->options.max_answer_bytes = AIO_MAX_ANSWER_BYTES;
    server->log_fd = -1;
    server->shells = aio_shells_new(options->backend);
    server->bash_sessions = aio_bash_sessions_new(options->bash_store);
    if (server->shells == NULL || server->bash_sessions == NULL) {
        snprintf(why, why_len, "out of memory");
        aio_shells_free(server->shells);
        aio_bash_sessions_free(server->bash_sessions);
        free(server);
        return NULL;
    }
    if (options->request_log != NULL) {
        server->log_fd =
            open(options->request_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (server->log_fd < 0) {
            snprintf(why, why_len, "cannot open the AIO request log %s: %s",
                     options->request_log, strerror(errno));
            aio_shells_free(server->shells);
            aio_bash_sessions_free(server->bash_sessions);
            free(server);
            return NULL;
        }
    }
    pthread_mutex_init(&server->log_lock, NULL);
    return server;
}

void aio_server_free(aio_server *server)
{
    if (server == NULL)
        return;
    if (server->log_fd >= 0)
        close(server->log_fd);
    aio_shells_free(server->shells);
    aio_bash_sessions_free(server->bash_sessions);
    pthread_mutex_destroy(&server->log_lock);
    free(server);
}

/* The body in a log line: "body" as text when it is UTF-8, else
 * "body_base64" (a multipart upload of binary bytes). */
static int add_body(json_object *line, const prov_request *req)
{
    if (common_utf8_is_valid(req->body, req->body_len))
        return prov_json_add(line, "body",
                             json_object_new_string_len(req->body, (int)req->body_len));
    char *text = prov_malloc(COMMON_BASE64_ENCODED_LEN(req->body_len) + 1);
    if (text == NULL)
        return 0;
    common_base64_encode(req->body, req->body_len, text);
    int added = prov_json_add(line, "body_base64", json_object_new_string(text));
    free(text);
    return added;
}

/* The query arguments a route reads (download's), as an object. */
static json_object *query_of(const prov_request *req)
{
    static const char *const names[] = {"path", "change_policy", NULL};
    json_object *query = json_object_new_object();
    for (size_t i = 0; query != NULL && names[i] != NULL; i++) {
        const char *value = prov_request_query(req, names[i]);
        if (value != NULL && !prov_json_add_string(query, names[i], value)) {
            json_object_put(query);
            return NULL;
        }
    }
    return query;
}

/* Append one JSON line for `req` to the request log; a line that cannot be
 * built or written whole is left out (the log is a test aid). */
static void log_request(aio_server *server, const char *sandbox_id, const char *path,
                        const prov_request *req)
{
    if (server->log_fd < 0)
        return;
    json_object *line = json_object_new_object();
    int built = line != NULL && prov_json_add_string(line, "sandbox_id", sandbox_id) &&
                prov_json_add_string(line, "method", req->method) &&
                prov_json_add_string(line, "url_path", req->path) &&
                prov_json_add_string(line, "route", path) &&
                prov_json_add(line, "query", query_of(req)) &&
                prov_json_add_string(line, "content_type", req->content_type) &&
                add_body(line, req);
    const char *text = built ? prov_json_text(line) : NULL;
    if (text != NULL) {
        size_t len = strlen(text);
        char *record = prov_malloc(len + 2);
        if (record != NULL) {
            memcpy(record, text, len);
            record[len] = '\n';
            pthread_mutex_lock(&server->log_lock);
            ssize_t written = write(server->log_fd, record, len + 1);
            pthread_mutex_unlock(&server->log_lock);
            (void)written;
            free(record);
        }
    }
    json_object_put(line);
}

/* Longest {id} a path may carry (a process id, with room to spare). */
#define PATH_ID_MAX 255

/* Whether `path` matches route path `pattern`, whose "{id}" (if any)
 * stands for one non-empty segment of at most PATH_ID_MAX bytes, copied
 * into `id` (PATH_ID_MAX + 1 bytes; "" when the pattern has none). */
static int path_matches(const char *pattern, const char *path, char *id)
{
    id[0] = '\0';
    const char *hole = strstr(pattern, "{id}");
    if (hole == NULL)
        return strcmp(pattern, path) == 0;
    size_t head = (size_t)(hole - pattern);
    const char *tail = hole + 4;
    size_t path_len = strlen(path), tail_len = strlen(tail);
    if (path_len <= head + tail_len || strncmp(path, pattern, head) != 0 ||
        strcmp(path + path_len - tail_len, tail) != 0)
        return 0;
    size_t n = path_len - head - tail_len;
    if (n > PATH_ID_MAX || memchr(path + head, '/', n) != NULL)
        return 0;
    memcpy(id, path + head, n);
    id[n] = '\0';
    return 1;
}

/* The key the request carries: X-AIO-API-Key, else a bearer token, else
 * ?api_key= (the three ways the AIO server accepts it); NULL when none. */
static const char *given_key(const prov_request *req)
{
    const char *key = prov_request_header(req, "X-AIO-API-Key");
    const char *auth = prov_request_header(req, "Authorization");
    if (key == NULL && auth != NULL && strncmp(auth, "Bearer ", 7) == 0)
        key = auth + 7;
    return key != NULL ? key : prov_request_query(req, "api_key");
}

/* The route serving `method` at `path` (its {id} into `id`), or NULL;
 * *path_match: a route of the path, whatever its method (NULL: none). */
static const aio_route_entry *find_route(const char *path, const char *method, char *id,
                                         const aio_route_entry **path_match)
{
    *path_match = NULL;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (!path_matches(routes[i].path, path, id))
            continue;
        *path_match = &routes[i];
        if (strcmp(routes[i].method, method) == 0)
            return &routes[i];
    }
    return NULL;
}

void aio_server_answer(aio_server *server, const char *sandbox_id, const char *path,
                       const prov_request *req, prov_reply *reply)
{
    char id[PATH_ID_MAX + 1];
    const aio_route_entry *path_match = NULL;
    const aio_route_entry *route = find_route(path, req->method, id, &path_match);
    /* A worker's attempt leaves to the pool a route that does not bound
     * its work and a body (a write's bytes) larger than it may write;
     * before the log, so that a request is logged where it is answered
     * (a file call the attempt finds larger is logged on both). */
    if (req->worker_bytes > 0 &&
        ((route != NULL && !route->bounded) || req->body_len > req->worker_bytes)) {
        prov_reply_pool(reply);
        return;
    }
    log_request(server, sandbox_id, path, req);
    if (server->options.api_key != NULL &&
        !prov_key_equal(given_key(req), server->options.api_key)) {
        prov_reply_detail(reply, 401, "Invalid or missing API key");
        return;
    }
    if (sandbox_id == NULL) {
        prov_reply_detail(reply, 404, "Sandbox not found");
        return;
    }
    if (route != NULL) {
        const aio_call call = {server->options.backend, sandbox_id, req,
                               server->options.version, server->options.exec_timeout_ms,
                               server->options.max_answer_bytes, id[0] != '\0' ? id : NULL,
                               server->shells, server->bash_sessions, req->worker_bytes};
        route->handler(&call, reply);
        return;
    }
    if (path_match == NULL) {
        /* Other routes of the AIO API (browser, jupyter, file find and
         * grep...) exist on the real server: say that this one lacks them
         * rather than leave a client to guess at a wrong address. */
        char detail[160 + sizeof routes / sizeof routes[0] * 48];
        size_t used = (size_t)snprintf(detail, sizeof detail,
                                       "Not Found: this server does not serve %.60s%s; it "
                                       "serves",
                                       path, strlen(path) > 60 ? "..." : "");
        for (size_t i = 0; i < sizeof routes / sizeof routes[0] && used < sizeof detail; i++)
            used += (size_t)snprintf(detail + used, sizeof detail - used, "%s %s %s",
                                     i == 0 ? "" : ",", routes[i].method, routes[i].path);
        prov_reply_detail(reply, 404, detail);
        return;
    }
    prov_reply_detail(reply, 405, "Method Not Allowed");
    reply->allow = prov_strdup(path_match->method);
    if (reply->allow == NULL)
        prov_reply_out_of_memory(reply);
}

aio_bash_created aio_server_restore_bash_session(aio_server *server, const char *sandbox_id,
                                                 const aio_bash_session *session)
{
    return aio_bash_session_restore(server->bash_sessions, sandbox_id, session);
}

void aio_server_sandbox_gone(aio_server *server, const char *sandbox_id)
{
    aio_shells_forget_sandbox(server->shells, sandbox_id);
    aio_bash_sessions_forget_sandbox(server->bash_sessions, sandbox_id);
}
