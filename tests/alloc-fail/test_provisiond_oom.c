/*
 * sbx-provisiond under allocation failures.  A test build of the daemon
 * (tests/alloc-fail/sbx-provisiond-failalloc: the daemon's sources linked
 * with fail_alloc.c and fail_alloc_control.c) runs over the local backend
 * on 127.0.0.1 with its ownership records on disk.  For each request below
 * and N = 1, 2, ..., the test arms the daemon through its control channel
 * so that the Nth allocation after the trigger fails, on whichever thread
 * makes it (the daemon's own code, libsbx-provisioner, libsbx-host and its
 * local backend, libmicrohttpd, and json-c building and writing the
 * answers: json-c's parser is exempt, see fail_alloc_json.c), sends the
 * request, and disarms.  The loop ends with the first run in which fewer
 * than N allocations were made.
 *
 * What a client must see each time: the request's normal answer (its
 * status and, byte for byte, the body of the same request answered without
 * failures), a 5xx whose body is JSON with a "detail" text, or the
 * connection closed without an answer; never another 2xx or 4xx (a short
 * or false body, or a request called wrong that was not), a hang or a
 * crash.  Then the daemon must still be alive and answer the same request,
 * sent again without failures, normally: a client's retry works.
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/http_probe.h"
#include "tests/support/subprocess.h"

/* More allocations than any one request makes: a run that still injects
 * a failure at this N means the loop would not end. */
#define MAX_FAILURE_POINT 5000
#define TIMEOUT_MS 10000

#define CREATE_BODY(id) "{\"sandbox_id\":\"" id "\",\"user_id\":\"alice\",\"thread_id\":\"t-1\"}"

static provd_local daemon_dir;
static int control_fd = -1;

/* Send `command` on the control channel and read its one-line answer
 * into `answer`.  Returns 1, or 0 when the daemon did not answer in time. */
static int control(const char *command, char *answer, size_t cap)
{
    char line[64];
    int len = snprintf(line, sizeof line, "%s\n", command);
    /* MSG_NOSIGNAL: a daemon that died is a failure to report, not a
     * SIGPIPE that ends the test. */
    if (send(control_fd, line, (size_t)len, MSG_NOSIGNAL) != len)
        return 0;
    long deadline = sbx_test_now_ms() + TIMEOUT_MS;
    size_t got = 0;
    while (got + 1 < cap) {
        if (sbx_test_wait_readable(control_fd, deadline) != 1 ||
            read(control_fd, &answer[got], 1) != 1)
            return 0;
        if (answer[got] == '\n')
            break;
        got++;
    }
    answer[got] = '\0';
    return 1;
}

/* One request to the daemon; *out holds the answer (clear it). */
/* Each new sandbox gets a fresh sandbox API token (BASE/s/TOKEN): the
 * answers compare equal with the tokens masked. */
static void mask_tokens(char *body)
{
    for (char *p = body; p != NULL && (p = strstr(p, "/s/")) != NULL; p += 3) {
        size_t hex = strspn(p + 3, "0123456789abcdef");
        if (hex == 64)
            memset(p + 3, 'T', hex);
    }
}

static void send_request(const char *method, const char *path, const char *body,
                         sbx_test_http_result *out)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", provd_url(daemon_dir.proc), path);
    sbx_test_http(method, url, NULL, body, TIMEOUT_MS, out);
    mask_tokens(out->body);
}

/* The normal answer of a case: its body, answered without failures. */
static char *reference_body;

/* The status of one request sent without failures (-1: no answer). */
static long plain(const char *method, const char *path, const char *body)
{
    sbx_test_http_result r;
    send_request(method, path, body, &r);
    long status = r.curl_code == CURLE_OK ? r.status : -1;
    sbx_test_http_result_clear(&r);
    return status;
}

static int daemon_alive(void)
{
    pid_t pid = provd_pid(daemon_dir.proc);
    int status = 0;
    return waitpid(pid, &status, WNOHANG) == 0 && kill(pid, 0) == 0;
}

/* Start the test build of the daemon with a fresh directory and a control
 * channel, and create the sandbox the reading requests find.  Returns 1,
 * or 0 after a CUnit failure. */
