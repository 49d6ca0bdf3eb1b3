/*
 * The docker backend module through the host library, against a real
 * engine started by docker-suite.sh (SBX_DOCKER_SOCKET, SBX_DOCKER_IMAGE =
 * a busybox image).  Sandboxes are busybox httpd servers published on
 * 127.0.0.1.  SBX_DOCKER_ENGINE_INIT=no says the engine has no init binary:
 * then only the init tests run.  What every backend does (absent ids,
 * racing creates, a new incarnation per creation) is asserted once for all
 * in tests/backend-contract, which docker-suite.sh runs on the same engine.
 */
#include <config.h>

#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/docker_engine.h"
#include "tests/support/http_probe.h"
#include "tests/support/log_capture.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SERVER_READY_MS 15000L

/* Serve a page saying whether /data is writable, so that the test reads
 * the container's view of its mount over HTTP. */
#define PROBE_COMMAND                                                          \
    "mkdir -p /www && if touch /data/probe 2>/dev/null; then echo writable; " \
    "else echo read-only; fi > /www/index.html && exec httpd -f -p 8080 -h /www"
#define HELLO_COMMAND \
    "mkdir -p /www && echo hello > /www/index.html && exec httpd -f -p 8080 -h /www"

/* ------------------------------------------------------------ engine access */

/* 1 when the engine is Docker's (docker-suite.sh dockerd), 0 for podman. */
static int engine_is_docker(void)
{
    const char *kind = getenv("SBX_DOCKER_ENGINE");
    return kind != NULL && strcmp(kind, "docker") == 0;
}

/* A raw engine call, to arrange or observe what the backend must cope
 * with.  Returns the HTTP status (-1 on transport failure); the body goes
 * to *answer (caller frees) when answer is not NULL. */
static long engine_answer(const char *method, const char *path, const char *json_body,
                          char **answer)
{
    char url[512];
    snprintf(url, sizeof url, "http://localhost/v1.41%s", path);
    sbx_test_http_result r;
    /* Every call carries a JSON body, empty when there is none to send. */
    int rc = sbx_test_http_unix(sbx_test_docker.socket, method, url, json_body ? json_body : "",
                                30000L, &r);
    long status = rc == 0 ? r.status : -1;
    if (answer != NULL) {
        *answer = r.body != NULL ? r.body : strdup("");
        r.body = NULL;
    }
    sbx_test_http_result_clear(&r);
    return status;
}

static long engine(const char *method, const char *path, const char *json_body)
{
    return engine_answer(method, path, json_body, NULL);
}

/* ------------------------------------------------------------ fixtures */

typedef struct fixture {
    sbx_host *host;
    sbx_backend *backend;
    sbx_test_log_capture *log;   /* what the backend logged */
} fixture;

static sbx_status open_docker(fixture *f, const sbx_option *extra, size_t n_extra,
                              sbx_error *err)
{
    sbx_option opts[8];
    size_t n = 0;
    opts[n++] = (sbx_option){ "socket", sbx_test_docker.socket };
    opts[n++] = (sbx_option){ "image", sbx_test_docker.image };
    opts[n++] = (sbx_option){ "stop_grace_s", "1" };
    for (size_t i = 0; i < n_extra && n < 8; i++)
        opts[n++] = extra[i];
    f->log = sbx_test_log_capture_new();
    CU_ASSERT_FATAL(f->log != NULL);
    sbx_host_services services = { sizeof services, sbx_test_log_capture_fn, f->log };
    CU_ASSERT_FATAL(sbx_host_new(&services, &f->host, err) == SBX_OK);
    f->backend = NULL;
    return sbx_backend_open(f->host, "docker", opts, n, &f->backend, err);
}

static void setup(fixture *f, const char *command)
{
    sbx_option extra[] = { { "command", command },
                           { "ready_timeout_ms", SBX_TEST_READY_TIMEOUT_MS } };
    sbx_error err;
    sbx_status st = open_docker(f, extra, 2, &err);
    if (st != SBX_OK)
        fprintf(stderr, "open docker: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
}

static void teardown(fixture *f)
{
    sbx_backend_close(f->backend);
    sbx_host_free(f->host);
    sbx_test_log_capture_free(f->log);
}

/* How many listed sandboxes have id `id`; *url gets its URL. */
static int listed(sbx_backend *b, const char *id, char *url, size_t url_size)
{
    sbx_sandbox *all = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_list_running(b, &all, &count, &err) == SBX_OK);
    int found = 0;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(all[i].sandbox_id, id) != 0)
            continue;
        found++;
        if (url != NULL)
            snprintf(url, url_size, "%s", all[i].sandbox_url);
    }
    sbx_backend_free_sandboxes(b, all, count);
    return found;
}

