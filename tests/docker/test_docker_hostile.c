/*
 * The docker backend against engines that misbehave, without a real
 * engine: a socket nothing is behind, a socket nobody listens on, an
 * engine that never answers, and a fake engine (a forked process serving
 * canned answers on a unix socket) whose strings hold NULs or invalid
 * UTF-8, or whose sandbox port is a proxy with no server behind it.  What
 * a user sees: the error kinds and messages, the list.
 */
#include <config.h>

#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/log_capture.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <limits.h>
#include <locale.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------ the fake engine */

/* One canned answer: to the request whose request line starts with
 * `request` ("GET /v1.41/containers/json"). */
typedef struct canned {
    const char *request;
    int status;
    const char *body;
} canned;

/* A unix socket in a fresh directory; *dir and *path are filled. */
static int socket_in_dir(char *dir, size_t dir_size, char *path, size_t path_size, int do_listen)
{
    snprintf(dir, dir_size, "/tmp/sbx-hostile.XXXXXX");
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
    snprintf(path, path_size, "%s/engine.sock", dir);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0);
    if (do_listen)
        CU_ASSERT_FATAL(listen(fd, 16) == 0);
    return fd;
}

static void remove_socket_dir(const char *dir, const char *path)
{
    unlink(path);
    rmdir(dir);
}

/* Read one request (headers, and a body of Content-Length bytes); 1 when
 * complete.  The request line is left at the start of buf. */
static int read_request(int fd, char *buf, size_t size)
{
    size_t len = 0;
    char *end = NULL;
    while (end == NULL) {
        ssize_t n = read(fd, buf + len, size - 1 - len);
        if (n <= 0)
            return 0;
        len += (size_t)n;
        buf[len] = '\0';
        end = strstr(buf, "\r\n\r\n");
    }
    const char *cl = strcasestr(buf, "Content-Length:");
    size_t want = (size_t)(end + 4 - buf) + (cl != NULL && cl < end ? strtoul(cl + 15, NULL, 10) : 0);
    while (len < want && len < size - 1) {
        ssize_t n = read(fd, buf + len, size - 1 - len);
        if (n <= 0)
            return 0;
        len += (size_t)n;
    }
    return 1;
}

static void write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n <= 0)
            return;
        p += n;
        len -= (size_t)n;
    }
}

/* The child's loop: one answer per connection, then close. */
static void serve(int listen_fd, const canned *answers)
{
    for (;;) {
        int c = accept(listen_fd, NULL, NULL);
        if (c < 0)
            _exit(1);
        char req[16384];
        if (read_request(c, req, sizeof req)) {
            const canned *a = NULL;
            for (const canned *i = answers; i->request != NULL && a == NULL; i++)
                if (strncmp(req, i->request, strlen(i->request)) == 0)
                    a = i;
            int status = a ? a->status : 404;
            const char *body = a ? a->body : "{\"message\":\"no canned answer\"}";
            char head[256];
            int n = snprintf(head, sizeof head,
                             "HTTP/1.1 %d Canned\r\nContent-Type: application/json\r\n"
                             "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                             status, strlen(body));
            write_all(c, head, (size_t)n);
            write_all(c, body, strlen(body));
        }
        close(c);
    }
}

/* In a forked fake: end with the test, however the test ends (a failed
 * fatal assertion skips the stop that kills it). */
static void die_with_parent(pid_t parent)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(1);
}

typedef struct fake_engine {
    char dir[64];
    char socket[128];
    pid_t pid;
} fake_engine;

/* Start a fake engine serving `answers` (ends with a NULL request).  It
 * listens before this returns, so no wait is needed. */
static void fake_engine_start(fake_engine *e, const canned *answers)
{
    int fd = socket_in_dir(e->dir, sizeof e->dir, e->socket, sizeof e->socket, 1);
    fflush(NULL);
    pid_t parent = getpid();
    e->pid = fork();
    CU_ASSERT_FATAL(e->pid >= 0);
    if (e->pid == 0) {
        die_with_parent(parent);
        serve(fd, answers);
    }
    close(fd);
}

static void fake_engine_stop(fake_engine *e)
{
    kill(e->pid, SIGKILL);
    waitpid(e->pid, NULL, 0);
    remove_socket_dir(e->dir, e->socket);
}