static int start_daemon(void)
{
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        CU_FAIL("socketpair failed");
        return 0;
    }
    /* The daemon's end survives its exec; the test's does not. */
    char fd_text[16], bin[1024];
    snprintf(fd_text, sizeof fd_text, "%d", pair[1]);
    const char *builddir = getenv("SBX_TEST_BUILDDIR");
    snprintf(bin, sizeof bin, "%s/tests/alloc-fail/sbx-provisiond-failalloc",
             builddir != NULL ? builddir : ".");
    int flags = fcntl(pair[1], F_GETFD);
    int ready = flags >= 0 && fcntl(pair[1], F_SETFD, flags & ~FD_CLOEXEC) == 0 &&
                setenv("SBX_FAIL_ALLOC_CONTROL_FD", fd_text, 1) == 0 &&
                setenv("SBX_PROVISIOND_BIN", bin, 1) == 0;
    CU_ASSERT(ready);
    int started = ready && provd_local_start(&daemon_dir, 1, NULL);
    close(pair[1]);
    control_fd = pair[0];
    if (!started) {
        close(control_fd);
        control_fd = -1;
        return 0;
    }
    char answer[64];
    /* The channel answers: the control thread runs in the daemon. */
    CU_ASSERT(control("disarm", answer, sizeof answer) && strncmp(answer, "seen ", 5) == 0);
    CU_ASSERT_EQUAL(plain("POST", "/api/sandboxes", CREATE_BODY("oom-kept")), 200);
    return 1;
}

static void stop_daemon(void)
{
    CU_ASSERT_EQUAL(provd_local_stop(&daemon_dir, 0), 0);
    close(control_fd);
    control_fd = -1;
}

/* One request under test: its normal answer, and what puts the state back
 * before each run (NULL: nothing) and after it (NULL: nothing). */
typedef struct request_case {
    const char *name;
    const char *method;
    const char *path;
    const char *body;
    long status;
    const char *contains;
    void (*before)(void);
    void (*after)(void);
    const char *content_type;   /* of the normal answer; NULL: application/json */
} request_case;

static void recreate_gone(void)
{
    CU_ASSERT_EQUAL(plain("POST", "/api/sandboxes", CREATE_BODY("oom-gone")), 200);
}

static void delete_new(void)
{
    CU_ASSERT_EQUAL(plain("DELETE", "/api/sandboxes/oom-new", NULL), 200);
}

/* What the runs of one request ended with, for the log. */
typedef struct tally {
    unsigned long normal, closed, by_status[100];
} tally;

static int is_json(const sbx_test_http_result *r)
{
    return r->content_type != NULL && strncmp(r->content_type, "application/json", 16) == 0;
}

/* Whether `r` has the content type of case `c`'s normal answer. */
static int typed_as(const request_case *c, const sbx_test_http_result *r)
{
    return c->content_type == NULL ? is_json(r)
                                   : r->content_type != NULL &&
                                         strcmp(r->content_type, c->content_type) == 0;
}

/* Check one answer given with the Nth allocation failing; count it. */
static void judge(const request_case *c, unsigned long n, const sbx_test_http_result *r,
                  tally *t)
{
    if (r->curl_code != CURLE_OK) {
        /* Closed without an answer (libmicrohttpd's way out), never hung. */
        int closed = r->curl_code == CURLE_GOT_NOTHING || r->curl_code == CURLE_RECV_ERROR ||
                     r->curl_code == CURLE_SEND_ERROR;
        if (!closed)
            fprintf(stderr, "%s, allocation %lu failing: %s\n", c->name, n,
                    curl_easy_strerror(r->curl_code));
        CU_ASSERT(closed);
        t->closed++;
        return;
    }
    if (r->status == c->status && strcmp(r->body, reference_body) == 0 && typed_as(c, r)) {
        t->normal++;
        return;
    }
    json_object *json = json_tokener_parse(r->body);
    json_object *detail = NULL;
    int good = r->status >= 500 && r->status <= 599 && json != NULL &&
               json_object_object_get_ex(json, "detail", &detail) &&
               json_object_is_type(detail, json_type_string) &&
               json_object_get_string_len(detail) > 0 && is_json(r);
    if (!good)
        fprintf(stderr, "%s, allocation %lu failing: %ld %s\n", c->name, n, r->status,
                r->body);
    CU_ASSERT(good);
    if (good)
        t->by_status[r->status - 500]++;
    json_object_put(json);
}

/* The body of the case's request answered without failures (NULL after
 * a CUnit failure): what every normal answer must repeat exactly. */
static char *answer_without_failures(const request_case *c)
{
    if (c->before != NULL)
        c->before();
    sbx_test_http_result r;
    send_request(c->method, c->path, c->body, &r);
    int normal = r.curl_code == CURLE_OK && r.status == c->status && r.body != NULL &&
                 strstr(r.body, c->contains) != NULL && typed_as(c, &r);
    if (!normal)
        fprintf(stderr, "%s without failures: %ld %s\n", c->name, r.status,
                r.body != NULL ? r.body : "");
    CU_ASSERT(normal);
    char *body = normal ? strdup(r.body) : NULL;
    sbx_test_http_result_clear(&r);
    if (c->after != NULL)
        c->after();
    return body;
}

