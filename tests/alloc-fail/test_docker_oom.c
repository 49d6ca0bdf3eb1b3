/*
 * Allocation-failure injection (fail_alloc.h) on the docker backend's
 * create and create_record, against the private engine docker-suite.sh
 * starts (SBX_DOCKER_SOCKET, SBX_DOCKER_IMAGE; SKIP without them).  For
 * every N = 1, 2, ... the Nth allocation of sbx code (backend and host)
 * fails, on a fresh instance each time, until a run asks for fewer than N.
 * A run ends with SBX_OK and a whole answer, or with SBX_ERR_INTERNAL, a
 * terminated message and nothing handed out.  A failed create of a new id
 * leaves no container, unless its message says the sandbox is left for
 * destroy: then the container is there and destroy removes it
 * (docs/docker.md).  A create of an existing sandbox never removes it: the
 * same container (its Id) is there after every run.  After each run the
 * engine's containers are listed: nothing unreported remains.
 */
#include <config.h>

#include "tests/alloc-fail/fail_alloc.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/docker_engine.h"
#include "tests/support/http_probe.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More allocations than any one operation asks for. */
#define MAX_FAILURE_POINT 2000

#define HELLO_COMMAND \
    "mkdir -p /www && echo hello > /www/index.html && exec httpd -f -p 8080 -h /www"

/* The engine's answer to GET PATH (caller frees), NULL when none came. */
static char *engine_get(const char *path)
{
    char url[256];
    snprintf(url, sizeof url, "http://localhost/v1.41%s", path);
    sbx_test_http_result r;
    int rc = sbx_test_http_unix(sbx_test_docker.socket, "GET", url, NULL, 30000L, &r);
    char *body = rc == 0 && r.status == 200 ? r.body : NULL;
    if (body != NULL)
        r.body = NULL;
    sbx_test_http_result_clear(&r);
    return body;
}

/* How many times `text` occurs in `s`. */
static int occurrences(const char *s, const char *text)
{
    int n = 0;
    for (const char *p = s; p != NULL && (p = strstr(p, text)) != NULL; p += strlen(text))
        n++;
    return n;
}

/* The engine's containers, running or not: how many there are in all, and
 * how many are named `name`. */
static void count_containers(const char *name, int *all, int *named)
{
    char *list = engine_get("/containers/json?all=true");
    CU_ASSERT_PTR_NOT_NULL_FATAL(list);
    char quoted[128];
    snprintf(quoted, sizeof quoted, "\"/%s\"", name);
    *all = occurrences(list, "\"Id\":");
    *named = occurrences(list, quoted);
    free(list);
}

/* The Id of container `name` (caller frees), NULL when there is none. */
static char *container_id(const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "/containers/%s/json", name);
    char *inspect = engine_get(path);
    const char *id = inspect != NULL ? strstr(inspect, "\"Id\":\"") : NULL;
    char *out = id != NULL ? strndup(id + 6, strcspn(id + 6, "\"")) : NULL;
    free(inspect);
    return out;
}

typedef struct target {
    sbx_host *host;
    sbx_backend *backend;
} target;

static void target_open(target *t)
{
    sbx_error err;
    sbx_option opts[] = { { "socket", sbx_test_docker.socket }, { "image", sbx_test_docker.image },
                          { "stop_grace_s", "1" }, { "command", HELLO_COMMAND },
                          { "ready_timeout_ms", SBX_TEST_READY_TIMEOUT_MS } };
    CU_ASSERT_EQUAL_FATAL(sbx_host_new(NULL, &t->host, &err), SBX_OK);
    sbx_status st = sbx_backend_open(t->host, "docker", opts, sizeof opts / sizeof *opts,
                                     &t->backend, &err);
    if (st != SBX_OK)
        fprintf(stderr, "open docker: %s\n", err.message);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
}

static void target_close(target *t)
{
    sbx_backend_close(t->backend);
    sbx_host_free(t->host);
}

static sbx_create_request request_of(const char *id)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.thread_id = "oom-thread";
    return req;
}

/* A whole answer for sandbox `id`: its identity and a URL on 127.0.0.1. */
static void expect_sandbox(const sbx_sandbox *sb, const char *id)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(sb);
    CU_ASSERT(sb->sandbox_id != NULL && strcmp(sb->sandbox_id, id) == 0);
    CU_ASSERT(sb->thread_id != NULL && strcmp(sb->thread_id, "oom-thread") == 0);
    CU_ASSERT(sb->sandbox_url != NULL &&
              strncmp(sb->sandbox_url, "http://127.0.0.1:", 17) == 0);
}

/* One create of `id`, armed by the caller: its status; asserts the answer. */
typedef sbx_status (*create_fn)(target *t, const char *id, sbx_error *err);

static sbx_status op_create(target *t, const char *id, sbx_error *err)
{
    sbx_create_request req = request_of(id);
    sbx_sandbox *sb = (sbx_sandbox *)&req; /* must be reset */
    sbx_status st = sbx_backend_create(t->backend, &req, &sb, err);
    if (st == SBX_OK)
        expect_sandbox(sb, id);
    else
        CU_ASSERT_PTR_NULL(sb);
    sbx_backend_free_sandboxes(t->backend, st == SBX_OK ? sb : NULL, st == SBX_OK ? 1 : 0);
    return st;
}