/* ------------------------------------------------------------ backends */

typedef struct fixture {
    sbx_host *host;
    sbx_backend *backend;
    sbx_test_log_capture *log;
} fixture;

/* Open the backend on `socket_path` with call timeout `timeout_ms` and
 * create's ready_timeout_ms `ready_ms`. */
static void open_ready(fixture *f, const char *socket_path, const char *timeout_ms,
                       const char *ready_ms)
{
    sbx_option opts[] = { { "socket", socket_path },
                          { "image", "localhost/any:latest" },
                          { "timeout_ms", timeout_ms },
                          { "ready_timeout_ms", ready_ms } };
    f->log = sbx_test_log_capture_new();
    CU_ASSERT_FATAL(f->log != NULL);
    sbx_host_services services = { sizeof services, sbx_test_log_capture_fn, f->log };
    sbx_error err;
    CU_ASSERT_FATAL(sbx_host_new(&services, &f->host, &err) == SBX_OK);
    CU_ASSERT_FATAL(sbx_backend_open(f->host, "docker", opts, 4, &f->backend, &err) == SBX_OK);
}

static void open_on(fixture *f, const char *socket_path, const char *timeout_ms)
{
    open_ready(f, socket_path, timeout_ms, "5000");
}

static void close_fixture(fixture *f)
{
    sbx_backend_close(f->backend);
    sbx_host_free(f->host);
    sbx_test_log_capture_free(f->log);
}

/* 1 when `s` is valid UTF-8 (what --json and a terminal need). */
static int valid_utf8(const char *s)
{
    return mbstowcs(NULL, s, 0) != (size_t)-1;
}

/* ------------------------------------------------------------ transport */

/* The message of a transport error says which operation on which sandbox,
 * which socket, and why; never the URL libcurl was given for the socket
 * ("http://localhost/v1.41/...: Failed to connect to localhost port 80"). */
static void check_transport(const sbx_error *err, const char *operation, const char *socket,
                            const char *why)
{
    CU_ASSERT_EQUAL(err->kind, SBX_ERR_TRANSPORT);
    CU_ASSERT(strstr(err->message, operation) != NULL);
    CU_ASSERT(strstr(err->message, socket) != NULL);
    CU_ASSERT(strstr(err->message, why) != NULL);
    CU_ASSERT(strstr(err->message, "localhost") == NULL);
    CU_ASSERT(strstr(err->message, "port 80") == NULL);
    if (strstr(err->message, operation) == NULL || strstr(err->message, why) == NULL)
        fprintf(stderr, "message: %s\n", err->message);
}

/* Every operation, against `socket`: each error names its operation. */
static void check_every_operation(const char *socket, const char *why, const char *timeout_ms)
{
    fixture f;
    open_on(&f, socket, timeout_ms);
    sbx_error err;
    int alive = -1;
    CU_ASSERT(sbx_backend_is_alive(f.backend, "some-box", &alive, &err) == SBX_ERR_TRANSPORT);
    check_transport(&err, "docker: inspect of sandbox 'some-box': ", socket, why);
    sbx_sandbox *all = NULL;
    size_t count = 0;
    CU_ASSERT(sbx_backend_list_running(f.backend, &all, &count, &err) == SBX_ERR_TRANSPORT);
    check_transport(&err, "docker: list of sandboxes: ", socket, why);
    CU_ASSERT(sbx_backend_destroy(f.backend, "gone-box", &err) == SBX_ERR_TRANSPORT);
    check_transport(&err, "docker: inspect of sandbox 'gone-box': ", socket, why);
    CU_ASSERT(sbx_test_create(f.backend, "new-box", NULL, NULL, &err) == NULL);
    check_transport(&err, "docker: create of sandbox 'new-box': ", socket, why);
    /* reconcile never fails for the engine's sake: unknown, and why. */
    sbx_reconciliation r;
    CU_ASSERT(sbx_backend_reconcile(f.backend, "new-box", &r, &err) == SBX_OK);
    CU_ASSERT_EQUAL(r.status, SBX_RECONCILE_UNKNOWN);
    CU_ASSERT_PTR_NULL(r.backend_namespace);
    char line[256];
    snprintf(line, sizeof line, "WARN docker: reconciliation of sandbox 'new-box' is unknown: "
             "docker: reconciliation of sandbox 'new-box': ");
    CU_ASSERT(sbx_test_log_contains(f.log, line));
    close_fixture(&f);
}

