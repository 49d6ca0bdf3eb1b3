/*
 * Rule 6, the readiness wait, against real HTTP server processes on
 * 127.0.0.1 (tests/manager/ready_server): a sandbox is handed out only once
 * GET <url><ready_path> answers 200; one that never does is destroyed and
 * the acquire fails naming it; a proxy from the environment is bypassed for
 * a loopback sandbox.
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/manager/mgr_fixture.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/subprocess.h"
#include "tests/support/watched_child.h"

#define START() CU_ASSERT_FATAL(mf_start() == 0)

/* One ready_server process and what it printed so far. */
typedef struct server {
    sbx_test_child child;
    int port;
    char seen[8192];
    size_t seen_len;
    char url[64];
} server;

/* Read the server's output until `needle` shows up (1) or timeout_ms pass. */
static int server_wait_for(server *s, const char *needle, long timeout_ms)
{
    long deadline = sbx_test_now_ms() + timeout_ms;
    for (;;) {
        s->seen[s->seen_len] = '\0';
        if (strstr(s->seen, needle) != NULL)
            return 1;
        if (s->seen_len >= sizeof s->seen - 1 || sbx_test_wait_readable(s->child.out_fd, deadline) != 1)
            return 0;
        ssize_t n = read(s->child.out_fd, s->seen + s->seen_len, sizeof s->seen - 1 - s->seen_len);
        if (n <= 0)
            return 0;
        s->seen_len += (size_t)n;
    }
}

static int server_start(server *s, const char *mode)
{
    memset(s, 0, sizeof *s);
    char bin[512], port[16];
    const char *builddir = getenv("SBX_TEST_BUILDDIR");
    snprintf(bin, sizeof bin, "%s/tests/manager/ready_server", builddir != NULL ? builddir : ".");
    const char *const args[] = {mode, NULL};
    if (sbx_test_child_spawn(&s->child, bin, args, NULL, 0) != 0)
        return -1;
    if (!sbx_test_child_expect(&s->child, "port ", port, sizeof port, 10000)) {
        sbx_test_child_finish(&s->child, SIGKILL, 10000, NULL, 0);
        return -1;
    }
    s->port = atoi(port);
    snprintf(s->url, sizeof s->url, "http://127.0.0.1:%d", s->port);
    return 0;
}

static void server_stop(server *s)
{
    if (s->child.pid > 0)
        sbx_test_child_finish(&s->child, SIGKILL, 10000, NULL, 0);
}

/* A loopback port nothing listens on (bound, then closed again). */
static int dead_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = { .sin_family = AF_INET };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    bind(fd, (struct sockaddr *)&addr, sizeof addr);
    getsockname(fd, (struct sockaddr *)&addr, &len);
    close(fd);
    return ntohs(addr.sin_port);
}

static sbx_manager_config ready_config(int64_t timeout_ms)
{
    sbx_manager_config c = mf_config();
    c.ready_timeout_ms = timeout_ms;
    c.ready_interval_ms = 20;
    return c;
}

typedef struct acquire_job {
    sbx_manager *m;
    sbx_status st;
    sbx_error err;
    sbx_managed *got;
    atomic_int done;
} acquire_job;

static void *acquire_main(void *arg)
{
    acquire_job *j = arg;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.user_id = "alice";
    req.thread_id = "t-ready";
    j->st = sbx_manager_acquire(j->m, &req, &j->got, &j->err);
    atomic_store(&j->done, 1);
    return NULL;
}

static void test_a_new_sandbox_is_handed_out_once_it_answers_200(void)
{
    START();
    char flag[] = "/tmp/sbx-ready-XXXXXX";
    int fd = mkstemp(flag);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    unlink(flag);
    server s;
    CU_ASSERT_FATAL(server_start(&s, flag) == 0);
    mt_set_url(s.url);
    sbx_manager_config c = ready_config(20000);
    sbx_manager *m = mf_open(&c);
    acquire_job j = { .m = m };
    pthread_t t;
    pthread_create(&t, NULL, acquire_main, &j);
    /* The server answers 503 twice: the acquire must still be waiting. */
    CU_ASSERT(server_wait_for(&s, "GET /v1/sandbox 503\nGET /v1/sandbox 503\n", 10000));
    CU_ASSERT_FALSE(atomic_load(&j.done));
    char id[SBX_DERIVED_ID_SIZE];
    mf_derive("alice", "t-ready", id);
    CU_ASSERT_PTR_NULL(sbx_manager_get(m, id));
    fd = open(flag, O_CREAT | O_WRONLY, 0600);
    close(fd);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(j.st, SBX_OK);
    CU_ASSERT(strstr(s.seen, "GET /v1/sandbox 200") != NULL || server_wait_for(&s, "200\n", 5000));
    if (j.got != NULL)
        CU_ASSERT_STRING_EQUAL(sbx_managed_sandbox(j.got)->sandbox_url, s.url);
    CU_ASSERT_EQUAL(mf_counters(m).active, 1);
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 0);
    sbx_managed_unref(j.got);
    sbx_manager_free(m);
    server_stop(&s);
    unlink(flag);
    mf_stop();
}

