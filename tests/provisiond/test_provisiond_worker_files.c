/* Short file calls of sbx-provisiond's sandbox API answered on the HTTP
 * worker that read them (over the local backend, whose file calls are
 * local system calls): a token's share holds for them too (with
 * --sandbox-share 1 a read waits for the token's running exec); files,
 * listings and writes larger than --worker-file-bytes or 256 entries are
 * done whole on the pool, smaller ones on the worker (a short read is
 * answered while every sandbox thread runs a command, a long one waits
 * for a thread), and with --worker-file-bytes 0 every one on the pool,
 * the answers the same;
 * /health answers while a tenant floods small reads on every connection;
 * a bad --worker-file-bytes is refused naming it; a listing's FileInfos
 * carry size, modified_time and permissions as the AIO API writes them. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/http_probe.h"

/* Generous against a loaded machine; the expected path is fast. */
#define DEADLINE_MS 60000L

/* A file of `seq 1 SEQ_LAST`: 108894 bytes, past the bound the tests set. */
#define SEQ_LAST 20000

/* POST `body` to `route` of `token`: the result (clear it). */
static void post(const provd_local *d, const char *token, const char *route, const char *body,
                 sbx_test_http_result *r)
{
    char url[512];
    snprintf(url, sizeof url, "%s/s/%s%s", provd_url(d->proc), token, route);
    memset(r, 0, sizeof *r);
    CU_ASSERT_EQUAL(sbx_test_http("POST", url, NULL, body, DEADLINE_MS, r), 0);
}

/* Run `command` in the sandbox of `token`: 1 when it answered 200. */
static int run(const provd_local *d, const char *token, const char *command)
{
    char body[512];
    snprintf(body, sizeof body, "{\"command\":\"%s\"}", command);
    sbx_test_http_result r;
    post(d, token, "/v1/bash/exec", body, &r);
    int ok = r.status == 200 && r.body != NULL && strstr(r.body, "\"exit_code\":0") != NULL;
    sbx_test_http_result_clear(&r);
    CU_ASSERT_TRUE(ok);
    return ok;
}

/* What `seq 1 last` prints (free it). */
static char *seq_text(int last, size_t *len)
{
    char *text = malloc((size_t)last * 8 + 1);
    size_t n = 0;
    for (int i = 1; text != NULL && i <= last; i++)
        n += (size_t)sprintf(text + n, "%d\n", i);
    *len = n;
    return text;
}

/* GET /v1/file/download of `file`: whether it answered 200 with exactly
 * the `len` bytes at `want`. */
static int downloads_as(const provd_local *d, const char *token, const char *file,
                        const char *want, size_t len)
{
    char url[512];
    snprintf(url, sizeof url, "%s/s/%s/v1/file/download?path=%s", provd_url(d->proc), token,
             file);
    sbx_test_http_result r;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL(sbx_test_http("GET", url, NULL, NULL, DEADLINE_MS, &r), 0);
    int same = r.status == 200 && r.body_len == len && memcmp(r.body, want, len) == 0;
    sbx_test_http_result_clear(&r);
    return same;
}

/* POST /v1/file/read of `file`: whether its content is the `len` bytes
 * at `want` (digits and newlines: JSON-escaped as "\n"). */
static int reads_as(const provd_local *d, const char *token, const char *file, const char *want,
                    size_t len)
{
    char body[256];
    snprintf(body, sizeof body, "{\"file\":\"%s\"}", file);
    sbx_test_http_result r;
    post(d, token, "/v1/file/read", body, &r);
    char *escaped = malloc(len * 2 + 32);
    size_t n = (size_t)sprintf(escaped, "\"content\":\"");
    for (size_t i = 0; i < len; i++) {
        if (want[i] == '\n') {
            escaped[n++] = '\\';
            escaped[n++] = 'n';
        } else {
            escaped[n++] = want[i];
        }
    }
    escaped[n++] = '"';
    escaped[n] = '\0';
    int same = r.status == 200 && r.body != NULL && strstr(r.body, escaped) != NULL;
    free(escaped);
    sbx_test_http_result_clear(&r);
    return same;
}

/* POST /v1/file/list of `dir`: its total_count, -1 when it failed. */
static long listed(const provd_local *d, const char *token, const char *dir)
{
    char body[256];
    snprintf(body, sizeof body, "{\"path\":\"%s\"}", dir);
    sbx_test_http_result r;
    post(d, token, "/v1/file/list", body, &r);
    const char *count = r.body != NULL ? strstr(r.body, "\"total_count\":") : NULL;
    long n = r.status == 200 && count != NULL ? strtol(count + 14, NULL, 10) : -1;
    sbx_test_http_result_clear(&r);
    return n;
}