static void torture(const request_case *c)
{
    if (!start_daemon())
        return;
    reference_body = answer_without_failures(c);
    if (reference_body == NULL) {
        stop_daemon();
        return;
    }
    tally t;
    memset(&t, 0, sizeof t);
    unsigned long n = 1;
    for (; n <= MAX_FAILURE_POINT; n++) {
        if (c->before != NULL)
            c->before();
        char command[32], answer[64];
        snprintf(command, sizeof command, "arm %lu", n);
        if (!control(command, answer, sizeof answer) || strcmp(answer, "armed") != 0) {
            CU_FAIL("the daemon's control channel did not arm");
            break;
        }
        sbx_test_http_result r;
        send_request(c->method, c->path, c->body, &r);
        if (!control("disarm", answer, sizeof answer) || strncmp(answer, "seen ", 5) != 0) {
            CU_FAIL("the daemon's control channel did not answer: did it die?");
            sbx_test_http_result_clear(&r);
            break;
        }
        unsigned long seen = strtoul(answer + 5, NULL, 10);
        if (seen < n) {
            /* Nothing failed: every earlier point has been tried. */
            CU_ASSERT_EQUAL(r.curl_code, CURLE_OK);
            CU_ASSERT_EQUAL(r.status, c->status);
            sbx_test_http_result_clear(&r);
            if (c->after != NULL)
                c->after();
            break;
        }
        judge(c, n, &r, &t);
        sbx_test_http_result_clear(&r);
        /* Still there, and the client's retry gets the normal answer. */
        if (!daemon_alive()) {
            CU_FAIL("the daemon died");
            break;
        }
        if (c->before != NULL)
            c->before();
        send_request(c->method, c->path, c->body, &r);
        int retried = r.curl_code == CURLE_OK && r.status == c->status &&
                      strcmp(r.body, reference_body) == 0;
        CU_ASSERT(retried);
        if (!retried)
            fprintf(stderr, "%s, retry after allocation %lu failed: %ld %s\n", c->name, n,
                    r.status, r.body != NULL ? r.body : "");
        sbx_test_http_result_clear(&r);
        if (c->after != NULL)
            c->after();
    }
    CU_ASSERT(n > 1 && n <= MAX_FAILURE_POINT);
    printf("\n  %s: %lu allocation points failed in turn; normal answer %lu, closed %lu",
           c->name, n - 1, t.normal, t.closed);
    for (int s = 0; s < 100; s++)
        if (t.by_status[s] > 0)
            printf(", %d %lu", 500 + s, t.by_status[s]);
    printf("\n");
    free(reference_body);
    reference_body = NULL;
    stop_daemon();
}

static const request_case create_case = {
    "create", "POST", "/api/sandboxes", CREATE_BODY("oom-new"), 200,
    "\"sandbox_id\":\"oom-new\"", NULL, delete_new, NULL};
static const request_case get_case = {
    "get", "GET", "/api/sandboxes/oom-kept", NULL, 200, "\"user_id\":\"alice\"", NULL, NULL,
    NULL};
static const request_case list_case = {
    "list", "GET", "/api/sandboxes", NULL, 200, "oom-kept", NULL, NULL, NULL};
static const request_case reconcile_case = {
    "reconcile", "GET", "/api/reconciliation/sandboxes/oom-kept", NULL, 200, "found", NULL,
    NULL, NULL};
static const request_case delete_case = {
    "delete", "DELETE", "/api/sandboxes/oom-gone", NULL, 200, "oom-gone", recreate_gone, NULL,
    NULL};

/* Answers of the shared builders that are not a sandbox's. */
static const request_case health_case = {
    "health", "GET", "/health", NULL, 200, "\"ok\"", NULL, NULL, NULL};
static const request_case capabilities_case = {
    "capabilities", "GET", "/api/capabilities", NULL, 200, "\"mount_contract_version\":2",
    NULL, NULL, NULL};
static const request_case unknown_case = {
    "get of an unknown sandbox", "GET", "/api/sandboxes/oom-none", NULL, 404,
    "Sandbox 'oom-none' not found", NULL, NULL, NULL};
static const request_case invalid_case = {
    "create with an invalid body", "POST", "/api/sandboxes",
    "{\"sandbox_id\":\"oom-bad\",\"thread_id\":\"t 1\",\"user_id\":7,"
    "\"required_mount_contract_version\":-1,\"extra_mounts\":[3]}",
    422, "string_pattern_mismatch", NULL, NULL, NULL};