static void test_no_socket(void)
{
    check_every_operation("/nonexistent-sbx-dir/docker.sock",
                          "cannot connect to the engine's socket /nonexistent-sbx-dir/docker.sock: "
                          "No such file or directory", "5000");
}

static void test_nobody_listens(void)
{
    char dir[64], path[128];
    int fd = socket_in_dir(dir, sizeof dir, path, sizeof path, 0);
    check_every_operation(path, "Connection refused", "5000");
    close(fd);
    remove_socket_dir(dir, path);
}

/* Connections are queued (listen) but never accepted: every call times out
 * at timeout_ms, and says so. */
static void test_engine_never_answers(void)
{
    char dir[64], path[128];
    int fd = socket_in_dir(dir, sizeof dir, path, sizeof path, 1);
    long started = sbx_test_now_ms();
    check_every_operation(path, "timed out after 300 ms", "300");
    /* Four calls of 300 ms each, with slack for a loaded machine. */
    CU_ASSERT(sbx_test_now_ms() - started < 4 * 300 + 5000);
    close(fd);
    remove_socket_dir(dir, path);
}

/* ------------------------------------------------------------ hostile text */

#define LABELS(user) \
    "{\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"box\",\"sbx.user_id\":\"" user "\"}"
#define INSPECT(labels, status)                                                        \
    "{\"Config\":{\"Labels\":" labels "},\"State\":{\"Running\":true,\"Status\":\"" \
    status "\"},\"NetworkSettings\":{\"Ports\":{\"8080/tcp\":[{\"HostIp\":\"127.0.0.1\"," \
    "\"HostPort\":\"40000\"}]}}}"
#define ENTRY(name, labels)                                                                \
    "{\"Names\":[\"/" name "\"],\"State\":\"running\",\"Labels\":" labels ",\"Ports\":[{" \
    "\"PrivatePort\":8080,\"PublicPort\":40000,\"Type\":\"tcp\"}]}"

/* 200 two-byte characters: a cut at a byte count lands inside one. */
#define E_ACUTE_10 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
#define E_ACUTE_50 E_ACUTE_10 E_ACUTE_10 E_ACUTE_10 E_ACUTE_10 E_ACUTE_10
#define E_ACUTE_200 "x" E_ACUTE_50 E_ACUTE_50 E_ACUTE_50 E_ACUTE_50

static const canned hostile[] = {
    { "GET /v1.41/containers/sbx-box/json", 200, INSPECT(LABELS("alice"), "running") },
    { "GET /v1.41/containers/sbx-nul-status/json", 200,
      INSPECT(LABELS("alice"), "running\\u0000Exited") },
    { "GET /v1.41/containers/sbx-raw-status/json", 200, INSPECT(LABELS("alice"), "run\xffning") },
    { "GET /v1.41/containers/sbx-nul-user/json", 200,
      INSPECT(LABELS("alice\\u0000mallory"), "running") },
    { "GET /v1.41/containers/sbx-bad-message/json", 500,
      "{\"message\":\"engine says \xff\xfe\"}" },
    { "GET /v1.41/containers/sbx-long-message/json", 500, "{\"message\":\"" E_ACUTE_200 "\"}" },
    { "GET /v1.41/version", 200, "{\"Components\":[{\"Name\":\"Engine\"}]}" },
    { "GET /v1.41/info", 200, "{\"ID\":\"fake\",\"InitBinary\":\"docker-init\","
                              "\"InitCommit\":{\"ID\":\"de40ad0\"}}" },
    { "POST /v1.41/containers/create?name=sbx-nul-user", 409,
      "{\"message\":\"Conflict. The container name is already in use\"}" },
    { "GET /v1.41/containers/json", 200,
      "[" ENTRY("sbx-box", LABELS("alice")) ","
          ENTRY("sbx-b\xc0\xaf", LABELS("alice")) ","
          ENTRY("sbx-box", LABELS("bob\\u0000")) ","
          ENTRY("sbx-box", "{\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"box\","
                           "\"\xed\xa0\x80\":\"x\"}") "]" },
    { NULL, 0, NULL }
};

