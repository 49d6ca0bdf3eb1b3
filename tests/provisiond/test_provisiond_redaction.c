/* No capability token in any message: sbx-provisiond started with a known
 * sandbox (its token read from the create's answer) prints, with
 * --verbose, near misses of the sandbox API path ("//s/TOKEN", "/s//TOKEN",
 * "/S/TOKEN", an upper-case or truncated token, a token as a method or in
 * a lifecycle path) with the token masked as "..."; the drain names a
 * sandbox API request still running without its token (no --verbose);
 * the remote backend, whose sandbox URLs point at an address nothing
 * listens on, reports the failure to its host (error and debug line)
 * without the token. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/remote_helpers.h"

#define TOKEN_LEN 64
#define REQUEST_MS 30000L
/* The masking leaves runs of hex digits shorter than this: any longer
 * piece of the token in a text is a leak. */
#define PIECE 16

/* Whether `text` holds a PIECE-character piece of `token`, in any case. */
static int holds_token_piece(const char *text, const char *token)
{
    char piece[PIECE + 1];
    for (size_t at = 0; at + PIECE <= strlen(token); at++) {
        memcpy(piece, token + at, PIECE);
        piece[PIECE] = '\0';
        if (strcasestr(text, piece) != NULL)
            return 1;
    }
    return 0;
}

/* What the daemon of `d` wrote to stderr so far, malloc'd ("" when none). */
static char *stderr_text(const provd_local *d)
{
    FILE *f = fopen(d->stderr_path, "r");
    size_t cap = 1 << 20, got = 0;
    char *text = calloc(1, cap);
    if (text != NULL && f != NULL)
        got = fread(text, 1, cap - 1, f);
    if (text != NULL)
        text[got] = '\0';
    if (f != NULL)
        fclose(f);
    return text;
}

/* Create sandbox `id` with a plain HTTP request and copy its token (after
 * "/s/" in the answer's sandbox_url) into `token` (TOKEN_LEN + 1 bytes).
 * Returns 1, or 0 after a CUnit failure. */
static int create_token(const provd_local *d, const char *id, char *token)
{
    char answer[2048];
    long status = provd_create(provd_url(d->proc), id, "u", REQUEST_MS, answer, sizeof answer);
    CU_ASSERT_EQUAL(status, 200);
    const char *mark = strstr(answer, "/s/");
    int ok = status == 200 && mark != NULL &&
             strspn(mark + 3, "0123456789abcdef") == TOKEN_LEN;
    CU_ASSERT_TRUE(ok);
    if (ok)
        snprintf(token, TOKEN_LEN + 1, "%s", mark + 3);
    return ok;
}

/* --verbose: each near miss of a sandbox API path is logged with its
 * token masked, as the exact path is. */