static void test_a_sandbox_that_never_serves_is_destroyed(void)
{
    START();
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", dead_port());
    mt_set_url(url);
    sbx_manager_config c = ready_config(300);
    sbx_manager *m = mf_open(&c);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.user_id = "alice";
    req.thread_id = "t-never";
    sbx_managed *got = NULL;
    sbx_error err;
    long started = sbx_test_now_ms();
    sbx_status st = sbx_manager_acquire(m, &req, &got, &err);
    long took = sbx_test_now_ms() - started;
    CU_ASSERT_EQUAL(st, SBX_ERR_TRANSPORT);
    CU_ASSERT_PTR_NULL(got);
    /* Tries every 20 ms until the next would start past the deadline. */
    CU_ASSERT(took >= 300 - 20 && took < 5000);
    CU_ASSERT(strstr(err.message, "did not become ready") != NULL);
    CU_ASSERT(strstr(err.message, url) != NULL);
    CU_ASSERT(strstr(err.message, "/v1/sandbox") != NULL);
    char id[SBX_DERIVED_ID_SIZE];
    mf_derive("alice", "t-never", id);
    CU_ASSERT(strstr(err.message, id) != NULL);
    /* Destroyed, not leaked, and not tracked. */
    CU_ASSERT_EQUAL(mt_get_stats().creates, 1);
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 1);
    CU_ASSERT_FALSE(mt_exists(id));
    CU_ASSERT_EQUAL(mf_counters(m).active, 0);
    CU_ASSERT_PTR_NULL(sbx_manager_get(m, id));
    sbx_manager_free(m);
    mf_stop();
}

/* A sandbox URL may be a capability (sbx-provisiond's BASE/s/TOKEN): the
 * failed wait names its scheme, host and port, never its path. */
static void test_a_capability_url_is_never_shown(void)
{
    START();
    static const char token[] = "0123456789abcdef0123456789abcdef"
                                "fedcba9876543210fedcba9876543210";
    char url[160], shown[64];
    int port = dead_port();
    snprintf(url, sizeof url, "http://127.0.0.1:%d/s/%s", port, token);
    snprintf(shown, sizeof shown, "http://127.0.0.1:%d/.../v1/sandbox", port);
    mt_set_url(url);
    sbx_manager_config c = ready_config(100);
    sbx_manager *m = mf_open(&c);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.user_id = "alice";
    req.thread_id = "t-token";
    sbx_managed *got = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_acquire(m, &req, &got, &err), SBX_ERR_TRANSPORT);
    fprintf(stderr, "acquire: %s\n", err.message);
    CU_ASSERT(strstr(err.message, shown) != NULL);
    CU_ASSERT(strstr(err.message, token) == NULL);
    CU_ASSERT(strstr(err.message, "0123456789abcdef") == NULL);
    sbx_manager_free(m);
    mf_stop();
}

static void test_a_sandbox_answering_503_until_the_timeout_is_destroyed(void)
{
    START();
    server s;
    CU_ASSERT_FATAL(server_start(&s, "=503") == 0);
    mt_set_url(s.url);
    /* Long enough for one answer on a loaded machine (200 ms was not). */
    sbx_manager_config c = ready_config(2000);
    sbx_manager *m = mf_open(&c);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.thread_id = "t-503";
    sbx_managed *got = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_manager_acquire(m, &req, &got, &err), SBX_ERR_TRANSPORT);
    CU_ASSERT(strstr(err.message, "last answer: HTTP 503") != NULL);
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 1);
    CU_ASSERT_EQUAL(mt_count(), 0);
    sbx_manager_free(m);
    server_stop(&s);
    mf_stop();
}