/* Discover of sandbox `id` is a protocol error naming `field`. */
static void check_discover_refused(fixture *f, const char *id, const char *field)
{
    sbx_sandbox *found = NULL;
    sbx_error err;
    CU_ASSERT(sbx_backend_discover(f->backend, id, &found, &err) == SBX_ERR_PROTOCOL);
    CU_ASSERT(found == NULL);
    char expected[128];
    snprintf(expected, sizeof expected, "field '%s' of the engine's answer holds a NUL or "
             "invalid UTF-8", field);
    CU_ASSERT(strstr(err.message, expected) != NULL);
    CU_ASSERT(valid_utf8(err.message));
}

/* reconcile of sandbox `id` is unknown, logging `why`. */
static void check_reconcile_unknown(fixture *f, const char *id, const char *why)
{
    sbx_reconciliation r;
    sbx_error err;
    CU_ASSERT(sbx_backend_reconcile(f->backend, id, &r, &err) == SBX_OK);
    CU_ASSERT_EQUAL(r.status, SBX_RECONCILE_UNKNOWN);
    CU_ASSERT(sbx_test_log_contains(f->log, why));
    sbx_backend_clear_reconciliation(f->backend, &r);
}

static void test_strings_with_nul_or_invalid_utf8(void)
{
    fake_engine e;
    fake_engine_start(&e, hostile);
    fixture f;
    open_on(&f, e.socket, "5000");
    sbx_sandbox *found = NULL;
    sbx_error err;
    /* The well-formed answer is read (the fake engine is sound). */
    CU_ASSERT_FATAL(sbx_backend_discover(f.backend, "box", &found, &err) == SBX_OK);
    CU_ASSERT_STRING_EQUAL(found->user_id, "alice");
    sbx_backend_free_sandboxes(f.backend, found, 1);

    check_discover_refused(&f, "nul-status", "State.Status");
    check_discover_refused(&f, "raw-status", "State.Status");
    check_discover_refused(&f, "nul-user", "Config.Labels.sbx.user_id");
    int alive = -1;
    CU_ASSERT(sbx_backend_is_alive(f.backend, "nul-user", &alive, &err) == SBX_ERR_PROTOCOL);
    /* create finds the name taken and reads the container: refused the same way. */
    CU_ASSERT(sbx_test_create(f.backend, "nul-user", NULL, "alice", &err) == NULL);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_PROTOCOL);
    CU_ASSERT(strstr(err.message, "field 'Config.Labels.sbx.user_id'") != NULL);

    /* list: the sound entry only; each other one skipped with a warning
     * naming its field. */
    sbx_sandbox *all = NULL;
    size_t count = 0;
    CU_ASSERT_FATAL(sbx_backend_list_running(f.backend, &all, &count, &err) == SBX_OK);
    CU_ASSERT_EQUAL(count, 1);
    if (count == 1)
        CU_ASSERT_STRING_EQUAL(all[0].user_id, "alice");
    sbx_backend_free_sandboxes(f.backend, all, count);
    CU_ASSERT(sbx_test_log_contains(f.log, "WARN docker: skipping list entry 1: field 'Names[0]' "
                                           "holds a NUL or invalid UTF-8"));
    CU_ASSERT(sbx_test_log_contains(f.log, "WARN docker: skipping list entry 2: field "
                                           "'Labels.sbx.user_id' holds"));
    CU_ASSERT(sbx_test_log_contains(f.log, "WARN docker: skipping list entry 3: field 'Labels.?"));
    /* reconcile: an answer it cannot trust is unknown, never absent. */
    check_reconcile_unknown(&f, "box", "'box' is unknown: docker: inspect of sandbox 'box': "
                                       "the answer has no container Id");
    check_reconcile_unknown(&f, "nul-user", "'nul-user' is unknown: docker: inspect of sandbox "
                                            "'nul-user': field 'Config.Labels.sbx.user_id'");
    char *text = sbx_test_log_text(f.log);
    CU_ASSERT(text != NULL && valid_utf8(text));
    free(text);
    close_fixture(&f);
    fake_engine_stop(&e);
}