static char *fetch(const char *url)
{
    char *body = NULL;
    long status = sbx_test_http_get(url, SERVER_READY_MS, &body);
    CU_ASSERT_EQUAL(status, 200);
    return body;
}

/* ------------------------------------------------------------ tests */

static void test_lifecycle(void)
{
    fixture f;
    setup(&f, HELLO_COMMAND);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f.backend, "life-one", "thread-1", "user-1", &err);
    CU_ASSERT_FATAL(sb != NULL);
    CU_ASSERT(strncmp(sb->sandbox_url, "http://127.0.0.1:", 17) == 0);
    CU_ASSERT_STRING_EQUAL(sb->thread_id, "thread-1");
    CU_ASSERT_STRING_EQUAL(sb->user_id, "user-1");
    CU_ASSERT_STRING_EQUAL(sb->status, "Running");

    /* create waited until the server answered HTTP (ready_timeout_ms):
     * the first try answers, also behind Docker's userland proxy, which
     * accepts before the server listens (docs/docker.md). */
    CU_ASSERT_EQUAL(sbx_test_http_get_once(sb->sandbox_url, 5000), 200);
    char *body = fetch(sb->sandbox_url);
    CU_ASSERT(body != NULL && strcmp(body, "hello\n") == 0);
    free(body);

    char url[256] = "";
    CU_ASSERT_EQUAL(listed(f.backend, "life-one", url, sizeof url), 1);
    CU_ASSERT_STRING_EQUAL(url, sb->sandbox_url);
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "life-one"), 1);
    sbx_sandbox *found = NULL;
    CU_ASSERT_FATAL(sbx_backend_discover(f.backend, "life-one", &found, &err) == SBX_OK);
    CU_ASSERT_STRING_EQUAL(found->sandbox_url, sb->sandbox_url);
    CU_ASSERT_STRING_EQUAL(found->thread_id, "thread-1");
    sbx_backend_free_sandboxes(f.backend, found, 1);

    CU_ASSERT(sbx_backend_destroy(f.backend, "life-one", &err) == SBX_OK);
    CU_ASSERT_EQUAL(engine("GET", "/containers/sbx-life-one/json", NULL), 404);
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "life-one"), 0);
    CU_ASSERT_EQUAL(listed(f.backend, "life-one", NULL, 0), 0);
    CU_ASSERT_EQUAL(sbx_test_http_get_once(sb->sandbox_url, 2000), -1);
    sbx_backend_free_sandboxes(f.backend, sb, 1);
    teardown(&f);
}

/* What the container sees of a mount of a fresh host directory. */
static void check_mount(int read_only, const char *expected_page)
{
    char host_dir[PATH_MAX], probe[PATH_MAX + 16];
    const char *base = getenv("SBX_TEST_BUILDDIR");
    snprintf(host_dir, sizeof host_dir, "%s/tests/docker/mount.XXXXXX", base ? base : "/tmp");
    CU_ASSERT_FATAL(mkdtemp(host_dir) != NULL);
    chmod(host_dir, 0777);
    snprintf(probe, sizeof probe, "%s/probe", host_dir);

    fixture f;
    setup(&f, PROBE_COMMAND);
    sbx_mount mount = { host_dir, "/data", read_only };
    const char *id = read_only ? "mount-ro" : "mount-rw";
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.thread_id = "t";
    req.extra_mounts = &mount;
    req.extra_mount_count = 1;
    sbx_error err;
    sbx_sandbox *sb = NULL;
    CU_ASSERT_EQUAL(sbx_backend_create(f.backend, &req, &sb, &err), SBX_OK);
    CU_ASSERT_FATAL(sb != NULL);
    char *body = fetch(sb->sandbox_url);
    CU_ASSERT(body != NULL && strcmp(body, expected_page) == 0);
    free(body);
    CU_ASSERT_EQUAL(access(probe, F_OK) == 0, !read_only);
    CU_ASSERT(sbx_backend_destroy(f.backend, id, &err) == SBX_OK);
    sbx_backend_free_sandboxes(f.backend, sb, 1);
    teardown(&f);
    unlink(probe);
    rmdir(host_dir);
}