/* POST /v1/file/write of `len` bytes of "abc..." to `file`: whether it
 * wrote them. */
static int writes(const provd_local *d, const char *token, const char *file, size_t len)
{
    char *body = malloc(len + 256);
    int head = sprintf(body, "{\"file\":\"%s\",\"content\":\"", file);
    for (size_t i = 0; i < len; i++)
        body[head + (int)i] = "abc"[i % 3];
    sprintf(body + head + len, "\"}");
    sbx_test_http_result r;
    post(d, token, "/v1/file/write", body, &r);
    char expected[64];
    snprintf(expected, sizeof expected, "\"bytes_written\":%zu", len);
    int wrote = r.status == 200 && r.body != NULL && strstr(r.body, expected) != NULL;
    sbx_test_http_result_clear(&r);
    free(body);
    return wrote;
}

/* Every file call, small and past a 4 KiB bound, answers right on a
 * daemon started with `worker_bytes`. */
static void file_calls_are_whole_and_right(const char *worker_bytes)
{
    const char *const extra[] = {"--worker-file-bytes", worker_bytes, NULL};
    provd_local d;
    char token[PROVD_TEST_TOKEN_LEN + 1];
    if (!provd_local_start(&d, 0, extra))
        return;
    size_t big_len = 0;
    char *big = seq_text(SEQ_LAST, &big_len);
    CU_ASSERT_EQUAL(big_len, 108894);
    if (provd_create_token(provd_url(d.proc), "files", "u", token) &&
        run(&d, token, "seq 1 20000 > big; seq 1 3 > small; mkdir few many; "
                       "touch few/a few/b; for i in $(seq 1 300); do : > many/$i; done")) {
        CU_ASSERT_TRUE(downloads_as(&d, token, "big", big, big_len));
        CU_ASSERT_TRUE(downloads_as(&d, token, "small", "1\n2\n3\n", 6));
        CU_ASSERT_TRUE(reads_as(&d, token, "big", big, big_len));
        CU_ASSERT_TRUE(reads_as(&d, token, "small", "1\n2\n3\n", 6));
        CU_ASSERT_EQUAL(listed(&d, token, "many"), 300);
        CU_ASSERT_EQUAL(listed(&d, token, "few"), 2);
        CU_ASSERT_TRUE(writes(&d, token, "wide", 30000));
        CU_ASSERT_TRUE(writes(&d, token, "short", 30));
        CU_ASSERT_TRUE(run(&d, token, "test $(wc -c < wide) = 30000 && test $(wc -c < short) = 30"));
        /* A missing file is answered as before, on either path. */
        CU_ASSERT_FALSE(downloads_as(&d, token, "absent", "", 0));
    }
    free(big);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

static void test_file_calls_past_and_within_the_bound_are_whole_and_right(void)
{
    file_calls_are_whole_and_right("4096");
}

static void test_file_calls_all_on_the_pool_are_whole_and_right(void)
{
    file_calls_are_whole_and_right("0");
}

/* POST /v1/file/list of `dir` with permissions: whether the answer (200)
 * holds `want`. */
static int lists_with(const provd_local *d, const char *token, const char *dir, const char *want)
{
    char body[256];
    snprintf(body, sizeof body, "{\"path\":\"%s\",\"include_permissions\":true}", dir);
    sbx_test_http_result r;
    post(d, token, "/v1/file/list", body, &r);
    int holds = r.status == 200 && r.body != NULL && strstr(r.body, want) != NULL;
    if (!holds)
        fprintf(stderr, "list of %s: no %s in %s\n", dir, want, r.body != NULL ? r.body : "");
    sbx_test_http_result_clear(&r);
    return holds;
}

static void test_a_listing_writes_sizes_times_and_permissions(void)
{
    provd_local d;
    char token[PROVD_TEST_TOKEN_LEN + 1];
    if (!provd_local_start(&d, 0, NULL))
        return;
    /* A leap day, the epoch, and a time past 32 bits of seconds. */
    if (provd_create_token(provd_url(d.proc), "times", "u", token) &&
        run(&d, token, "mkdir t && cd t && printf abc > leap && chmod 640 leap && "
                       "touch -d @951827696.789 leap && : > late && chmod 7 late && "
                       "touch -d @2147483648.5 late && mkdir sub && touch -d @0 sub")) {
        CU_ASSERT_TRUE(lists_with(&d, token, "t",
                                  "\"name\":\"leap\",\"path\":\"t/leap\",\"is_directory\":false,"
                                  "\"size\":3,\"modified_time\":\"2000-02-29T12:34:56.789000\","
                                  "\"permissions\":\"640\",\"extension\":null}"));
        CU_ASSERT_TRUE(lists_with(&d, token, "t",
                                  "\"modified_time\":\"2038-01-19T03:14:08.500000\","
                                  "\"permissions\":\"7\""));
        CU_ASSERT_TRUE(lists_with(&d, token, "t",
                                  "\"is_directory\":true,\"size\":0,"
                                  "\"modified_time\":\"1970-01-01T00:00:00.000000\""));
    }
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* Whether `fd` has an answer to read before `deadline`. */
static int answered_by(int fd, long deadline)
{
    for (;;) {
        long left = deadline - sbx_test_now_ms();
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0)
            return 0;
        int n = poll(&p, 1, (int)(left < 1000 ? left : 1000));
        if (n > 0)
            return 1;
    }
}

/* Send a request on a connection of its own and leave it waiting for the
 * answer: the socket, or -1. */
static int sent(const provd_local *d, const char *token, const char *route, const char *body)
{
    char request[1024];
    snprintf(request, sizeof request,
             "POST /s/%s%s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
             "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
             token, route, strlen(body), body);
    int fd = provd_connect(provd_url(d->proc));
    if (fd >= 0 && send(fd, request, strlen(request), MSG_NOSIGNAL) != (ssize_t)strlen(request)) {
        close(fd);
        fd = -1;
    }
    CU_ASSERT(fd >= 0);
    return fd;
}

/* Close those of the `count` sockets that are open (not -1). */
static void close_open(const int *fds, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (fds[i] >= 0)
            close(fds[i]);
    }
}

