/* sbx-provisiond's connections, over the local backend and raw sockets on
 * 127.0.0.0/8: floods of idle sockets beyond the per-address and total caps
 * leave /health and keyed clients served, idle and slow-drip connections
 * are closed at their deadlines, a body without the right key is refused
 * from the headers before a byte of it is read (and holds no memory), and
 * SIGTERM's drain is a bound even with a backend call that never returns. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/http_probe.h"
#include "tests/support/subprocess.h"

#define KEY "k3y-for-tests"
/* Generous for what is fast when the daemon is right: a loaded machine
 * cannot fail a correct run, and every timeout the daemon is given that
 * the test does not wait for is far longer. */
#define TIMEOUT_MS 20000
#define LONG_TIMEOUT_S "600"

static const char *const with_key[] = {"Content-Type: application/json",
                                       "X-API-Key: " KEY, NULL};

static unsigned port_of(const provd_local *d)
{
    const char *colon = strrchr(provd_url(d->proc), ':');
    return colon != NULL ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
}

/* A TCP connection to the daemon from `source` (an address of 127.0.0.0/8,
 * so that a test can be several clients), or -1 (said on stderr). */
static int connect_from(const provd_local *d, const char *source)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in from = {.sin_family = AF_INET};
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port_of(d))};
    inet_pton(AF_INET, source, &from.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    /* The source port is chosen at connect(), for this destination:
     * a bind() to port 0 alone must find a port no other socket of the
     * machine holds, which parallel suites' closed connections can use up. */
    int no_port = 1;
    if (fd >= 0 &&
        (setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &no_port, sizeof no_port) != 0 ||
         bind(fd, (struct sockaddr *)&from, sizeof from) != 0 ||
         connect(fd, (struct sockaddr *)&to, sizeof to) != 0)) {
        fprintf(stderr, "connect from %s to port %u: %s\n", source, port_of(d), strerror(errno));
        close(fd);
        fd = -1;
    }
    return fd;
}

static int send_text(int fd, const char *text)
{
    size_t len = strlen(text);
    return send(fd, text, len, MSG_NOSIGNAL) == (ssize_t)len;
}

static long call(const provd_local *d, const char *const *headers, const char *method,
                 const char *path, const char *body)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", provd_url(d->proc), path);
    sbx_test_http_result r;
    long status = sbx_test_http(method, url, headers, body, TIMEOUT_MS, &r) == 0 ? r.status : -1;
    if (status < 0)
        fprintf(stderr, "%s %s: %s\n", method, path, curl_easy_strerror(r.curl_code));
    sbx_test_http_result_clear(&r);
    return status;
}

/* The daemon over the local backend, its connection options set by the
 * test (those not named are long: they must not be what a test sees). */