static void test_read_only_mount_is_read_only(void)
{
    check_mount(1, "read-only\n");
}

static void test_read_write_mount_is_writable(void)
{
    check_mount(0, "writable\n");
}

static void test_existing_name_returns_the_container(void)
{
    fixture f;
    setup(&f, HELLO_COMMAND);
    sbx_error err;
    sbx_sandbox *first = sbx_test_create(f.backend, "twice", "t-first", NULL, &err);
    sbx_sandbox *second = sbx_test_create(f.backend, "twice", "t-first", NULL, &err);
    CU_ASSERT_FATAL(first != NULL && second != NULL);
    CU_ASSERT_STRING_EQUAL(second->sandbox_url, first->sandbox_url);
    CU_ASSERT_STRING_EQUAL(second->thread_id, "t-first");
    CU_ASSERT_EQUAL(listed(f.backend, "twice", NULL, 0), 1);

    /* Never handed to another thread or user; a stopped sandbox is not even
     * started for them. */
    CU_ASSERT_PTR_NULL(sbx_test_create(f.backend, "twice", "t-second", NULL, &err));
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "docker: sandbox 'twice' exists and belongs to another thread");
    CU_ASSERT_EQUAL(engine("POST", "/containers/sbx-twice/stop?t=0", NULL), 204);
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "twice"), 0);
    CU_ASSERT_PTR_NULL(sbx_test_create(f.backend, "twice", "t-first", "bob", &err));
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "docker: sandbox 'twice' exists and belongs to another user");
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "twice"), 0);

    /* Its owner's create starts a stopped sandbox again. */
    sbx_sandbox *third = sbx_test_create(f.backend, "twice", "t-first", NULL, &err);
    CU_ASSERT_FATAL(third != NULL);
    CU_ASSERT_STRING_EQUAL(third->thread_id, "t-first");
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "twice"), 1);
    char *body = fetch(third->sandbox_url);
    CU_ASSERT(body != NULL && strcmp(body, "hello\n") == 0);
    free(body);

    CU_ASSERT(sbx_backend_destroy(f.backend, "twice", &err) == SBX_OK);
    sbx_backend_free_sandboxes(f.backend, first, 1);
    sbx_backend_free_sandboxes(f.backend, second, 1);
    sbx_backend_free_sandboxes(f.backend, third, 1);
    teardown(&f);
}

/* A server that never listens on the sandbox port (httpd serves another
 * one): create fails with a transport error naming the sandbox and the
 * timeout, within the deadline, and leaves the container for destroy.  On
 * Docker the userland proxy accepts on the port and closes again: that is
 * no answer either. */
static void test_server_that_never_listens_times_out(void)
{
    fixture f;
    sbx_option extra[] = { { "command", "exec httpd -f -p 9999 -h /" },
                           { "ready_timeout_ms", "600" } };
    sbx_error err;
    CU_ASSERT_FATAL(open_docker(&f, extra, 2, &err) == SBX_OK);
    long started = sbx_test_now_ms();
    sbx_sandbox *sb = sbx_test_create(f.backend, "never-listens", NULL, NULL, &err);
    long elapsed = sbx_test_now_ms() - started;
    CU_ASSERT(sb == NULL);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_TRANSPORT);
    CU_ASSERT(strstr(err.message, "never-listens") != NULL);
    CU_ASSERT(strstr(err.message, "127.0.0.1:") != NULL);
    CU_ASSERT(strstr(err.message, "600 ms") != NULL);
    /* The wait itself is bounded by 600 ms; the engine calls add their own
     * time (over 10 s on a loaded podman): the upper bound only catches a
     * wait that ignores its timeout, which would never end. */
    CU_ASSERT(elapsed >= 600 && elapsed < 600 + 60000);

    /* Left for destroy: the container runs, destroy removes it. */
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "never-listens"), 1);
    CU_ASSERT(sbx_backend_destroy(f.backend, "never-listens", &err) == SBX_OK);
    CU_ASSERT_EQUAL(engine("GET", "/containers/sbx-never-listens/json", NULL), 404);
    teardown(&f);
}