/* A try that times out or finds nothing listening after the sandbox did
 * answer must not hide that answer: the error keeps the last status given
 * and says how the later tries failed.  The server answers 503 once and is
 * then stopped (SIGSTOP): its socket still accepts, nothing answers. */
static void test_the_last_answer_survives_later_tries_that_time_out(void)
{
    START();
    server s;
    CU_ASSERT_FATAL(server_start(&s, "=503") == 0);
    mt_set_url(s.url);
    sbx_manager_config c = ready_config(1500);
    sbx_manager *m = mf_open(&c);
    acquire_job j = { .m = m };
    pthread_t t;
    pthread_create(&t, NULL, acquire_main, &j);
    CU_ASSERT(server_wait_for(&s, "GET /v1/sandbox 503\n", 10000));
    kill(s.child.pid, SIGSTOP);
    pthread_join(t, NULL);
    CU_ASSERT_EQUAL(j.st, SBX_ERR_TRANSPORT);
    CU_ASSERT(strstr(j.err.message, "last answer: HTTP 503; then: ") != NULL);
    CU_ASSERT_EQUAL(mt_get_stats().destroys, 1);
    CU_ASSERT_EQUAL(mt_count(), 0);
    kill(s.child.pid, SIGCONT);
    sbx_manager_free(m);
    server_stop(&s);
    mf_stop();
}

static void test_readiness_bypasses_the_proxy_for_a_loopback_sandbox(void)
{
    START();
    server proxy, s;
    CU_ASSERT_FATAL(server_start(&proxy, "=502") == 0);
    CU_ASSERT_FATAL(server_start(&s, "=200") == 0);
    setenv("http_proxy", proxy.url, 1);
    setenv("HTTP_PROXY", proxy.url, 1);
    mt_set_url(s.url);
    sbx_manager_config c = ready_config(3000);
    c.ready_path = "/healthz";
    sbx_manager *m = mf_open(&c);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.thread_id = "t-proxy";
    sbx_managed *got = NULL;
    sbx_error err;
    sbx_status st = sbx_manager_acquire(m, &req, &got, &err);
    if (st != SBX_OK)
        fprintf(stderr, "acquire: %s\n", err.message);
    CU_ASSERT_EQUAL(st, SBX_OK);
    CU_ASSERT(server_wait_for(&s, "GET /healthz 200\n", 5000));
    /* The proxy would have answered 502 and failed the wait; it saw nothing. */
    CU_ASSERT_FALSE(server_wait_for(&proxy, "GET", 0));
    unsetenv("http_proxy");
    unsetenv("HTTP_PROXY");
    sbx_managed_unref(got);
    sbx_manager_free(m);
    server_stop(&proxy);
    server_stop(&s);
    mf_stop();
}

static void test_ready_timeout_0_and_non_http_urls_do_not_wait(void)
{
    START();
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", dead_port());
    mt_set_url(url);
    sbx_manager_config c = ready_config(0);
    sbx_manager *m = mf_open(&c);
    char id[64];
    CU_ASSERT(mf_acquire(m, "alice", "t-nowait", id));
    CU_ASSERT_EQUAL(mf_counters(m).active, 1);
    sbx_manager_free(m);
    mt_set_url("unix:///nowhere");
    c = ready_config(60000);
    m = mf_open(&c);
    CU_ASSERT(mf_acquire(m, "alice", "t-unix", id));
    CU_ASSERT_EQUAL(mf_counters(m).active, 1);
    sbx_manager_free(m);
    mf_stop();
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"a new sandbox is handed out once it answers 200 (503 first)",
         test_a_new_sandbox_is_handed_out_once_it_answers_200},
        {"a sandbox that never serves is destroyed, the acquire fails naming it",
         test_a_sandbox_that_never_serves_is_destroyed},
        {"a capability URL is never shown", test_a_capability_url_is_never_shown},
        {"a sandbox answering 503 until the timeout is destroyed",
         test_a_sandbox_answering_503_until_the_timeout_is_destroyed},
        {"the last answer survives later tries that time out",
         test_the_last_answer_survives_later_tries_that_time_out},
        {"readiness bypasses the proxy for a loopback sandbox",
         test_readiness_bypasses_the_proxy_for_a_loopback_sandbox},
        {"ready_timeout 0 and non-http URLs do not wait",
         test_ready_timeout_0_and_non_http_urls_do_not_wait},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("manager readiness (rule 6)", NULL, NULL, tests);
}