static sbx_status op_create_record(target *t, const char *id, sbx_error *err)
{
    sbx_create_request req = request_of(id);
    sbx_sandbox_record *r = (sbx_sandbox_record *)&req; /* must be reset */
    sbx_status st = sbx_backend_create_record(t->backend, &req, &r, err);
    if (st == SBX_OK) {
        char name[64];
        snprintf(name, sizeof name, "sbx-%s", id);
        expect_sandbox(&r->sandbox, id);
        CU_ASSERT_PTR_NULL(r->next);
        CU_ASSERT(r->container_name != NULL && strcmp(r->container_name, name) == 0);
        CU_ASSERT_PTR_NOT_NULL(r->container_id);
        CU_ASSERT_PTR_NOT_NULL(r->engine);
        CU_ASSERT(r->created_at > 0);
    } else {
        CU_ASSERT_PTR_NULL(r);
    }
    sbx_backend_free_records(t->backend, st == SBX_OK ? r : NULL);
    return st;
}

static void destroy(target *t, const char *id)
{
    sbx_error err;
    sbx_status st = sbx_backend_destroy(t->backend, id, &err);
    if (st != SBX_OK)
        printf("\n  destroy %s: %s", id, err.message);
    CU_ASSERT_EQUAL(st, SBX_OK);
}

/* Run `op` failing the 1st, 2nd, ... sbx allocation: on a new id, or
 * (existing) on a sandbox of the same owner made before. */
static void torture(const char *name, create_fn op, int existing)
{
    const char *id = existing ? "oom-seed" : "oom-new";
    char container[64];
    snprintf(container, sizeof container, "sbx-%s", id);
    target t;
    char *seed_id = NULL;
    if (existing) {
        target_open(&t);
        sbx_error err;
        CU_ASSERT_EQUAL_FATAL(op_create(&t, id, &err), SBX_OK);
        target_close(&t);
        seed_id = container_id(container);
        CU_ASSERT_PTR_NOT_NULL_FATAL(seed_id);
    }
    unsigned long n = 1, asked = 0, ok = 0, failed = 0, left = 0;
    for (; n <= MAX_FAILURE_POINT; n++) {
        target_open(&t);
        sbx_error err;
        sbx_error_clear(&err);
        sbx_fail_alloc_arm(n);
        sbx_status st = op(&t, id, &err);
        asked = sbx_fail_alloc_disarm();

        int all = 0, named = 0;
        count_containers(container, &all, &named);
        int says_left = st != SBX_OK && strstr(err.message, "left for destroy") != NULL;
        if (st != SBX_OK) {
            CU_ASSERT_EQUAL(err.kind, st);
            CU_ASSERT_PTR_NOT_NULL(memchr(err.message, '\0', sizeof err.message));
            CU_ASSERT(err.message[0] != '\0');
            /* Out of memory is ours to report, never a verdict on the
             * engine or the request. */
            CU_ASSERT_EQUAL(st, SBX_ERR_INTERNAL);
            failed++;
            left += says_left;
            /* What a user cannot see must not stay behind. */
            if (!existing && named != (says_left ? 1 : 0))
                printf("\n  %s N=%lu: %d container(s) %s after: %s", name, n, named,
                       container, err.message);
            if (!existing)
                CU_ASSERT_EQUAL(named, says_left ? 1 : 0);
        } else {
            ok += asked >= n;
            CU_ASSERT_EQUAL(named, 1);
        }
        if (existing) {
            /* Never removed, never replaced: the very container found. */
            char *now = container_id(container);
            CU_ASSERT(now != NULL && strcmp(now, seed_id) == 0);
            free(now);
            CU_ASSERT_EQUAL(all, 1);
        } else {
            if (named == 1)
                destroy(&t, id);
            count_containers(container, &all, &named);
            CU_ASSERT_EQUAL(all, 0);
        }
        target_close(&t);
        if (asked < n) {
            /* Nothing failed in this run: every earlier point was tried. */
            CU_ASSERT_EQUAL(st, SBX_OK);
            break;
        }
    }
    CU_ASSERT(n <= MAX_FAILURE_POINT);
    /* Answering a sandbox that is there allocates: those failures say so. */
    if (existing)
        CU_ASSERT(left > 0);
    if (existing) {
        target_open(&t);
        destroy(&t, id);
        target_close(&t);
        free(seed_id);
    }
    printf("\n  %s: %lu allocation points failed in turn; still ok %lu, internal %lu "
           "(sandbox left for destroy %lu)\n", name, n - 1, ok, failed, left);
}

static void test_create(void) { torture("create", op_create, 0); }
static void test_create_record(void) { torture("create_record", op_create_record, 0); }
static void test_create_existing(void) { torture("create (existing)", op_create, 1); }
static void test_create_record_existing(void) { torture("create_record (existing)", op_create_record, 1); }

void sbx_test_register(void)
{
    sbx_test_docker_engine(&sbx_test_docker.socket, &sbx_test_docker.image);
    static const CU_TestInfo tests[] = {
        { "every allocation of create fails in turn", test_create },
        { "every allocation of create_record fails in turn", test_create_record },
        { "an existing sandbox: every allocation of create fails in turn", test_create_existing },
        { "an existing sandbox: every allocation of create_record fails in turn",
          test_create_record_existing },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("docker backend create under allocation failures", NULL, NULL, tests);
}