static void test_foreign_container_is_left_alone(void)
{
    /* A container that carries our naming but not our labels. */
    char body[256];
    snprintf(body, sizeof body, "{\"Image\":\"%s\",\"Cmd\":[\"sh\"]}", sbx_test_docker.image);
    CU_ASSERT_FATAL(engine("POST", "/containers/create?name=sbx-not-ours", body) == 201);
    fixture f;
    setup(&f, HELLO_COMMAND);
    sbx_error err;
    sbx_sandbox *found = NULL;
    CU_ASSERT(sbx_backend_discover(f.backend, "not-ours", &found, &err) == SBX_ERR_PROTOCOL);
    CU_ASSERT(sbx_backend_destroy(f.backend, "not-ours", &err) == SBX_ERR_PROTOCOL);
    CU_ASSERT_EQUAL(engine("GET", "/containers/sbx-not-ours/json", NULL), 200);
    CU_ASSERT(sbx_test_create(f.backend, "not-ours", NULL, NULL, &err) == NULL);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_PROTOCOL);
    /* ... and was neither started nor removed by that create. */
    char *inspect = NULL;
    CU_ASSERT_EQUAL(engine_answer("GET", "/containers/sbx-not-ours/json", NULL, &inspect), 200);
    CU_ASSERT(inspect != NULL && strstr(inspect, "\"Running\":false") != NULL);
    free(inspect);
    CU_ASSERT_EQUAL(engine("DELETE", "/containers/sbx-not-ours?force=true", NULL) / 100, 2);
    teardown(&f);
}

static void test_errors(void)
{
    fixture f;
    sbx_error err;
    sbx_option bad[] = { { "imgae", "x" } };
    CU_ASSERT(open_docker(&f, bad, 1, &err) == SBX_ERR_CONFIG);
    CU_ASSERT(strstr(err.message, "imgae") != NULL);
    teardown(&f);
    sbx_option bad_ready[] = { { "ready_timeout_ms", "soon" } };
    CU_ASSERT(open_docker(&f, bad_ready, 1, &err) == SBX_ERR_CONFIG);
    CU_ASSERT(strstr(err.message, "ready_timeout_ms") != NULL);
    teardown(&f);
    sbx_option bad_init[] = { { "init", "yes" } };
    CU_ASSERT(open_docker(&f, bad_init, 1, &err) == SBX_ERR_CONFIG);
    CU_ASSERT(strstr(err.message, "option 'init'") != NULL);
    teardown(&f);

    /* The engine's own message comes through. */
    sbx_option missing_image[] = { { "image", "localhost/no-such-image:latest" } };
    CU_ASSERT_FATAL(open_docker(&f, missing_image, 1, &err) == SBX_OK);
    CU_ASSERT(sbx_test_create(f.backend, "no-image", NULL, NULL, &err) == NULL);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_PROVISIONER);
    CU_ASSERT(err.http_status >= 400);
    CU_ASSERT(strstr(err.message, "no-such-image") != NULL);
    CU_ASSERT(sbx_test_create(f.backend, "Bad_Id", NULL, NULL, &err) == NULL);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
    teardown(&f);

    /* An engine that is not there is a transport error, never "not alive"
     * (what the messages say: tests/docker/test_docker_hostile). */
    sbx_option nowhere[] = { { "socket", "/nonexistent/docker.sock" } };
    CU_ASSERT_FATAL(open_docker(&f, nowhere, 1, &err) == SBX_OK);
    int alive = -1;
    CU_ASSERT(sbx_backend_is_alive(f.backend, "some-box", &alive, &err) == SBX_ERR_TRANSPORT);
    sbx_sandbox *all = NULL;
    size_t count = 0;
    CU_ASSERT(sbx_backend_list_running(f.backend, &all, &count, &err) == SBX_ERR_TRANSPORT);
    teardown(&f);
}

/* ------------------------------------------------------------ init */

/* HostConfig.Init of sandbox `id`'s container: 1, 0 (false or left out,
 * as podman does), or -1 when it cannot be inspected. */
static int container_init(const char *id)
{
    char path[128], *inspect = NULL;
    snprintf(path, sizeof path, "/containers/sbx-%s/json", id);
    int init = -1;
    if (engine_answer("GET", path, NULL, &inspect) == 200)
        init = strstr(inspect, "\"Init\":true") != NULL;
    free(inspect);
    return init;
}

/* Create sandbox `id` through f's backend; on success destroy it again and
 * return what its container's HostConfig.Init was, else -2 with `err`
 * filled. */