/* An engine's error message is quoted only as valid UTF-8: an invalid one
 * is replaced by a note, a long one cut between characters. */
static void test_engine_messages_stay_text(void)
{
    fake_engine e;
    fake_engine_start(&e, hostile);
    fixture f;
    open_on(&f, e.socket, "5000");
    sbx_error err;
    int alive = -1;
    CU_ASSERT(sbx_backend_is_alive(f.backend, "bad-message", &alive, &err) == SBX_ERR_PROVISIONER);
    CU_ASSERT_EQUAL(err.http_status, 500);
    CU_ASSERT(strstr(err.message, "HTTP 500: (the engine's message is not valid UTF-8 text)") !=
              NULL);
    CU_ASSERT(valid_utf8(err.message));
    CU_ASSERT(sbx_backend_is_alive(f.backend, "long-message", &alive, &err) == SBX_ERR_PROVISIONER);
    CU_ASSERT(strstr(err.message, "HTTP 500: x\xc3\xa9\xc3\xa9") != NULL);
    CU_ASSERT(valid_utf8(err.message));
    close_fixture(&f);
    fake_engine_stop(&e);
}

/* ------------------------------------------------------------ readiness */

/* A sandbox's published port as Docker's userland proxy presents it: a
 * listener on 127.0.0.1 (a forked process) that accepts every connection.
 * The first `closed` connections are closed with no reply, as the proxy
 * does while nothing listens behind it; later ones get an HTTP answer,
 * each told beforehand by a byte on the pipe `answered`. */
typedef struct fake_port {
    int port;
    pid_t pid;
    int answered;   /* read end */
} fake_port;

static void fake_port_start(fake_port *p, int closed)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CU_ASSERT_FATAL(fd >= 0);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    CU_ASSERT_FATAL(bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0);
    CU_ASSERT_FATAL(listen(fd, 16) == 0);
    CU_ASSERT_FATAL(getsockname(fd, (struct sockaddr *)&addr, &len) == 0);
    p->port = ntohs(addr.sin_port);
    int pipe_fds[2];
    CU_ASSERT_FATAL(pipe(pipe_fds) == 0);
    fflush(NULL);
    pid_t parent = getpid();
    p->pid = fork();
    CU_ASSERT_FATAL(p->pid >= 0);
    if (p->pid == 0) {
        die_with_parent(parent);
        close(pipe_fds[0]);
        for (int n = 0;; n++) {
            int c = accept(fd, NULL, NULL);
            if (c < 0)
                _exit(1);
            if (n >= closed) {
                char req[1024];
                if (read(c, req, sizeof req) > 0) {
                    static const char answer[] = "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n";
                    /* Told first: the answer ends the wait being checked. */
                    write_all(pipe_fds[1], "a", 1);
                    write_all(c, answer, sizeof answer - 1);
                }
            }
            close(c);
        }
    }
    close(fd);
    close(pipe_fds[1]);
    p->answered = pipe_fds[0];
}

static void fake_port_stop(fake_port *p)
{
    kill(p->pid, SIGKILL);
    waitpid(p->pid, NULL, 0);
    close(p->answered);
}

/* 1 when the fake port has answered a request by now. */
static int fake_port_answered(const fake_port *p)
{
    struct pollfd pfd = { .fd = p->answered, .events = POLLIN, .revents = 0 };
    return poll(&pfd, 1, 0) == 1;
}

/* A fake engine whose sandbox `id` publishes 8080/tcp on `port`: it
 * answers create, start and inspect (and /info: an init binary). */