static void test_verbose_lines_mask_tokens_of_near_misses(void)
{
    provd_local d;
    const char *const extra[] = {"--verbose", NULL};
    if (!provd_local_start(&d, 1, extra))
        return;
    char token[TOKEN_LEN + 1];
    if (create_token(&d, "near", token)) {
        char upper[TOKEN_LEN + 1];
        for (size_t i = 0; i <= TOKEN_LEN; i++)
            upper[i] = (char)toupper((unsigned char)token[i]);
        /* Each path is `before` TOKEN `after`. */
        static const struct {
            const char *before, *after, *shown;
        } misses[] = {
            {"/s/", "/v1/sandbox", "GET /s/.../v1/sandbox -> 200"},
            {"//s/", "/v1/sandbox", "GET //s/.../v1/sandbox -> 404"},
            {"/s//", "/v1/sandbox", "GET /s//.../v1/sandbox -> 404"},
            {"/S/", "/v1/sandbox", "GET /S/.../v1/sandbox -> 404"},
            {"/s/", "x/v1/sandbox", "GET /s/...x/v1/sandbox -> 404"},
            {"/s/x", "/v1/sandbox", "GET /s/x.../v1/sandbox -> 404"},
            {"/api/sandboxes/", "", "GET /api/sandboxes/... -> "},
        };
        char path[256];
        for (size_t i = 0; i < sizeof misses / sizeof misses[0]; i++) {
            snprintf(path, sizeof path, "%s%s%s", misses[i].before, token, misses[i].after);
            provd_request(provd_url(d.proc), (provd_send){"GET", path, NULL}, REQUEST_MS, NULL, 0);
        }
        snprintf(path, sizeof path, "/s/%s/v1/sandbox", upper);
        provd_request(provd_url(d.proc), (provd_send){"GET", path, NULL}, REQUEST_MS, NULL, 0);
        snprintf(path, sizeof path, "/s/%.*s/v1/sandbox", TOKEN_LEN - 1, token);
        provd_request(provd_url(d.proc), (provd_send){"GET", path, NULL}, REQUEST_MS, NULL, 0);
        /* A client chooses the method too. */
        provd_request(provd_url(d.proc), (provd_send){token, "/health", NULL}, REQUEST_MS, NULL, 0);
        /* The line of the last request is written before its answer. */
        CU_ASSERT_TRUE(provd_local_stderr_says(&d, REQUEST_MS, "... /health -> "));
        char *log = stderr_text(&d);
        CU_ASSERT_PTR_NOT_NULL_FATAL(log);
        for (size_t i = 0; i < sizeof misses / sizeof misses[0]; i++) {
            CU_ASSERT_PTR_NOT_NULL(strstr(log, misses[i].shown));
            if (strstr(log, misses[i].shown) == NULL)
                fprintf(stderr, "not logged: %s\n", misses[i].shown);
        }
        CU_ASSERT_FALSE(holds_token_piece(log, token));
        if (holds_token_piece(log, token))
            fprintf(stderr, "the log holds the token:\n%s", log);
        free(log);
    }
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* A sandbox API exec sent by a thread, answered when the daemon stops. */
typedef struct exec_call {
    char base[128];
    char path[128];
    long status;
} exec_call;

static void *exec_main(void *arg)
{
    exec_call *c = arg;
    c->status =
        provd_request(c->base,
                      (provd_send){"POST", c->path,
                                   "{\"command\":\"touch started; sleep 30\",\"hard_timeout\":30}"},
                      60000L, NULL, 0);
    return NULL;
}

/* Whether `path` exists within REQUEST_MS. */
static int appears(const char *path)
{
    long deadline = sbx_test_now_ms() + REQUEST_MS;
    while (access(path, F_OK) != 0) {
        if (sbx_test_now_ms() >= deadline)
            return 0;
        poll(NULL, 0, 20);
    }
    return 1;
}

/* Without --verbose, the drain names a request still running, its token
 * masked. */
static void test_drain_names_a_running_request_without_its_token(void)
{
    provd_local d;
    const char *const extra[] = {"--drain-ms", "200", NULL};
    if (!provd_local_start(&d, 1, extra))
        return;
    char token[TOKEN_LEN + 1];
    if (!create_token(&d, "drained", token)) {
        provd_local_stop(&d, 0);
        return;
    }
    exec_call c = {.status = 0};
    snprintf(c.base, sizeof c.base, "%s", provd_url(d.proc));
    snprintf(c.path, sizeof c.path, "/s/%s/v1/bash/exec", token);
    pthread_t client;
    pthread_create(&client, NULL, exec_main, &c);
    char started[400];
    snprintf(started, sizeof started, "%s/drained/started", d.local_dir);
    CU_ASSERT_TRUE(appears(started));
    CU_ASSERT_EQUAL(provd_stop(d.proc), 0);
    d.proc = NULL;
    pthread_join(client, NULL);
    CU_ASSERT_TRUE(provd_local_stderr_says(
        &d, REQUEST_MS, "POST /s/.../v1/bash/exec: still running after the drain"));
    char *log = stderr_text(&d);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    CU_ASSERT_FALSE(holds_token_piece(log, token));
    if (holds_token_piece(log, token))
        fprintf(stderr, "the log holds the token:\n%s", log);
    free(log);
    /* The sandbox goes with its command. */
    if (provd_local_restart(&d, 1, NULL))
        CU_ASSERT_EQUAL(provd_request(provd_url(d.proc),
                                      (provd_send){"DELETE", "/api/sandboxes/drained", NULL},
                                      REQUEST_MS, NULL, 0),
                        200);
    provd_local_stop(&d, 0);
}

/* A TCP port on 127.0.0.1 bound and never listened on: a connection to
 * it is refused for as long as `*fd` stays open. */
static unsigned closed_port(int *fd)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof addr;
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    if (*fd < 0 || bind(*fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockname(*fd, (struct sockaddr *)&addr, &len) != 0)
        return 0;
    return ntohs(addr.sin_port);
}

/* The remote backend cannot reach a sandbox's API: its error and its
 * debug line name the address without the token. */
static void test_remote_unreachable_sandbox_api_hides_the_token(void)
{
    int fd = -1;
    unsigned port = closed_port(&fd);
    CU_ASSERT_NOT_EQUAL_FATAL(port, 0);
    char public_url[64];
    snprintf(public_url, sizeof public_url, "http://127.0.0.1:%u", port);
    provd_local d;
    const char *const extra[] = {"--public-url", public_url, NULL};
    sbx_test_log_capture *capture = sbx_test_log_capture_new();
    sbx_host *host = sbx_test_host_new(capture);
    if (host == NULL || !provd_local_start(&d, 1, extra)) {
        CU_FAIL("no host or daemon");
        sbx_host_free(host);
        sbx_test_log_capture_free(capture);
        close(fd);
        return;
    }
    sbx_error err;
    sbx_backend *b = sbx_test_open_remote(&host, provd_url(d.proc), NULL, NULL, 0, &err);
    CU_ASSERT_PTR_NOT_NULL(b);
    char token[TOKEN_LEN + 1];
    if (b != NULL && create_token(&d, "far", token)) {
        char shown[96];
        snprintf(shown, sizeof shown, "%s/...", public_url);
        sbx_exec_result *r = NULL;
        sbx_status st = sbx_test_shell(b, "far", &(sbx_test_command){ .text = "true" }, &r, &err);
        sbx_backend_free_exec_result(b, r);
        CU_ASSERT_EQUAL(st, SBX_ERR_TRANSPORT);
        fprintf(stderr, "exec: %s\n", err.message);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, shown));
        CU_ASSERT_FALSE(holds_token_piece(err.message, token));
        sbx_dir_listing *listing = NULL;
        st = sbx_backend_list_dir(b, "far", "/", 1, 10, &listing, &err);
        sbx_backend_free_listing(b, listing);
        CU_ASSERT_EQUAL(st, SBX_ERR_TRANSPORT);
        fprintf(stderr, "list_dir: %s\n", err.message);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, shown));
        CU_ASSERT_FALSE(holds_token_piece(err.message, token));
        char *log = sbx_test_log_text(capture);
        CU_ASSERT_PTR_NOT_NULL_FATAL(log);
        CU_ASSERT_PTR_NOT_NULL(strstr(log, shown));
        CU_ASSERT_FALSE(holds_token_piece(log, token));
        free(log);
    }
    sbx_backend_close(b);
    sbx_host_free(host);
    sbx_test_log_capture_free(capture);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
    close(fd);
}

void sbx_test_register(void)
{
    static CU_TestInfo tests[] = {
        {"--verbose lines mask the tokens of near misses",
         test_verbose_lines_mask_tokens_of_near_misses},
        {"the drain names a running request without its token",
         test_drain_names_a_running_request_without_its_token},
        {"the remote backend hides the token of an unreachable sandbox API",
         test_remote_unreachable_sandbox_api_hides_the_token},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbx-provisiond: no token in any message", NULL, NULL, tests);
}