static int init_of_create(fixture *f, const char *id, sbx_error *err)
{
    sbx_sandbox *sb = sbx_test_create(f->backend, id, "t", NULL, err);
    if (sb == NULL)
        return -2;
    int init = container_init(id);
    /* Init or not, the sandbox serves and destroy removes it. */
    CU_ASSERT_EQUAL(sbx_test_http_get(sb->sandbox_url, SERVER_READY_MS, NULL), 200);
    sbx_error destroy_err;
    CU_ASSERT(sbx_backend_destroy(f->backend, id, &destroy_err) == SBX_OK);
    sbx_backend_free_sandboxes(f->backend, sb, 1);
    return init;
}

/* init_of_create with a new backend opened with init=`mode` (NULL: the
 * option not given) into *f, for teardown. */
static int init_of_sandbox(const char *id, const char *mode, fixture *f, sbx_error *err)
{
    sbx_option extra[] = { { "command", HELLO_COMMAND }, { "init", mode } };
    CU_ASSERT_FATAL(open_docker(f, extra, mode ? 2 : 1, err) == SBX_OK);
    return init_of_create(f, id, err);
}

/* An engine with an init binary: by default (auto) and with init=true the
 * sandbox runs under it; init=false runs without. */
static void test_init_where_the_engine_has_one(void)
{
    fixture f;
    sbx_error err;
    CU_ASSERT_EQUAL(init_of_sandbox("init-auto", NULL, &f, &err), 1);
    CU_ASSERT_FALSE(sbx_test_log_contains(f.log, "no init binary"));
    teardown(&f);
    CU_ASSERT_EQUAL(init_of_sandbox("init-on", "true", &f, &err), 1);
    teardown(&f);
    CU_ASSERT_EQUAL(init_of_sandbox("init-off", "false", &f, &err), 0);
    teardown(&f);
}

/* An engine without an init binary (podman without catatonit): by default
 * sandboxes run without one, with a warning naming the option, once (the
 * instance remembers); init=true is a config error naming the option,
 * and leaves no container; init=false asks for none. */
static void test_init_where_the_engine_has_none(void)
{
    fixture f;
    sbx_error err;
    int init = init_of_sandbox("init-auto", NULL, &f, &err);
    if (init == -2)
        fprintf(stderr, "create: %s\n", err.message);
    CU_ASSERT_EQUAL(init, 0);
    CU_ASSERT(sbx_test_log_contains(f.log, "WARN docker: the engine has no init binary"));
    CU_ASSERT(sbx_test_log_contains(f.log, "(option init)"));
    sbx_test_log_clear(f.log);
    CU_ASSERT_EQUAL(init_of_create(&f, "init-auto-again", &err), 0);
    CU_ASSERT_FALSE(sbx_test_log_contains(f.log, "no init binary"));
    teardown(&f);

    CU_ASSERT_EQUAL(init_of_sandbox("init-on", "true", &f, &err), -2);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_CONFIG);
    CU_ASSERT(strstr(err.message, "option 'init' is true but the engine has no init binary") !=
              NULL);
    CU_ASSERT(strstr(err.message, "init-on") != NULL);
    CU_ASSERT_EQUAL(engine("GET", "/containers/sbx-init-on/json", NULL), 404);
    teardown(&f);

    CU_ASSERT_EQUAL(init_of_sandbox("init-off", "false", &f, &err), 0);
    CU_ASSERT_FALSE(sbx_test_log_contains(f.log, "no init binary"));
    teardown(&f);
}

/* ------------------------------------------------------------ reconcile */

/* The string value of "key" at the top of a raw engine answer to GET
 * `path` (the test's own reading), malloc'ed; NULL when absent. */
static char *answer_string(const char *path, const char *key)
{
    char *body = NULL, *value = NULL, pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    if (engine_answer("GET", path, NULL, &body) == 200) {
        const char *at = strstr(body, pattern);
        if (at != NULL) {
            at += strlen(pattern);
            value = strndup(at, strcspn(at, "\""));
        }
    }
    free(body);
    return value;
}

static sbx_reconcile_status reconcile(fixture *f, const char *id, sbx_reconciliation *out)
{
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_reconcile(f->backend, id, out, &err) == SBX_OK);
    return out->status;
}

/* found with the engine's ID and the container's ID, found without an
 * address while stopped, absent once destroyed (same namespace), found
 * again as a new incarnation; unknown for a container of that name that
 * is not ours; an invalid id is refused. */