static void fake_engine_with_port(fake_engine *e, const char *id, int port)
{
    static char inspect[512];
    snprintf(inspect, sizeof inspect,
             "{\"Id\":\"c0ffee\",\"Config\":{\"Labels\":{\"sbx.managed\":\"true\","
             "\"sbx.sandbox_id\":\"%s\",\"sbx.user_id\":\"default\"}},\"State\":{"
             "\"Running\":true,\"Status\":\"running\"},\"NetworkSettings\":{\"Ports\":{"
             "\"8080/tcp\":[{\"HostIp\":\"127.0.0.1\",\"HostPort\":\"%d\"}]}}}", id, port);
    static canned answers[] = {
        { "GET /v1.41/info", 200, "{\"ID\":\"fake\",\"InitBinary\":\"docker-init\","
                                  "\"InitCommit\":{\"ID\":\"de40ad0\"}}" },
        { "POST /v1.41/containers/create", 201, "{\"Id\":\"c0ffee\"}" },
        { "POST /v1.41/containers/sbx-", 204, "" },
        { "GET /v1.41/containers/sbx-", 200, inspect },
        { NULL, 0, NULL }
    };
    fake_engine_start(e, answers);
}

/* The port accepts and closes every connection (Docker's userland proxy
 * with nothing listening behind it): the sandbox is not serving, and
 * create says so at ready_timeout_ms instead of returning a URL that does
 * not answer. */
static void test_proxy_without_server_is_not_ready(void)
{
    fake_port port;
    fake_port_start(&port, INT_MAX);
    fake_engine e;
    fake_engine_with_port(&e, "proxied", port.port);
    fixture f;
    open_ready(&f, e.socket, "5000", "600");
    sbx_error err;
    long started = sbx_test_now_ms();
    sbx_sandbox *sb = sbx_test_create(f.backend, "proxied", NULL, NULL, &err);
    long elapsed = sbx_test_now_ms() - started;
    CU_ASSERT(sb == NULL);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_TRANSPORT);
    char where[64];
    snprintf(where, sizeof where, "nothing answered an HTTP request on 127.0.0.1:%d within "
             "600 ms", port.port);
    CU_ASSERT(strstr(err.message, "docker: sandbox 'proxied' is not serving") != NULL);
    CU_ASSERT(strstr(err.message, where) != NULL);
    if (strstr(err.message, where) == NULL)
        fprintf(stderr, "message: %s\n", err.message);
    CU_ASSERT(elapsed >= 600 && elapsed < 600 + 5000);
    sbx_backend_free_sandboxes(f.backend, sb, sb ? 1 : 0);
    close_fixture(&f);
    fake_engine_stop(&e);
    fake_port_stop(&port);
}

/* The proxy closes the first connections, then the server behind it
 * answers: create returns once it has answered, not at the first accepted
 * connection. */
static void test_create_waits_for_an_http_answer(void)
{
    fake_port port;
    fake_port_start(&port, 3);
    fake_engine e;
    fake_engine_with_port(&e, "late", port.port);
    fixture f;
    open_ready(&f, e.socket, "5000", "5000");
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f.backend, "late", NULL, NULL, &err);
    CU_ASSERT_FATAL(sb != NULL);
    CU_ASSERT(fake_port_answered(&port));
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port.port);
    CU_ASSERT_STRING_EQUAL(sb->sandbox_url, url);
    sbx_backend_free_sandboxes(f.backend, sb, 1);
    close_fixture(&f);
    fake_engine_stop(&e);
    fake_port_stop(&port);
}

void sbx_test_register(void)
{
    /* valid_utf8 decodes with the C library's UTF-8 rules. */
    if (setlocale(LC_CTYPE, "C.UTF-8") == NULL) {
        fprintf(stderr, "SKIP: no C.UTF-8 locale to check messages with\n");
        exit(77);
    }
    static const CU_TestInfo tests[] = {
        { "no socket: errors name the operation, sandbox and socket", test_no_socket },
        { "nobody listens: connection refused, named", test_nobody_listens },
        { "an engine that never answers: timeouts, named", test_engine_never_answers },
        { "a NUL or invalid UTF-8 in an answer: protocol error naming the field; list skips", test_strings_with_nul_or_invalid_utf8 },
        { "engine messages are quoted as valid UTF-8 only", test_engine_messages_stay_text },
        { "a port that accepts and closes (a proxy, no server): create times out, named", test_proxy_without_server_is_not_ready },
        { "create returns once the sandbox answers HTTP, not at the first accept", test_create_waits_for_an_http_answer },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("docker backend against misbehaving engines", NULL, NULL, tests);
}