static int start(provd_local *d, const char *const *extra)
{
    const char *args[40] = {"--api-key",      KEY,          "--idle-timeout", LONG_TIMEOUT_S,
                            "--request-timeout", LONG_TIMEOUT_S};
    size_t n = 6;
    for (size_t i = 0; extra != NULL && extra[i] != NULL && n + 1 < 40; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    return provd_local_start(d, 0, args);
}

static void close_all(int *fds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

#define PER_ADDRESS 8
#define TOTAL 32
#define FLOOD_ADDRESSES 6   /* 127.0.0.2 ..: together over the total cap */
#define FLOOD_PER_ADDRESS (2 * PER_ADDRESS)

/* Idle sockets from several addresses, each beyond the per-address cap and
 * all together beyond the total cap: the surplus of each address is closed
 * at once, and /health and a keyed create from another address are still
 * answered while the flood is held (the idle timeout is far away). */
static void test_flood_of_idle_sockets_leaves_others_served(void)
{
    static const char *const extra[] = {"--max-connections-per-address", "8",
                                        "--max-connections", "32", NULL};
    provd_local d;
    if (!start(&d, extra))
        return;
    int fds[FLOOD_ADDRESSES * FLOOD_PER_ADDRESS];
    size_t n = 0;
    for (int a = 0; a < FLOOD_ADDRESSES; a++) {
        char source[32];
        snprintf(source, sizeof source, "127.0.0.%d", a + 2);
        for (int i = 0; i < FLOOD_PER_ADDRESS; i++)
            fds[n++] = connect_from(&d, source);
    }
    size_t connected = 0;
    for (size_t i = 0; i < n; i++)
        connected += fds[i] >= 0;
    CU_ASSERT_EQUAL(connected, n);
    /* The surplus of the first address reads EOF (it is closed, not left
     * waiting), without a byte of answer. */
    long deadline = sbx_test_now_ms() + TIMEOUT_MS;
    size_t closed = 0;
    for (size_t i = 0; i < FLOOD_PER_ADDRESS; i++) {
        char got[64];
        if (fds[i] >= 0 && sbx_test_wait_readable(fds[i], i < PER_ADDRESS ? 0 : deadline) == 1 &&
            read(fds[i], got, sizeof got) <= 0)
            closed++;
    }
    CU_ASSERT(closed >= FLOOD_PER_ADDRESS - PER_ADDRESS);

    long t0 = sbx_test_now_ms();
    CU_ASSERT_EQUAL(call(&d, NULL, "GET", "/health", NULL), 200);
    CU_ASSERT_EQUAL(call(&d, with_key, "POST", "/api/sandboxes",
                         "{\"sandbox_id\":\"flood1\",\"thread_id\":\"t\",\"user_id\":\"u\"}"),
                    200);
    CU_ASSERT_EQUAL(call(&d, with_key, "GET", "/api/sandboxes/flood1", NULL), 200);
    CU_ASSERT(sbx_test_now_ms() - t0 < TIMEOUT_MS);
    close_all(fds, n);
    provd_local_stop(&d, 0);
}

/* A connection that sends nothing, or stops in the middle of its headers,
 * is closed once the idle timeout passes: the client reads EOF. */
static void test_idle_and_incomplete_connections_are_closed(void)
{
    static const char *const extra[] = {"--idle-timeout", "1", NULL};
    provd_local d;
    if (!start(&d, extra))
        return;
    int silent = connect_from(&d, "127.0.0.1");
    int partial = connect_from(&d, "127.0.0.1");
    CU_ASSERT_FATAL(silent >= 0 && partial >= 0);
    CU_ASSERT(send_text(partial, "GET /health HTTP/1.1\r\nHost: x\r\n"));
    long t0 = sbx_test_now_ms();
    char got[256];
    CU_ASSERT(sbx_test_read_until_eof(silent, got, sizeof got, t0 + TIMEOUT_MS));
    CU_ASSERT_STRING_EQUAL(got, "");
    CU_ASSERT(sbx_test_read_until_eof(partial, got, sizeof got, t0 + TIMEOUT_MS));
    /* Not at once: the timeout was waited for (less a clock tick). */
    CU_ASSERT(sbx_test_now_ms() - t0 >= 900);
    close(silent);
    close(partial);
    /* The daemon itself goes on serving. */
    CU_ASSERT_EQUAL(call(&d, NULL, "GET", "/health", NULL), 200);
    provd_local_stop(&d, 0);
}

/* A client that sends its request a byte at a time, each well within the
 * idle timeout, is cut when the request timeout passes. */
static void test_slow_drip_request_is_cut_at_the_request_timeout(void)
{
    static const char *const extra[] = {"--idle-timeout", "30", "--request-timeout", "2", NULL};
    provd_local d;
    if (!start(&d, extra))
        return;
    int fd = connect_from(&d, "127.0.0.1");
    CU_ASSERT_FATAL(fd >= 0);
    static const char drip[] = "GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: ";
    long t0 = sbx_test_now_ms();
    int eof = 0, answered = 0;
    for (size_t i = 0; !eof && sbx_test_now_ms() - t0 < TIMEOUT_MS; i++) {
        char c = i < sizeof drip - 1 ? drip[i] : 'a';
        if (send(fd, &c, 1, MSG_NOSIGNAL) != 1) {
            eof = 1;
            break;
        }
        /* The next byte when 200 ms pass without the daemon closing. */
        if (sbx_test_wait_readable(fd, sbx_test_now_ms() + 200) == 1) {
            char got[64];
            ssize_t r = read(fd, got, sizeof got);
            answered = r > 0;
            eof = 1;
        }
    }
    long elapsed = sbx_test_now_ms() - t0;
    CU_ASSERT(eof);
    CU_ASSERT(!answered);
    CU_ASSERT(elapsed >= 1900);
    CU_ASSERT(elapsed < TIMEOUT_MS);
    close(fd);
    provd_local_stop(&d, 0);
}

/* Sends the headers of a 2 MiB body, not one byte of it, and returns what
 * came back until EOF ("" when nothing did in time) in `got`. */
static void announce_big_body(const provd_local *d, const char *key_header, char *got,
                              size_t cap)
{
    int fd = connect_from(d, "127.0.0.1");
    char head[512];
    snprintf(head, sizeof head,
             "POST /api/sandboxes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "%sContent-Length: 2097152\r\n\r\n", key_header);
    got[0] = '\0';
    long t0 = sbx_test_now_ms();
    int sent = fd >= 0 && send_text(fd, head);
    int eof = sent && sbx_test_read_until_eof(fd, got, cap, t0 + TIMEOUT_MS);
    if (!eof)
        fprintf(stderr, "big body with '%.*s': %s after %ld ms (%s), got '%.40s'\n",
                (int)strcspn(key_header, "\r"), key_header,
                sent ? "no EOF" : "not sent", sbx_test_now_ms() - t0, strerror(errno), got);
    if (fd >= 0)
        close(fd);
}

/* The key is checked from the headers: a big body without the right key
 * is 401 before it is sent, not 413 after; with the key, an announced body
 * over the limit is 413 before it is sent. */
static void test_big_body_is_refused_from_the_headers(void)
{
    provd_local d;
    /* A limit under the 2 MiB body (the default, 32 MiB, is above it). */
    static const char *const limit[] = {"--max-body-bytes", "1048576", NULL};
    if (!start(&d, limit))
        return;
    char got[1024];
    announce_big_body(&d, "", got, sizeof got);
    CU_ASSERT_NSTRING_EQUAL(got, "HTTP/1.1 401", 12);
    announce_big_body(&d, "X-API-Key: wrong\r\n", got, sizeof got);
    CU_ASSERT_NSTRING_EQUAL(got, "HTTP/1.1 401", 12);
    announce_big_body(&d, "X-API-Key: " KEY "\r\n", got, sizeof got);
    CU_ASSERT_NSTRING_EQUAL(got, "HTTP/1.1 413", 12);
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "request body too large"));
    /* curl sends the body (after Expect: 100-continue) and sees the same. */
    char *big = malloc(2u << 20);
    CU_ASSERT_FATAL(big != NULL);
    memset(big, ' ', (2u << 20) - 1);
    big[(2u << 20) - 1] = '\0';
    static const char *const no_key[] = {"Content-Type: application/json", NULL};
    CU_ASSERT_EQUAL(call(&d, no_key, "POST", "/api/sandboxes", big), 401);
    free(big);
    provd_local_stop(&d, 0);
}

/* The daemon's resident memory in KiB (0: unknown). */
static long resident_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kib = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kib;
}