static void test_reconcile(void)
{
    fixture f;
    setup(&f, HELLO_COMMAND);
    sbx_error err;
    /* Docker's engine ID; podman's changes at every call, so the backend
     * names podman's engine by its host name and storage root. */
    int podman = !engine_is_docker();
    char *engine_id = answer_string("/info", podman ? "DockerRootDir" : "ID");
    CU_ASSERT_FATAL(engine_id != NULL);
    sbx_sandbox *sb = sbx_test_create(f.backend, "recon", "t", "u", &err);
    CU_ASSERT_FATAL(sb != NULL);
    char *first = answer_string("/containers/sbx-recon/json", "Id");
    CU_ASSERT_FATAL(first != NULL);

    sbx_reconciliation r;
    CU_ASSERT_EQUAL(reconcile(&f, "recon", &r), SBX_RECONCILE_FOUND);
    char *name_space = r.backend_namespace ? strdup(r.backend_namespace) : strdup("");
    if (podman) {
        CU_ASSERT(strncmp(name_space, "podman:", 7) == 0 && strstr(name_space, engine_id) != NULL);
    } else {
        CU_ASSERT_STRING_EQUAL(name_space, engine_id);
    }
    CU_ASSERT_STRING_EQUAL(r.incarnation_id, first);
    CU_ASSERT_FATAL(r.sandbox != NULL);
    CU_ASSERT_STRING_EQUAL(r.sandbox->sandbox_url, sb->sandbox_url);
    CU_ASSERT_STRING_EQUAL(r.sandbox->user_id, "u");
    sbx_backend_clear_reconciliation(f.backend, &r);

    CU_ASSERT_EQUAL(engine("POST", "/containers/sbx-recon/stop?t=0", NULL) / 100, 2);
    CU_ASSERT_EQUAL(reconcile(&f, "recon", &r), SBX_RECONCILE_FOUND);
    CU_ASSERT_STRING_EQUAL(r.incarnation_id, first);
    CU_ASSERT_PTR_NULL(r.sandbox);
    sbx_backend_clear_reconciliation(f.backend, &r);

    CU_ASSERT(sbx_backend_destroy(f.backend, "recon", &err) == SBX_OK);
    CU_ASSERT_EQUAL(reconcile(&f, "recon", &r), SBX_RECONCILE_ABSENT);
    CU_ASSERT_STRING_EQUAL(r.backend_namespace, name_space);
    CU_ASSERT_PTR_NULL(r.incarnation_id);
    CU_ASSERT_PTR_NULL(r.sandbox);
    sbx_backend_clear_reconciliation(f.backend, &r);

    /* A container that carries the name but not our labels. */
    char body[256];
    snprintf(body, sizeof body, "{\"Image\":\"%s\",\"Cmd\":[\"sh\"]}", sbx_test_docker.image);
    CU_ASSERT_FATAL(engine("POST", "/containers/create?name=sbx-recon-foreign", body) == 201);
    CU_ASSERT_EQUAL(reconcile(&f, "recon-foreign", &r), SBX_RECONCILE_UNKNOWN);
    CU_ASSERT_PTR_NULL(r.backend_namespace);
    CU_ASSERT(sbx_test_log_contains(f.log, "WARN docker: reconciliation of sandbox "
                                           "'recon-foreign' is unknown: "));
    CU_ASSERT_EQUAL(engine("DELETE", "/containers/sbx-recon-foreign?force=true", NULL) / 100, 2);

    CU_ASSERT(sbx_backend_reconcile(f.backend, "Bad_Id", &r, &err) == SBX_ERR_REFUSED);
    CU_ASSERT_EQUAL(r.status, SBX_RECONCILE_UNKNOWN);

    free(engine_id);
    free(name_space);
    free(first);
    sbx_backend_free_sandboxes(f.backend, sb, 1);
    teardown(&f);
}

/* ------------------------------------------------------------ hostile text */

/* A container made through the engine by someone else, with our name and
 * labels but a user label that holds a NUL ("alice\u0000mallory"), and
 * serving: never read as alice's sandbox. */