static const request_case contract_case = {
    "create under another contract", "POST", "/api/sandboxes",
    "{\"sandbox_id\":\"oom-new\",\"required_mount_contract_version\":1}", 409,
    "mount_contract_changed", NULL, NULL, NULL};

/* The sandbox API path of a download of oom-kept's file "dl.txt" (its
 * token is learnt from the daemon, unmasked), and the file's bytes. */
static char download_path[160];
#define DOWNLOADED "downloaded from the file\n"

/* Put "dl.txt" in sandbox oom-kept and aim download_path at it. */
static void make_download(void)
{
    char url[512];
    snprintf(url, sizeof url, "%s/api/sandboxes/oom-kept", provd_url(daemon_dir.proc));
    sbx_test_http_result r;
    sbx_test_http("GET", url, NULL, NULL, TIMEOUT_MS, &r);
    const char *mark = r.body != NULL ? strstr(r.body, "/s/") : NULL;
    int found = mark != NULL && strspn(mark + 3, "0123456789abcdef") == 64;
    CU_ASSERT_FATAL(found);
    char token[65];
    memcpy(token, mark + 3, 64);
    token[64] = '\0';
    sbx_test_http_result_clear(&r);
    char write_path[160];
    snprintf(write_path, sizeof write_path, "/s/%s/v1/file/write", token);
    CU_ASSERT_EQUAL(plain("POST", write_path,
                          "{\"file\":\"dl.txt\",\"content\":\"" "downloaded from the file\\n"
                          "\"}"),
                    200);
    snprintf(download_path, sizeof download_path, "/s/%s/v1/file/download?path=dl.txt", token);
}

/* The daemon's descriptors of "dl.txt" (replaced since: "dl.txt
 * (deleted)"); -1 when they cannot be read. */
static int files_open(void)
{
    char dir[64], link[384], target[4096];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)provd_pid(daemon_dir.proc));
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        count += strstr(target, "/dl.txt") != NULL;
    }
    closedir(d);
    return count;
}

/* After each run: the file is closed once its answer is sent, or at once
 * when it cannot be (libmicrohttpd may release a finished answer a moment
 * after the client has it). */
static void expect_file_closed(void)
{
    long deadline = sbx_test_now_ms() + TIMEOUT_MS;
    int open_now;
    while ((open_now = files_open()) != 0 && sbx_test_now_ms() < deadline)
        ;
    CU_ASSERT_EQUAL(open_now, 0);
}

static const request_case download_case = {
    "download sent from the file", "GET", download_path, NULL, 200, DOWNLOADED,
    make_download, expect_file_closed, "application/octet-stream"};

static void test_download(void) { torture(&download_case); }

static void test_create(void) { torture(&create_case); }
static void test_health(void) { torture(&health_case); }
static void test_capabilities(void) { torture(&capabilities_case); }
static void test_unknown(void) { torture(&unknown_case); }
static void test_invalid(void) { torture(&invalid_case); }
static void test_contract(void) { torture(&contract_case); }
static void test_get(void) { torture(&get_case); }
static void test_list(void) { torture(&list_case); }
static void test_reconcile(void) { torture(&reconcile_case); }
static void test_delete(void) { torture(&delete_case); }

void sbx_test_register(void)
{
#ifdef SBX_FAIL_ALLOC_UNAVAILABLE
    /* A sanitizer build: the sanitizer owns malloc and free, and a daemon
     * that defines its own malloc beside it dies at start (SIGSEGV, tried). */
    printf("SKIP: no allocation-failure injection in a sanitizer build: the sanitizer "
           "replaces malloc and free, and the daemon built with the injecting malloc "
           "crashes at start\n");
    exit(77);
#endif
    static const CU_TestInfo tests[] = {
        {"every allocation of a create fails in turn", test_create},
        {"every allocation of a get fails in turn", test_get},
        {"every allocation of a list fails in turn", test_list},
        {"every allocation of a reconciliation fails in turn", test_reconcile},
        {"every allocation of a delete fails in turn", test_delete},
        {"every allocation of a health answer fails in turn", test_health},
        {"every allocation of a capabilities answer fails in turn", test_capabilities},
        {"every allocation of a 404 answer fails in turn", test_unknown},
        {"every allocation of a 422 answer fails in turn", test_invalid},
        {"every allocation of a 409 contract answer fails in turn", test_contract},
        {"every allocation of a download sent from the file fails in turn", test_download},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbx-provisiond under allocation failures", NULL, NULL, tests);
}