#define UNKEYED 48
#define UNKEYED_BODY (256u * 1024)

/* Unauthenticated clients that push big bodies hold next to no memory:
 * before, each held its body (about 1.3 MB). */
static void test_unauthenticated_bodies_hold_no_memory(void)
{
    static const char *const extra[] = {"--max-connections-per-address", "256", NULL};
    provd_local d;
    if (!start(&d, extra))
        return;
    CU_ASSERT_EQUAL(call(&d, NULL, "GET", "/health", NULL), 200);
    long before = resident_kib(provd_pid(d.proc));
    char *chunk = malloc(UNKEYED_BODY);
    CU_ASSERT_FATAL(chunk != NULL);
    memset(chunk, ' ', UNKEYED_BODY);
    int fds[UNKEYED];
    for (int i = 0; i < UNKEYED; i++) {
        fds[i] = connect_from(&d, "127.0.0.1");
        if (fds[i] < 0 || !send_text(fds[i], "POST /api/sandboxes HTTP/1.1\r\nHost: x\r\n"
                                             "Content-Length: 2097152\r\n\r\n"))
            continue;
        /* As much of the body as the socket takes without waiting. */
        if (send(fds[i], chunk, UNKEYED_BODY, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
            errno != EAGAIN && errno != ECONNRESET && errno != EPIPE)
            CU_FAIL("send failed");
    }
    free(chunk);
    int refused = 0;
    long deadline = sbx_test_now_ms() + TIMEOUT_MS;
    for (int i = 0; i < UNKEYED; i++) {
        char got[64] = "";
        if (fds[i] >= 0 && sbx_test_wait_readable(fds[i], deadline) == 1 &&
            read(fds[i], got, sizeof got - 1) > 0 && strncmp(got, "HTTP/1.1 401", 12) == 0)
            refused++;
    }
    long after = resident_kib(provd_pid(d.proc));
    CU_ASSERT_EQUAL(refused, UNKEYED);
    CU_ASSERT(before > 0 && after > 0);
    /* A small allowance per connection (libmicrohttpd's buffers, the
     * allocator's slack): the parts of the bodies sent, kept, would be
     * 12 MiB, and the whole bodies about 60 MiB. */
    CU_ASSERT(after - before < UNKEYED * 96);
    fprintf(stderr, "resident before %ld KiB, after %d unkeyed 2 MiB posts %ld KiB\n", before,
            UNKEYED, after);
    close_all(fds, UNKEYED);
    provd_local_stop(&d, 0);
}

/* A create held in the backend: the local backend waits for a command
 * that never listens. */
static const char *const stuck_backend[] = {"--set", "command=exec sleep 1000", "--set",
                                            "ready_timeout_ms=600000", NULL};

typedef struct client_call {
    char url[512];           /* built before the thread starts */
    int sent;                /* 0: a whole answer came */
    long status;
    CURLcode curl_code;
} client_call;

static void *create_main(void *arg)
{
    client_call *c = arg;
    sbx_test_http_result r;
    c->sent = sbx_test_http("POST", c->url, with_key,
                            "{\"sandbox_id\":\"stuck1\",\"thread_id\":\"t\",\"user_id\":\"u\"}",
                            TIMEOUT_MS * 2, &r);
    c->status = r.status;
    c->curl_code = r.curl_code;
    sbx_test_http_result_clear(&r);
    return NULL;
}

/* Whether the local backend has recorded sandbox `id` (its create is
 * under way) within the deadline. */
static int sandbox_recorded(const provd_local *d, const char *id)
{
    long deadline = sbx_test_now_ms() + TIMEOUT_MS;
    do {
        char *ids = provd_local_ids(d);
        int found = ids != NULL && strstr(ids, id) != NULL;
        free(ids);
        if (found)
            return 1;
    } while (poll(NULL, 0, 20) == 0 && sbx_test_now_ms() < deadline);
    return 0;
}

/* The daemon restarted on the same directories destroys what the held
 * create left (its state is consistent) and the command goes. */
static void destroy_left(provd_local *d)
{
    if (provd_local_restart(d, 0, (const char *const[]){"--api-key", KEY, NULL})) {
        long status = call(d, with_key, "DELETE", "/api/sandboxes/stuck1", NULL);
        CU_ASSERT(status == 200 || status == 204);
    }
    provd_local_stop(d, 0);
}

/* Start the daemon with a stuck backend and `drain` ms of drain, and a
 * create held in it (the client thread is started). */
static int start_stuck(provd_local *d, const char *drain, client_call *c, pthread_t *client)
{
    const char *extra[16];
    size_t n = 0;
    for (size_t i = 0; stuck_backend[i] != NULL; i++)
        extra[n++] = stuck_backend[i];
    extra[n++] = "--drain-ms";
    extra[n++] = drain;
    extra[n] = NULL;
    if (!start(d, extra))
        return 0;
    *c = (client_call){.sent = -1, .curl_code = CURLE_OK};
    snprintf(c->url, sizeof c->url, "%s/api/sandboxes", provd_url(d->proc));
    pthread_create(client, NULL, create_main, c);
    if (!sandbox_recorded(d, "stuck1")) {
        CU_FAIL("the held create made no sandbox in time");
        /* What the create was answered says why (a refusal, a timeout). */
        pthread_join(*client, NULL);
        fprintf(stderr, "held create: %s, status %ld (%s)\n",
                c->sent == 0 ? "answered" : "no answer", c->status,
                curl_easy_strerror(c->curl_code));
        provd_local_stop(d, 1);
        destroy_left(d);
        return 0;
    }
    return 1;
}

/* The client of a request cut at the drain's end got the 503 or EOF,
 * never a wait for its own timeout. */
static void expect_cut_answer(const client_call *c)
{
    CU_ASSERT(c->sent == 0 ? c->status == 503 : c->curl_code != CURLE_OPERATION_TIMEDOUT);
}

/* Allowed beyond the drain for the daemon to exit on a loaded machine
 * (the backend's own wait would be ten minutes). */
#define EXIT_MARGIN_MS 5000

/* SIGTERM with a create stuck in the backend: the daemon exits within the
 * drain (plus a margin), the client is answered 503 or sees EOF, and the
 * log names the request that was cut off. */
static void test_drain_is_a_bound_with_a_backend_call_stuck(void)
{
    provd_local d;
    client_call c;
    pthread_t client;
    if (!start_stuck(&d, "500", &c, &client))
        return;
    long t0 = sbx_test_now_ms();
    int status = provd_stop(d.proc);
    long took = sbx_test_now_ms() - t0;
    d.proc = NULL;
    pthread_join(client, NULL);
    fprintf(stderr, "exit %ld ms after SIGTERM (drain 500 ms)\n", took);
    CU_ASSERT_EQUAL(status, 0);
    CU_ASSERT(took < 500 + EXIT_MARGIN_MS);
    expect_cut_answer(&c);
    CU_ASSERT(provd_local_stderr_says(&d, TIMEOUT_MS,
                                      "POST /api/sandboxes: still running after the drain"));
    destroy_left(&d);
}

/* During the drain a request on a connection opened before SIGTERM is
 * answered 503, and the connection closed. */
static void test_requests_during_the_drain_are_503(void)
{
    provd_local d;
    client_call c;
    pthread_t client;
    if (!start_stuck(&d, "5000", &c, &client))
        return;
    int fd = connect_from(&d, "127.0.0.1");
    CU_ASSERT(fd >= 0);
    CU_ASSERT(send_text(fd, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"));
    char got[1024];
    CU_ASSERT(sbx_test_wait_readable(fd, sbx_test_now_ms() + TIMEOUT_MS) == 1 &&
              read(fd, got, sizeof got) > 0);
    long t0 = sbx_test_now_ms();
    kill(provd_pid(d.proc), SIGTERM);
    CU_ASSERT(provd_local_stderr_says(&d, TIMEOUT_MS, "no new connections"));
    CU_ASSERT(send_text(fd, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n"));
    CU_ASSERT(sbx_test_read_until_eof(fd, got, sizeof got, sbx_test_now_ms() + TIMEOUT_MS));
    CU_ASSERT_NSTRING_EQUAL(got, "HTTP/1.1 503", 12);
    CU_ASSERT_PTR_NOT_NULL(strstr(got, "shutting down"));
    close(fd);
    int status = provd_stop(d.proc);
    long took = sbx_test_now_ms() - t0;
    d.proc = NULL;
    pthread_join(client, NULL);
    CU_ASSERT_EQUAL(status, 0);
    CU_ASSERT(took < 5000 + EXIT_MARGIN_MS);
    expect_cut_answer(&c);
    destroy_left(&d);
}

/* The default connection cap (512) under a descriptor limit that cannot
 * hold it (hard 256, so that raising the soft one cannot help) is refused
 * at start, saying why. */
static void test_cap_beyond_descriptor_limit_is_refused(void)
{
    struct rlimit saved;
    CU_ASSERT_FATAL(getrlimit(RLIMIT_NOFILE, &saved) == 0);
    struct rlimit low = {256, 256};
    if (saved.rlim_max < 256 || setrlimit(RLIMIT_NOFILE, &low) != 0) {
        CU_FAIL("cannot set the descriptor limit for the daemon");
        return;
    }
    const char *const args[] = {"--listen", "127.0.0.1:0", NULL};
    char output[2048];
    int status = provd_run_refused(args, output, sizeof output);
    /* Raising the hard limit back needs root (the CI's case); the suite's
     * other tests need far fewer descriptors anyway. */
    setrlimit(RLIMIT_NOFILE, &saved);
    CU_ASSERT_EQUAL(status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(output, "open descriptors"));
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"flood_of_idle_sockets_leaves_others_served",
         test_flood_of_idle_sockets_leaves_others_served},
        {"idle_and_incomplete_connections_are_closed",
         test_idle_and_incomplete_connections_are_closed},
        {"slow_drip_request_is_cut_at_the_request_timeout",
         test_slow_drip_request_is_cut_at_the_request_timeout},
        {"big_body_is_refused_from_the_headers", test_big_body_is_refused_from_the_headers},
        {"unauthenticated_bodies_hold_no_memory", test_unauthenticated_bodies_hold_no_memory},
        {"drain_is_a_bound_with_a_backend_call_stuck",
         test_drain_is_a_bound_with_a_backend_call_stuck},
        {"requests_during_the_drain_are_503", test_requests_during_the_drain_are_503},
        {"cap_beyond_descriptor_limit_is_refused", test_cap_beyond_descriptor_limit_is_refused},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("provisiond_connections", NULL, NULL, tests);
}