/* Start an exec of `command` for `token` and wait until it runs: its
 * socket, or -1 after a CUnit failure. */
static int running(const provd_local *d, const char *token, const char *command)
{
    char body[128];
    snprintf(body, sizeof body, "{\"command\":\"%s\"}", command);
    int fd = sent(d, token, "/v1/bash/exec", body);
    long deadline = sbx_test_now_ms() + DEADLINE_MS;
    while (!provd_running_with(command) && sbx_test_now_ms() < deadline)
        ;
    CU_ASSERT_TRUE(provd_running_with(command));
    return fd;
}

static void test_a_small_read_is_answered_while_every_sandbox_thread_is_busy(void)
{
    /* Two sandbox threads, one per token: two tokens' commands take both. */
    const char *const extra[] = {"--threads", "2", "--sandbox-share", "1",
                                 "--worker-file-bytes", "4096", NULL};
    provd_local d;
    char a[PROVD_TEST_TOKEN_LEN + 1], b[PROVD_TEST_TOKEN_LEN + 1], c[PROVD_TEST_TOKEN_LEN + 1];
    if (!provd_local_start(&d, 0, extra))
        return;
    int a_fd = -1, b_fd = -1, big_fd = -1;
    if (provd_create_token(provd_url(d.proc), "busy-a", "u", a) &&
        provd_create_token(provd_url(d.proc), "busy-b", "u", b) &&
        provd_create_token(provd_url(d.proc), "reader", "u", c) &&
        run(&d, c, "seq 1 3 > small; seq 1 20000 > big")) {
        a_fd = running(&d, a, "sleep 8813");
        b_fd = running(&d, b, "sleep 8823");
        /* The short read is the worker's: answered at once... */
        CU_ASSERT_TRUE(reads_as(&d, c, "small", "1\n2\n3\n", 6));
        /* ...the long one is the pool's, and waits for a thread. */
        big_fd = sent(&d, c, "/v1/file/read", "{\"file\":\"big\"}");
        CU_ASSERT_FALSE(answered_by(big_fd, sbx_test_now_ms() + 500));
        close(a_fd);
        a_fd = -1;
        CU_ASSERT_TRUE(answered_by(big_fd, sbx_test_now_ms() + DEADLINE_MS));
    }
    const int left[] = {a_fd, b_fd, big_fd};
    close_open(left, 3);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

static void test_a_small_read_waits_while_its_token_runs_its_share(void)
{
    const char *const extra[] = {"--sandbox-share", "1", NULL};
    provd_local d;
    char token[PROVD_TEST_TOKEN_LEN + 1];
    if (!provd_local_start(&d, 0, extra))
        return;
    int exec_fd = -1, read_fd = -1;
    if (provd_create_token(provd_url(d.proc), "shared", "u", token) &&
        run(&d, token, "echo tiny > small")) {
        exec_fd = running(&d, token, "sleep 8713");
        read_fd = sent(&d, token, "/v1/file/read", "{\"file\":\"small\"}");
        /* The token's one share runs the exec: the read, short as it is,
         * waits for it... */
        CU_ASSERT_FALSE(answered_by(read_fd, sbx_test_now_ms() + 500));
        close(exec_fd);
        exec_fd = -1;
        /* ...and is answered once it ends. */
        CU_ASSERT_TRUE(answered_by(read_fd, sbx_test_now_ms() + DEADLINE_MS));
        char got[2048];
        ssize_t n = recv(read_fd, got, sizeof got - 1, 0);
        got[n > 0 ? n : 0] = '\0';
        CU_ASSERT_PTR_NOT_NULL(strstr(got, "HTTP/1.1 200"));
        CU_ASSERT_PTR_NOT_NULL(strstr(got, "\"content\":\"tiny\\n\""));
    }
    const int left[] = {exec_fd, read_fd};
    close_open(left, 2);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* Flooders: small reads, one after another, each on a new connection,
 * until told to stop. */
#define FLOODERS 8

typedef struct flooder {
    const provd_local *d;
    const char *token;
    volatile int *stop;
    long reads, failures;
} flooder;

static void *flood(void *arg)
{
    flooder *f = arg;
    char url[512];
    snprintf(url, sizeof url, "%s/s/%s/v1/file/read", provd_url(f->d->proc), f->token);
    while (!*f->stop) {
        sbx_test_http_result r;
        memset(&r, 0, sizeof r);
        if (sbx_test_http("POST", url, NULL, "{\"file\":\"small\"}", DEADLINE_MS, &r) != 0 ||
            (r.status != 200 && r.status != 429))
            f->failures++;
        f->reads++;
        sbx_test_http_result_clear(&r);
    }
    return NULL;
}

static void test_health_answers_while_a_tenant_floods_small_reads(void)
{
    /* Two workers, both a flooding tenant's to take. */
    const char *const extra[] = {"--threads", "2", "--sandbox-share", "2", NULL};
    provd_local d;
    char token[PROVD_TEST_TOKEN_LEN + 1];
    if (!provd_local_start(&d, 0, extra))
        return;
    if (provd_create_token(provd_url(d.proc), "flood", "u", token) &&
        run(&d, token, "seq 1 1000 > small")) {
        volatile int stop = 0;
        flooder f[FLOODERS];
        pthread_t ids[FLOODERS];
        int started = 0;
        for (; started < FLOODERS; started++) {
            f[started] = (flooder){&d, token, &stop, 0, 0};
            if (pthread_create(&ids[started], NULL, flood, &f[started]) != 0)
                break;
        }
        CU_ASSERT_EQUAL(started, FLOODERS);
        long slowest = 0;
        for (int i = 0; i < 20; i++) {
            long began = sbx_test_now_ms();
            CU_ASSERT_EQUAL(provd_request(provd_url(d.proc), (provd_send){"GET", "/health", NULL},
                                          DEADLINE_MS, NULL, 0),
                            200);
            long took = sbx_test_now_ms() - began;
            slowest = took > slowest ? took : slowest;
        }
        stop = 1;
        long reads = 0, failures = 0;
        for (int i = 0; i < started; i++) {
            pthread_join(ids[i], NULL);
            reads += f[i].reads;
            failures += f[i].failures;
        }
        CU_ASSERT_EQUAL(failures, 0);
        fprintf(stderr, "20 /health beside %ld flooding reads: the slowest took %ld ms\n", reads,
                slowest);
    }
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

static void test_a_bad_worker_file_bytes_is_refused_naming_it(void)
{
    static const char *const bad[] = {"x", "-1", "4194305", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *const args[] = {"--listen", "127.0.0.1:0", "--worker-file-bytes", bad[i],
                                    NULL};
        char output[2048];
        CU_ASSERT_EQUAL(provd_run_refused(args, output, sizeof output), 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(output, "--worker-file-bytes"));
    }
}

void sbx_test_register(void)
{
    static CU_TestInfo tests[] = {
        {"file calls past and within the bound are whole and right",
         test_file_calls_past_and_within_the_bound_are_whole_and_right},
        {"file calls all on the pool are whole and right",
         test_file_calls_all_on_the_pool_are_whole_and_right},
        {"a small read waits while its token runs its share",
         test_a_small_read_waits_while_its_token_runs_its_share},
        {"a small read is answered while every sandbox thread is busy",
         test_a_small_read_is_answered_while_every_sandbox_thread_is_busy},
        {"/health answers while a tenant floods small reads",
         test_health_answers_while_a_tenant_floods_small_reads},
        {"a listing writes sizes, times and permissions",
         test_a_listing_writes_sizes_times_and_permissions},
        {"a bad --worker-file-bytes is refused naming it",
         test_a_bad_worker_file_bytes_is_refused_naming_it},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbx-provisiond file calls on the worker", NULL, NULL, tests);
}