static void test_nul_in_a_label_is_a_protocol_error(void)
{
    char body[1024];
    snprintf(body, sizeof body,
             "{\"Image\":\"%s\",\"Cmd\":[\"sh\",\"-c\",\"%s\"],"
             "\"Labels\":{\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"nul-label\","
             "\"sbx.user_id\":\"alice\\u0000mallory\",\"sbx.thread_id\":\"t\"},"
             "\"ExposedPorts\":{\"8080/tcp\":{}},\"HostConfig\":{\"PortBindings\":"
             "{\"8080/tcp\":[{\"HostIp\":\"127.0.0.1\",\"HostPort\":\"\"}]}}}",
             sbx_test_docker.image, HELLO_COMMAND);
    CU_ASSERT_FATAL(engine("POST", "/containers/create?name=sbx-nul-label", body) == 201);
    CU_ASSERT_FATAL(engine("POST", "/containers/sbx-nul-label/start", NULL) / 100 == 2);
    fixture f;
    setup(&f, HELLO_COMMAND);
    sbx_error err;
    sbx_sandbox *found = NULL;
    CU_ASSERT(sbx_backend_discover(f.backend, "nul-label", &found, &err) == SBX_ERR_PROTOCOL);
    CU_ASSERT(strstr(err.message, "field 'Config.Labels.sbx.user_id'") != NULL);
    CU_ASSERT(strstr(err.message, "NUL or invalid UTF-8") != NULL);
    CU_ASSERT(sbx_test_create(f.backend, "nul-label", "t", "alice", &err) == NULL);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_PROTOCOL);
    /* list skips it, saying why. */
    CU_ASSERT_EQUAL(listed(f.backend, "nul-label", NULL, 0), 0);
    CU_ASSERT(sbx_test_log_contains(f.log, "'Labels.sbx.user_id' holds a NUL or invalid UTF-8"));
    CU_ASSERT_EQUAL(engine("DELETE", "/containers/sbx-nul-label?force=true", NULL) / 100, 2);
    teardown(&f);
}

/* ------------------------------------------------------------ records */

/* The record of a sandbox of this run, as the engine describes it: its
 * container (Id, which is also the incarnation, and name), the engine that
 * answers (as SBX_DOCKER_ENGINE names it, with the version the engine's
 * own /version gives), a creation time of this run in whole seconds. */
static void expect_docker_record(const sbx_sandbox_record *r, const char *id,
                                 int64_t before, int64_t after)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    char path[128], name[128];
    snprintf(path, sizeof path, "/containers/sbx-%s/json", id);
    snprintf(name, sizeof name, "sbx-%s", id);
    char *container = answer_string(path, "Id");
    char *version = answer_string("/version", "Version");
    CU_ASSERT_PTR_NOT_NULL_FATAL(container);
    CU_ASSERT_STRING_EQUAL(r->sandbox.sandbox_id, id);
    CU_ASSERT_STRING_EQUAL(r->container_id, container);
    CU_ASSERT_STRING_EQUAL(r->incarnation_id, container);
    CU_ASSERT_STRING_EQUAL(r->container_name, name);
    CU_ASSERT_STRING_EQUAL(r->engine, engine_is_docker() ? "docker" : "podman");
    CU_ASSERT(version != NULL && r->engine_version != NULL &&
              strcmp(r->engine_version, version) == 0);
    CU_ASSERT(r->created_at >= before / 1000 * 1000 - 1000 && r->created_at <= after);
    CU_ASSERT_EQUAL(r->created_at % 1000, 0);
    CU_ASSERT(r->pid == 0 && r->directory == NULL);
    free(container);
    free(version);
}

/* The record of `id` in a chain, or NULL. */
static const sbx_sandbox_record *find_record(const sbx_sandbox_record *r, const char *id)
{
    for (; r != NULL; r = r->next)
        if (strcmp(r->sandbox.sandbox_id, id) == 0)
            return r;
    return NULL;
}

/* create_record, discover_record and list_records tell the same container
 * and time; reconcile the same incarnation.  A managed container that runs
 * without a published port is listed by list_records (no URL), as
 * DeerFlow lists it, and still left out of list_running. */
static void test_records(void)
{
    fixture f;
    setup(&f, HELLO_COMMAND);
    sbx_error err;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "rec-one";
    req.thread_id = "t1";
    int64_t before = sbx_test_wall_ms();
    sbx_sandbox_record *made = NULL;
    CU_ASSERT_FATAL(sbx_backend_create_record(f.backend, &req, &made, &err) == SBX_OK);
    int64_t after = sbx_test_wall_ms();
    expect_docker_record(made, "rec-one", before, after);
    CU_ASSERT(strncmp(made->sandbox.sandbox_url, "http://127.0.0.1:", 17) == 0);
    CU_ASSERT_EQUAL(sbx_test_http_get_once(made->sandbox.sandbox_url, 5000), 200);

    sbx_sandbox_record *found = NULL;
    CU_ASSERT_FATAL(sbx_backend_discover_record(f.backend, "rec-one", &found, &err) == SBX_OK);
    expect_docker_record(found, "rec-one", before, after);
    CU_ASSERT_EQUAL(found->created_at, made->created_at);
    sbx_backend_free_records(f.backend, found);

    sbx_reconciliation rec;
    CU_ASSERT_FATAL(sbx_backend_reconcile(f.backend, "rec-one", &rec, &err) == SBX_OK);
    CU_ASSERT(rec.incarnation_id != NULL && strcmp(rec.incarnation_id, made->incarnation_id) == 0);
    sbx_backend_clear_reconciliation(f.backend, &rec);

    char body[512];
    snprintf(body, sizeof body,
             "{\"Image\":\"%s\",\"Cmd\":[\"sleep\",\"600\"],\"Labels\":{"
             "\"sbx.managed\":\"true\",\"sbx.sandbox_id\":\"rec-noport\","
             "\"sbx.user_id\":\"default\"}}", sbx_test_docker.image);
    CU_ASSERT_FATAL(engine("POST", "/containers/create?name=sbx-rec-noport", body) == 201);
    CU_ASSERT_FATAL(engine("POST", "/containers/sbx-rec-noport/start", NULL) / 100 == 2);

    sbx_sandbox_record *chain = NULL;
    size_t count = 0;
    CU_ASSERT_FATAL(sbx_backend_list_records(f.backend, &chain, &count, &err) == SBX_OK);
    const sbx_sandbox_record *listed_one = find_record(chain, "rec-one");
    expect_docker_record(listed_one, "rec-one", before, after);
    CU_ASSERT_EQUAL(listed_one->created_at, made->created_at);
    CU_ASSERT_STRING_EQUAL(listed_one->sandbox.sandbox_url, made->sandbox.sandbox_url);
    const sbx_sandbox_record *no_port = find_record(chain, "rec-noport");
    expect_docker_record(no_port, "rec-noport", before, sbx_test_wall_ms());
    CU_ASSERT_STRING_EQUAL(no_port->sandbox.sandbox_url, "");
    CU_ASSERT_STRING_EQUAL(no_port->sandbox.status, "Running");
    sbx_backend_free_records(f.backend, chain);
    CU_ASSERT_EQUAL(listed(f.backend, "rec-noport", NULL, 0), 0);
    CU_ASSERT_EQUAL(listed(f.backend, "rec-one", NULL, 0), 1);

    CU_ASSERT(sbx_backend_destroy(f.backend, "rec-noport", &err) == SBX_OK);
    CU_ASSERT(sbx_backend_destroy(f.backend, "rec-one", &err) == SBX_OK);
    sbx_backend_free_records(f.backend, made);
    teardown(&f);
}

void sbx_test_register(void)
{
    sbx_test_docker_engine(&sbx_test_docker.socket, &sbx_test_docker.image);
    const char *has_init = getenv("SBX_DOCKER_ENGINE_INIT");
    if (has_init != NULL && strcmp(has_init, "no") == 0) {
        static const CU_TestInfo without_init[] = {
            { "init: auto runs without, true is a config error", test_init_where_the_engine_has_none },
            CU_TEST_INFO_NULL
        };
        sbx_test_add_suite("docker backend, engine without an init binary", NULL, NULL,
                           without_init);
        return;
    }
    static const CU_TestInfo tests[] = {
        { "create, serve HTTP, list, discover, destroy", test_lifecycle },
        { "a read-only mount is read-only", test_read_only_mount_is_read_only },
        { "a read-write mount is writable", test_read_write_mount_is_writable },
        { "an existing name returns (and starts) its owner container only", test_existing_name_returns_the_container },
        { "a server that never listens: create times out", test_server_that_never_listens_times_out },
        { "a container without our labels is left alone", test_foreign_container_is_left_alone },
        { "errors: options, engine messages, transport", test_errors },
        { "init: auto and true run under the engine's init, false without", test_init_where_the_engine_has_one },
        { "a NUL in a label: protocol error naming the field, list skips", test_nul_in_a_label_is_a_protocol_error },
        { "reconcile: engine namespace, container incarnation, found stopped, unknown", test_reconcile },
        { "records (ABI 1.2): container, engine, time; a sandbox without a port is listed", test_records },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("docker backend", NULL, NULL, tests);
}
