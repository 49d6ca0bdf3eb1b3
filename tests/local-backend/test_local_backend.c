/*
 * The "local" backend through the host library, as a host program uses it:
 * directory sandboxes and command sandboxes (a real HTTP server on
 * 127.0.0.1), state shared across host instances and processes, atomic
 * metadata, id validation, what a local record holds.  What every backend
 * does (lifecycle, owners, unsafe ids, reconcile, racing creates) is
 * asserted once for all in tests/backend-contract.
 */
#include <config.h>

#include "tests/local-backend/local_fixture.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/http_probe.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SERVER_READY_MS 15000L

/* ------------------------------------------------------------ log capture */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int warn_lines;
static char last_warn[512];

static void capture_log(void *ctx, sbx_log_level level, const char *backend,
                        const char *message)
{
    (void)ctx;
    (void)backend;
    if (level > SBX_LOG_WARN)
        return;
    pthread_mutex_lock(&log_lock);
    warn_lines++;
    snprintf(last_warn, sizeof last_warn, "%s", message);
    pthread_mutex_unlock(&log_lock);
}

static int warnings_seen(void)
{
    pthread_mutex_lock(&log_lock);
    int n = warn_lines;
    pthread_mutex_unlock(&log_lock);
    return n;
}

/* ------------------------------------------------------------ fixtures */

typedef struct fixture {
    char state_dir[PATH_MAX];
    sbx_host *host;
    sbx_backend *backend;
} fixture;

static sbx_host *new_host(void)
{
    return sbx_local_test_new_host(capture_log, NULL);
}

static sbx_backend *open_local(sbx_host *host, const char *state_dir, const char *command)
{
    sbx_option opts[3] = { { "state_dir", state_dir }, { "command", command },
                           { "ready_timeout_ms", SBX_TEST_READY_TIMEOUT_MS } };
    return sbx_local_test_open(host, opts, command ? 3 : 1);
}

static void fixture_setup(fixture *f, const char *tag, const char *command)
{
    sbx_local_test_make_dir(f->state_dir, sizeof f->state_dir, tag);
    f->host = new_host();
    f->backend = open_local(f->host, f->state_dir, command);
}

static void fixture_teardown(fixture *f)
{
    sbx_test_destroy_all(f->backend);
    sbx_backend_close(f->backend);
    sbx_host_free(f->host);
    sbx_test_remove_tree(f->state_dir);
}

/* Number of running sandboxes with id `id` in list_running. */
static int listed(sbx_backend *b, const char *id, size_t *total)
{
    sbx_sandbox *all = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_list_running(b, &all, &count, &err) == SBX_OK);
    int found = 0;
    for (size_t i = 0; i < count; i++)
        found += strcmp(all[i].sandbox_id, id) == 0;
    if (total != NULL)
        *total = count;
    sbx_backend_free_sandboxes(b, all, count);
    return found;
}

/* ------------------------------------------------------------ tests */

static void test_directory_lifecycle(void)
{
    fixture f;
    fixture_setup(&f, "dir", NULL);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f.backend, "box-one", "thread-1", NULL, &err);
    CU_ASSERT_FATAL(sb != NULL);
    char dir[PATH_MAX + 64], url[PATH_MAX + 80];
    snprintf(dir, sizeof dir, "%s/box-one", f.state_dir);
    snprintf(url, sizeof url, "file://%s", dir);
    CU_ASSERT_STRING_EQUAL(sb->sandbox_id, "box-one");
    CU_ASSERT_STRING_EQUAL(sb->sandbox_url, url);
    CU_ASSERT_STRING_EQUAL(sb->thread_id, "thread-1");
    CU_ASSERT_STRING_EQUAL(sb->user_id, "default");
    CU_ASSERT_STRING_EQUAL(sb->status, "Running");
    sbx_backend_free_sandboxes(f.backend, sb, 1);

    struct stat st;
    CU_ASSERT_FATAL(stat(dir, &st) == 0);
    CU_ASSERT(S_ISDIR(st.st_mode));
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0700);
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "box-one"), 1);
    CU_ASSERT_EQUAL(listed(f.backend, "box-one", NULL), 1);

    sbx_sandbox *found = NULL;
    CU_ASSERT_FATAL(sbx_backend_discover(f.backend, "box-one", &found, &err) == SBX_OK);
    CU_ASSERT_STRING_EQUAL(found->sandbox_url, url);
    CU_ASSERT_STRING_EQUAL(found->thread_id, "thread-1");
    sbx_backend_free_sandboxes(f.backend, found, 1);

    CU_ASSERT(sbx_backend_destroy(f.backend, "box-one", &err) == SBX_OK);
    CU_ASSERT(!sbx_local_test_path_exists(dir));
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "box-one"), 0);
    CU_ASSERT_EQUAL(listed(f.backend, "box-one", NULL), 0);
    found = NULL;
    CU_ASSERT(sbx_backend_discover(f.backend, "box-one", &found, &err) == SBX_ERR_NOT_FOUND);
    CU_ASSERT(found == NULL);
    CU_ASSERT(strstr(err.message, "box-one") != NULL);
    /* Nothing of the sandbox is left behind, lock file included, nor of a
     * destroy of an id never made. */
    CU_ASSERT(sbx_backend_destroy(f.backend, "never-made", &err) == SBX_OK);
    CU_ASSERT_EQUAL(sbx_local_test_count_entries(f.state_dir), 0);
    fixture_teardown(&f);
}

static void test_anonymous_sandbox_has_null_thread(void)
{
    fixture f;
    fixture_setup(&f, "anon", NULL);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f.backend, "anon-box", NULL, "alice", &err);
    CU_ASSERT_FATAL(sb != NULL);
    CU_ASSERT(sb->thread_id == NULL);
    CU_ASSERT_STRING_EQUAL(sb->user_id, "alice");
    sbx_backend_free_sandboxes(f.backend, sb, 1);
    CU_ASSERT(sbx_backend_destroy(f.backend, "anon-box", &err) == SBX_OK);
    fixture_teardown(&f);
}

/* A sandbox is never handed to another user, nor to another thread of its
 * user: the id is refused and the sandbox stays as it was. */
static void test_create_existing_of_another_owner_is_refused(void)
{
    fixture f;
    fixture_setup(&f, "owner", NULL);
    sbx_error err;
    sbx_sandbox *mine = sbx_test_create(f.backend, "owned-box", "t-1", "alice", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mine);
    CU_ASSERT_PTR_NULL(sbx_test_create(f.backend, "owned-box", "t-1", "bob", &err));
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "local: sandbox 'owned-box' exists and belongs to another user");
    CU_ASSERT_PTR_NULL(sbx_test_create(f.backend, "owned-box", NULL, NULL, &err));
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NULL(sbx_test_create(f.backend, "owned-box", "t-2", "alice", &err));
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "local: sandbox 'owned-box' exists and belongs to another thread");
    sbx_sandbox *again = sbx_test_create(f.backend, "owned-box", "t-1", "alice", &err);
    CU_ASSERT_PTR_NOT_NULL(again);
    if (again != NULL)
        CU_ASSERT_STRING_EQUAL(again->sandbox_url, mine->sandbox_url);
    sbx_backend_free_sandboxes(f.backend, again, again ? 1 : 0);
    sbx_backend_free_sandboxes(f.backend, mine, 1);
    CU_ASSERT(sbx_backend_destroy(f.backend, "owned-box", &err) == SBX_OK);
    fixture_teardown(&f);
}

static void test_command_lifecycle(void)
{
    const char *command = sbx_local_test_server_command();
    if (command == NULL) {
        fprintf(stderr, "SKIP command lifecycle: neither python3 nor busybox on PATH\n");
        return;
    }
    fixture f;
    /* A space and a quote in the path: {dir} must reach the shell as one word. */
    fixture_setup(&f, "cmd it's", command);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f.backend, "web-box", "t1", NULL, &err);
    if (sb == NULL)
        fprintf(stderr, "create: %s\n", err.message);
    CU_ASSERT_FATAL(sb != NULL);
    CU_ASSERT(strncmp(sb->sandbox_url, "http://127.0.0.1:", 17) == 0);

    /* The server serves the sandbox directory. */
    char file[PATH_MAX + 64], url[600];
    snprintf(file, sizeof file, "%s/web-box/hello.txt", f.state_dir);
    FILE *out = fopen(file, "w");
    CU_ASSERT_FATAL(out != NULL);
    fputs("hello from the sandbox\n", out);
    fclose(out);
    snprintf(url, sizeof url, "%s/hello.txt", sb->sandbox_url);
    /* create waited for the server (ready_timeout_ms): the first try answers. */
    CU_ASSERT_EQUAL(sbx_test_http_get_once(sb->sandbox_url, 5000), 200);
    char *body = NULL;
    CU_ASSERT_EQUAL(sbx_test_http_get(url, SERVER_READY_MS, &body), 200);
    CU_ASSERT(body != NULL && strcmp(body, "hello from the sandbox\n") == 0);
    free(body);

    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "web-box"), 1);
    CU_ASSERT_EQUAL(listed(f.backend, "web-box", NULL), 1);
    long pid = sbx_local_test_metadata_pid(f.state_dir, "web-box");
    CU_ASSERT(pid > 1);

    CU_ASSERT(sbx_backend_destroy(f.backend, "web-box", &err) == SBX_OK);
    CU_ASSERT(sbx_local_test_process_gone(pid));
    CU_ASSERT_EQUAL(sbx_test_http_get_once(url, 2000), -1);
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "web-box"), 0);
    CU_ASSERT_EQUAL(listed(f.backend, "web-box", NULL), 0);
    CU_ASSERT_EQUAL(sbx_local_test_count_entries(f.state_dir), 0);
    sbx_backend_free_sandboxes(f.backend, sb, 1);
    fixture_teardown(&f);
}

/* Read at most size - 1 bytes of `path` into `buf`, NUL-terminated, each
 * NUL byte read (a cmdline's separators) as a space: the count, -1 when
 * it cannot be opened. */
static long read_small(const char *path, char *buf, size_t size)
{
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return -1;
    size_t n = fread(buf, 1, size - 1, in);
    fclose(in);
    buf[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    return (long)n;
}

/* The sandbox's env (ABI 1.5) reaches its command in the command's
 * environment: never in its command line, which every user of the machine
 * reads in /proc/PID/cmdline. */
static void test_command_gets_the_env_outside_its_command_line(void)
{
    const char *server = sbx_local_test_server_command();
    if (server == NULL) {
        fprintf(stderr, "SKIP command env: neither python3 nor busybox on PATH\n");
        return;
    }
    char command[1024];
    snprintf(command, sizeof command,
             "printf '%%s' \"$SBX_TEST_SECRET\" > {dir}/seen; env > {dir}/env.txt; %s", server);
    fixture f;
    fixture_setup(&f, "cmd-env", command);
    const sbx_env_var env[] = { { "SBX_TEST_SECRET", "s3cr3t-value 'quoted'" } };
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "env-box";
    req.thread_id = "t1";
    req.env = env;
    req.env_count = 1;
    sbx_sandbox *sb = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_create(f.backend, &req, &sb, &err);
    if (st != SBX_OK)
        fprintf(stderr, "create: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    /* create waited for the server, which the shell starts after the printf */
    char seen[PATH_MAX + 64];
    snprintf(seen, sizeof seen, "%s/env-box/seen", f.state_dir);
    char text[256];
    CU_ASSERT(read_small(seen, text, sizeof text) > 0 &&
              strcmp(text, "s3cr3t-value 'quoted'") == 0);
    /* Set over the environment the command has anyway (isolated: its own,
     * never the host's). */
    char env_path[PATH_MAX + 64], env_text[16384], host_home[PATH_MAX + 16];
    snprintf(env_path, sizeof env_path, "%s/env-box/env.txt", f.state_dir);
    snprintf(host_home, sizeof host_home, "HOME=%s\n", getenv("HOME") ? getenv("HOME") : "/");
    CU_ASSERT(read_small(env_path, env_text, sizeof env_text) > 0 &&
              strstr(env_text, "SBX_TEST_SECRET=s3cr3t") != NULL &&
              strstr(env_text, host_home) == NULL);
    long pid = sbx_local_test_metadata_pid(f.state_dir, "env-box");
    char cmdline_path[64], line[4096];
    snprintf(cmdline_path, sizeof cmdline_path, "/proc/%ld/cmdline", pid);
    CU_ASSERT(read_small(cmdline_path, line, sizeof line) > 0 && strstr(line, "s3cr3t") == NULL);
    CU_ASSERT(sbx_backend_destroy(f.backend, "env-box", &err) == SBX_OK);
    sbx_backend_free_sandboxes(f.backend, sb, 1);
    fixture_teardown(&f);
}

/* A command that never listens: create fails with a transport error naming
 * the sandbox, its port and the timeout, within the deadline, and leaves
 * the sandbox for destroy.  ready_timeout_ms=0 does not wait. */
#define SILENT_COMMAND "exec tail -f /dev/null"
#define READY_TIMEOUT "400"
#define READY_TIMEOUT_MS 400L

static sbx_backend *open_silent(sbx_host *host, const char *state_dir, const char *ready_ms)
{
    /* isolation=none: the deadlines measured here are the command's, not
     * the start of an isolated sandbox's holder on a loaded machine. */
    sbx_option opts[4] = { { "state_dir", state_dir }, { "command", SILENT_COMMAND },
                           { "ready_timeout_ms", ready_ms }, { "isolation", "none" } };
    sbx_backend *backend = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_open(host, "local", opts, 4, &backend, &err);
    if (st != SBX_OK)
        fprintf(stderr, "open local: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    return backend;
}

static void test_server_that_never_listens_times_out(void)
{
    if (!sbx_local_test_on_path("tail")) {
        fprintf(stderr, "SKIP ready timeout: no tail on PATH\n");
        return;
    }
    fixture f;
    sbx_local_test_make_dir(f.state_dir, sizeof f.state_dir, "silent");
    f.host = new_host();
    f.backend = open_silent(f.host, f.state_dir, READY_TIMEOUT);
    sbx_error err;
    long started = sbx_test_now_ms();
    sbx_sandbox *sb = sbx_test_create(f.backend, "silent-box", "t1", NULL, &err);
    long elapsed = sbx_test_now_ms() - started;
    CU_ASSERT(sb == NULL);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_TRANSPORT);
    /* The upper bound guards a wait that ignores its timeout (it would
     * never end), not speed: a loaded machine stays far below it. */
    CU_ASSERT(elapsed >= READY_TIMEOUT_MS && elapsed < READY_TIMEOUT_MS + 30000);
    json_object *meta = sbx_local_test_read_metadata(f.state_dir, "silent-box"), *port = NULL;
    CU_ASSERT_FATAL(meta != NULL && json_object_object_get_ex(meta, "port", &port));
    char port_text[32];
    snprintf(port_text, sizeof port_text, ":%d ", json_object_get_int(port));
    json_object_put(meta);
    CU_ASSERT(strstr(err.message, "silent-box") != NULL);
    CU_ASSERT(strstr(err.message, port_text) != NULL);
    CU_ASSERT(strstr(err.message, READY_TIMEOUT " ms") != NULL);

    /* Left for destroy: it still runs, and destroy removes it. */
    long pid = sbx_local_test_metadata_pid(f.state_dir, "silent-box");
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "silent-box"), 1);
    CU_ASSERT(sbx_backend_destroy(f.backend, "silent-box", &err) == SBX_OK);
    CU_ASSERT(sbx_local_test_process_gone(pid));
    CU_ASSERT_EQUAL(sbx_local_test_count_entries(f.state_dir), 0);
    sbx_backend_close(f.backend);

    /* 0 disables the wait: create returns the sandbox at once. */
    f.backend = open_silent(f.host, f.state_dir, "0");
    started = sbx_test_now_ms();
    sb = sbx_test_create(f.backend, "silent-box", "t1", NULL, &err);
    /* Well under the 5 s default wait, which would be the regression. */
    CU_ASSERT(sbx_test_now_ms() - started < 4000);
    CU_ASSERT(sb != NULL && strcmp(sb->status, "Running") == 0);
    if (sb != NULL)
        sbx_backend_free_sandboxes(f.backend, sb, 1);
    CU_ASSERT(sbx_backend_destroy(f.backend, "silent-box", &err) == SBX_OK);
    fixture_teardown(&f);
}

/* A process that exits after creating must leave a sandbox every other
 * process (and host instance) finds. */
static void test_cross_process_discover_and_list(void)
{
    const char *command = sbx_local_test_server_command();
    fixture f;
    fixture_setup(&f, "xproc", NULL);
    pid_t child = fork();
    CU_ASSERT_FATAL(child >= 0);
    if (child == 0) {
        sbx_host *host = new_host();
        sbx_backend *b = open_local(host, f.state_dir, command);
        sbx_error err;
        sbx_sandbox *sb = sbx_test_create(b, "made-elsewhere", "t-x", "carol", &err);
        int ok = sb != NULL;
        sbx_backend_free_sandboxes(b, sb, ok ? 1 : 0);
        sbx_backend_close(b);
        sbx_host_free(host);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    CU_ASSERT_FATAL(waitpid(child, &status, 0) == child);
    CU_ASSERT_FATAL(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* This process opened its backend before the sandbox existed. */
    sbx_error err;
    sbx_sandbox *found = NULL;
    CU_ASSERT_FATAL(sbx_backend_discover(f.backend, "made-elsewhere", &found, &err) == SBX_OK);
    CU_ASSERT_STRING_EQUAL(found->user_id, "carol");
    CU_ASSERT_STRING_EQUAL(found->thread_id, "t-x");
    if (command != NULL) {
        char *body = NULL;
        CU_ASSERT_EQUAL(sbx_test_http_get(found->sandbox_url, SERVER_READY_MS, &body), 200);
        free(body);
    }
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "made-elsewhere"), 1);
    CU_ASSERT_EQUAL(listed(f.backend, "made-elsewhere", NULL), 1);

    /* A second host instance in this process sees it too. */
    sbx_host *other_host = new_host();
    sbx_backend *other = open_local(other_host, f.state_dir, NULL);
    CU_ASSERT_EQUAL(listed(other, "made-elsewhere", NULL), 1);
    CU_ASSERT_EQUAL(sbx_test_is_alive(other, "made-elsewhere"), 1);
    long pid = sbx_local_test_metadata_pid(f.state_dir, "made-elsewhere");
    /* Destroyed from yet another instance than the one that made it. */
    CU_ASSERT(sbx_backend_destroy(other, "made-elsewhere", &err) == SBX_OK);
    if (command != NULL)
        CU_ASSERT(pid > 1 && sbx_local_test_process_gone(pid));
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "made-elsewhere"), 0);
    sbx_backend_free_sandboxes(f.backend, found, 1);
    sbx_backend_close(other);
    sbx_host_free(other_host);
    fixture_teardown(&f);
}

/* A record of `id` whose "cgroups" member is not a boolean is refused
 * by discover, naming the member; the record put back works again. */
static void cgroups_member_checked(fixture *f, const char *id)
{
    char path[PATH_MAX + 64], text[4096];
    snprintf(path, sizeof path, "%s/%s.json", f->state_dir, id);
    FILE *in = fopen(path, "r");
    CU_ASSERT_FATAL(in != NULL);
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    char *member = strstr(text, "\"cgroups\""), *value = member ? strstr(member, "false") : NULL;
    CU_ASSERT_FATAL(value != NULL);
    memcpy(value, "12345", 5);
    sbx_local_test_write_file(path, text);
    sbx_sandbox *found = NULL;
    sbx_error err;
    CU_ASSERT(sbx_backend_discover(f->backend, id, &found, &err) == SBX_ERR_PROTOCOL);
    CU_ASSERT(strstr(err.message, "'cgroups' is not a boolean") != NULL);
    memcpy(value, "false", 5);
    sbx_local_test_write_file(path, text);
    CU_ASSERT(sbx_backend_discover(f->backend, id, &found, &err) == SBX_OK);
    if (found != NULL)
        sbx_backend_free_sandboxes(f->backend, found, 1);
}

static void test_metadata_is_complete_json(void)
{
    fixture f;
    fixture_setup(&f, "meta", NULL);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f.backend, "meta-box", "t-m", "dave", &err);
    CU_ASSERT_FATAL(sb != NULL);
    json_object *meta = sbx_local_test_read_metadata(f.state_dir, "meta-box");
    CU_ASSERT_FATAL(meta != NULL);
    static const char *const fields[] = { "sandbox_id", "thread_id", "user_id", "url",
                                          "pid", "port", "created", "incarnation_id" };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        CU_ASSERT(json_object_object_get_ex(meta, fields[i], NULL));
    json_object *v = NULL;
    CU_ASSERT(json_object_object_get_ex(meta, "url", &v) &&
              strcmp(json_object_get_string(v), sb->sandbox_url) == 0);
    CU_ASSERT(json_object_object_get_ex(meta, "user_id", &v) &&
              strcmp(json_object_get_string(v), "dave") == 0);
    CU_ASSERT(json_object_object_get_ex(meta, "created", &v) &&
              json_object_get_string_len(v) == 20);
    /* Made asking no limit: no cgroup of its own, which the record says. */
    CU_ASSERT(json_object_object_get_ex(meta, "cgroups", &v) &&
              json_object_is_type(v, json_type_boolean) && !json_object_get_boolean(v));
    json_object_put(meta);
    sbx_backend_free_sandboxes(f.backend, sb, 1);
    cgroups_member_checked(&f, "meta-box");

    /* Only the sandbox's own entries: no temporary files left behind. */
    DIR *d = opendir(f.state_dir);
    struct dirent *e;
    int unexpected = 0;
    while (d != NULL && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        unexpected += strcmp(n, ".") && strcmp(n, "..") && strcmp(n, "meta-box") &&
                      strcmp(n, "meta-box.json") && strcmp(n, ".meta-box.lock") &&
                      strcmp(n, SBX_LOCAL_TEST_MARKER);
    }
    if (d != NULL)
        closedir(d);
    CU_ASSERT_EQUAL(unexpected, 0);
    CU_ASSERT(sbx_backend_destroy(f.backend, "meta-box", &err) == SBX_OK);
    fixture_teardown(&f);
}

/* Readers racing with creates and destroys must see whole records only: a
 * torn file would be skipped with a warning. */
typedef struct churn_arg {
    sbx_backend *backend;
    int index;
    int failures;
    pthread_barrier_t *start;
} churn_arg;

static void *churn_writer(void *p)
{
    churn_arg *a = p;
    char id[32];
    snprintf(id, sizeof id, "churn-%d", a->index);
    pthread_barrier_wait(a->start);
    for (int round = 0; round < 25; round++) {
        sbx_error err;
        sbx_sandbox *sb = sbx_test_create(a->backend, id, "t", NULL, &err);
        a->failures += sb == NULL;
        sbx_backend_free_sandboxes(a->backend, sb, sb ? 1 : 0);
        a->failures += sbx_backend_destroy(a->backend, id, &err) != SBX_OK;
    }
    return NULL;
}

static void *churn_reader(void *p)
{
    churn_arg *a = p;
    pthread_barrier_wait(a->start);
    for (int round = 0; round < 100; round++) {
        sbx_sandbox *all = NULL;
        size_t count = 0;
        sbx_error err;
        if (sbx_backend_list_running(a->backend, &all, &count, &err) != SBX_OK) {
            a->failures++;
            continue;
        }
        for (size_t i = 0; i < count; i++)
            a->failures += all[i].sandbox_url == NULL || all[i].thread_id == NULL ||
                           strcmp(all[i].thread_id, "t") != 0;
        sbx_backend_free_sandboxes(a->backend, all, count);
    }
    return NULL;
}

static void test_readers_never_see_partial_metadata(void)
{
    enum { WRITERS = 4, READERS = 3 };
    fixture f;
    fixture_setup(&f, "churn", NULL);
    int warnings_before = warnings_seen();
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, WRITERS + READERS);
    pthread_t threads[WRITERS + READERS];
    churn_arg args[WRITERS + READERS];
    for (int i = 0; i < WRITERS + READERS; i++) {
        args[i] = (churn_arg){ f.backend, i, 0, &start };
        pthread_create(&threads[i], NULL, i < WRITERS ? churn_writer : churn_reader, &args[i]);
    }
    for (int i = 0; i < WRITERS + READERS; i++) {
        pthread_join(threads[i], NULL);
        CU_ASSERT_EQUAL(args[i].failures, 0);
    }
    pthread_barrier_destroy(&start);
    CU_ASSERT_EQUAL(warnings_seen(), warnings_before);
    CU_ASSERT_EQUAL(sbx_local_test_count_entries(f.state_dir), 0);
    fixture_teardown(&f);
}

static void test_invalid_ids_are_refused_before_touching_files(void)
{
    fixture f;
    fixture_setup(&f, "ids", NULL);
    static const char *const bad[] = { "../escape", "a/b", "UPPER", "", "-lead", "trail-",
                                       "dot.dot", "sp ace", "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij12",
                                       "..", "nl\nx" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sbx_error err;
        sbx_sandbox *sb = NULL;
        int alive = -1;
        CU_ASSERT(sbx_test_create(f.backend, bad[i], NULL, NULL, &err) == NULL);
        CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
        CU_ASSERT(strstr(err.message, "sandbox_id") != NULL);
        CU_ASSERT(strchr(err.message, '\n') == NULL);
        CU_ASSERT(sbx_backend_destroy(f.backend, bad[i], &err) == SBX_ERR_REFUSED);
        CU_ASSERT(sbx_backend_is_alive(f.backend, bad[i], &alive, &err) == SBX_ERR_REFUSED);
        CU_ASSERT(sbx_backend_discover(f.backend, bad[i], &sb, &err) == SBX_ERR_REFUSED);
    }
    sbx_error err;
    CU_ASSERT(sbx_backend_destroy(f.backend, NULL, &err) == SBX_ERR_REFUSED);
    CU_ASSERT(sbx_test_create(f.backend, "good-id", "bad thread", NULL, &err) == NULL);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
    CU_ASSERT(strstr(err.message, "thread_id") != NULL);
    CU_ASSERT(sbx_test_create(f.backend, "good-id", NULL, "../root", &err) == NULL);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
    CU_ASSERT(strstr(err.message, "user_id") != NULL);
    /* The longest valid id (51 characters) is accepted. */
    const char *longest = "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij1";
    sbx_sandbox *sb = sbx_test_create(f.backend, longest, NULL, NULL, &err);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(f.backend, sb, 1);
    CU_ASSERT(sbx_backend_destroy(f.backend, longest, &err) == SBX_OK);
    CU_ASSERT_EQUAL(sbx_local_test_count_entries(f.state_dir), 0);
    /* Nothing escaped the state directory either. */
    char parent_escape[PATH_MAX + 16];
    snprintf(parent_escape, sizeof parent_escape, "%s/../escape", f.state_dir);
    CU_ASSERT(!sbx_local_test_path_exists(parent_escape));
    fixture_teardown(&f);
}

static void test_options(void)
{
    sbx_host *host = new_host();
    sbx_backend *b = NULL;
    sbx_error err;
    sbx_option unknown[] = { { "sate_dir", "/tmp/x" } };
    CU_ASSERT(sbx_backend_open(host, "local", unknown, 1, &b, &err) == SBX_ERR_CONFIG);
    CU_ASSERT(strstr(err.message, "sate_dir") != NULL);
    sbx_option bad_timeout[] = { { "stop_timeout_ms", "soon" } };
    CU_ASSERT(sbx_backend_open(host, "local", bad_timeout, 1, &b, &err) == SBX_ERR_CONFIG);
    CU_ASSERT(strstr(err.message, "stop_timeout_ms") != NULL);
    sbx_option bad_ready[] = { { "ready_timeout_ms", "-1" } };
    CU_ASSERT(sbx_backend_open(host, "local", bad_ready, 1, &b, &err) == SBX_ERR_CONFIG);
    CU_ASSERT(strstr(err.message, "ready_timeout_ms") != NULL);

    /* Without state_dir: $XDG_STATE_HOME/sbx/local (the harness sets it). */
    const char *xdg = getenv("XDG_STATE_HOME");
    if (xdg != NULL && xdg[0] == '/') {
        CU_ASSERT_FATAL(sbx_backend_open(host, "local", NULL, 0, &b, &err) == SBX_OK);
        sbx_sandbox *sb = sbx_test_create(b, "default-place", NULL, NULL, &err);
        CU_ASSERT_FATAL(sb != NULL);
        char expected[PATH_MAX + 32];
        char *real = realpath(xdg, NULL);
        snprintf(expected, sizeof expected, "file://%s/sbx/local/default-place", real);
        free(real);
        CU_ASSERT_STRING_EQUAL(sb->sandbox_url, expected);
        sbx_backend_free_sandboxes(b, sb, 1);
        CU_ASSERT(sbx_backend_destroy(b, "default-place", &err) == SBX_OK);
        sbx_backend_close(b);
    }
    /* "local" is built in: no module path is needed to open it. */
    const sbx_backend_descriptor *d = NULL;
    CU_ASSERT(sbx_host_load(host, "local", &d, &err) == SBX_OK);
    CU_ASSERT(d != NULL && strcmp(d->name, "local") == 0);
    sbx_host_free(host);
}

static void test_extra_mounts_are_unsupported(void)
{
    fixture f;
    fixture_setup(&f, "mounts", NULL);
    sbx_mount mount = { "/srv/data", "/mnt/acp-workspace", 1 };
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "mount-box";
    req.extra_mounts = &mount;
    req.extra_mount_count = 1;
    sbx_sandbox *sb = NULL;
    sbx_error err;
    CU_ASSERT(sbx_backend_create(f.backend, &req, &sb, &err) == SBX_ERR_UNSUPPORTED);
    CU_ASSERT(strstr(err.message, "/mnt/acp-workspace") != NULL);
    CU_ASSERT(strstr(err.message, "/srv/data") != NULL);
    CU_ASSERT_EQUAL(sbx_local_test_count_entries(f.state_dir), 0);
    fixture_teardown(&f);
}

/* The state directory is authoritative: another host instance sees the
 * namespace and incarnation this one does, and the sandbox's fields, and
 * ABSENT once destroyed.  (A new incarnation per creation is the backend
 * contract's, tests/backend-contract.) */
static void test_reconcile(void)
{
    fixture f;
    fixture_setup(&f, "reconcile", NULL);
    sbx_error err;
    sbx_reconciliation first, again, gone;
    sbx_sandbox *sb = sbx_test_create(f.backend, "rec-box", "t-r", "erin", &err);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(f.backend, sb, 1);
    CU_ASSERT_FATAL(sbx_backend_reconcile(f.backend, "rec-box", &first, &err) == SBX_OK);
    CU_ASSERT_EQUAL(first.status, SBX_RECONCILE_FOUND);
    CU_ASSERT_FATAL(first.sandbox != NULL && first.backend_namespace != NULL &&
                    first.incarnation_id != NULL);
    CU_ASSERT_STRING_EQUAL(first.sandbox->sandbox_id, "rec-box");
    CU_ASSERT_STRING_EQUAL(first.sandbox->user_id, "erin");
    CU_ASSERT_STRING_EQUAL(first.sandbox->thread_id, "t-r");

    /* Another host instance agrees on namespace and incarnation. */
    sbx_host *other_host = new_host();
    sbx_backend *other = open_local(other_host, f.state_dir, NULL);
    CU_ASSERT_FATAL(sbx_backend_reconcile(other, "rec-box", &again, &err) == SBX_OK);
    CU_ASSERT_EQUAL(again.status, SBX_RECONCILE_FOUND);
    CU_ASSERT_STRING_EQUAL(again.backend_namespace, first.backend_namespace);
    CU_ASSERT_STRING_EQUAL(again.incarnation_id, first.incarnation_id);

    CU_ASSERT(sbx_backend_destroy(f.backend, "rec-box", &err) == SBX_OK);
    CU_ASSERT_FATAL(sbx_backend_reconcile(other, "rec-box", &gone, &err) == SBX_OK);
    CU_ASSERT_EQUAL(gone.status, SBX_RECONCILE_ABSENT);
    CU_ASSERT(gone.sandbox == NULL && gone.incarnation_id == NULL);
    CU_ASSERT(gone.backend_namespace != NULL &&
              strcmp(gone.backend_namespace, first.backend_namespace) == 0);

    sbx_reconciliation refused;
    CU_ASSERT(sbx_backend_reconcile(f.backend, "../x", &refused, &err) == SBX_ERR_REFUSED);

    sbx_backend_clear_reconciliation(f.backend, &first);
    sbx_backend_clear_reconciliation(other, &again);
    sbx_backend_clear_reconciliation(other, &gone);
    CU_ASSERT(first.sandbox == NULL && first.backend_namespace == NULL);
    sbx_backend_close(other);
    sbx_host_free(other_host);
    fixture_teardown(&f);
}

/* ------------------------------------------------------------ records */

/* What a local record says beyond the 1.1 fields: made between `before`
 * and `after` (the record keeps whole seconds), the incarnation reconcile
 * reports, its process, its directory, and nothing of containers. */
static void expect_local_record(const fixture *f, const sbx_sandbox_record *r, const char *id,
                                long pid, int64_t before, int64_t after)
{
    sbx_backend *b = f->backend;
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_STRING_EQUAL(r->sandbox.sandbox_id, id);
    CU_ASSERT_STRING_EQUAL(r->sandbox.status, "Running");
    CU_ASSERT(r->created_at >= before / 1000 * 1000 && r->created_at <= after);
    CU_ASSERT_EQUAL(r->created_at % 1000, 0);
    sbx_reconciliation rec;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_reconcile(b, id, &rec, &err) == SBX_OK &&
                    rec.incarnation_id != NULL);
    CU_ASSERT_STRING_EQUAL(r->incarnation_id, rec.incarnation_id);
    sbx_backend_clear_reconciliation(b, &rec);
    CU_ASSERT_EQUAL(r->pid, pid);
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s/%s", f->state_dir, id);
    CU_ASSERT_STRING_EQUAL(r->directory, dir);
    CU_ASSERT(r->container_id == NULL && r->container_name == NULL && r->engine == NULL &&
              r->engine_version == NULL);
}

/* create_record, discover_record and list_records of a directory sandbox
 * and of a command sandbox: the same facts from each, a new incarnation
 * (and time) for the id made again. */
static void records_of(const char *tag, const char *command)
{
    fixture f;
    sbx_local_test_make_dir(f.state_dir, sizeof f.state_dir, tag);
    f.host = new_host();
    if (command != NULL)
        f.backend = open_silent(f.host, f.state_dir, "0");
    else
        f.backend = open_local(f.host, f.state_dir, NULL);
    sbx_error err;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "rec-box";
    req.thread_id = "t1";
    int64_t before = sbx_test_wall_ms();
    sbx_sandbox_record *made = NULL;
    CU_ASSERT_FATAL(sbx_backend_create_record(f.backend, &req, &made, &err) == SBX_OK);
    int64_t after = sbx_test_wall_ms();
    long pid = sbx_local_test_metadata_pid(f.state_dir, "rec-box");
    CU_ASSERT_EQUAL(pid > 1, command != NULL);
    expect_local_record(&f, made, "rec-box", pid, before, after);

    sbx_sandbox_record *found = NULL;
    CU_ASSERT_FATAL(sbx_backend_discover_record(f.backend, "rec-box", &found, &err) == SBX_OK);
    CU_ASSERT_EQUAL(found->created_at, made->created_at);
    expect_local_record(&f, found, "rec-box", pid, before, after);
    sbx_backend_free_records(f.backend, found);

    sbx_sandbox_record *chain = NULL;
    size_t count = 0, running = 0;
    CU_ASSERT_FATAL(sbx_backend_list_records(f.backend, &chain, &count, &err) == SBX_OK);
    CU_ASSERT_EQUAL(count, 1);
    CU_ASSERT_EQUAL(listed(f.backend, "rec-box", &running), 1);
    CU_ASSERT_EQUAL(running, count);
    expect_local_record(&f, chain, "rec-box", pid, before, after);
    CU_ASSERT_PTR_NULL(chain->next);
    sbx_backend_free_records(f.backend, chain);

    CU_ASSERT(sbx_backend_destroy(f.backend, "rec-box", &err) == SBX_OK);
    sbx_sandbox_record *again = NULL;
    CU_ASSERT_FATAL(sbx_backend_create_record(f.backend, &req, &again, &err) == SBX_OK);
    CU_ASSERT_STRING_NOT_EQUAL(again->incarnation_id, made->incarnation_id);
    CU_ASSERT(again->created_at >= made->created_at);
    sbx_backend_free_records(f.backend, again);
    sbx_backend_free_records(f.backend, made);
    CU_ASSERT(sbx_backend_destroy(f.backend, "rec-box", &err) == SBX_OK);
    fixture_teardown(&f);
}

static void test_records_of_a_directory_sandbox(void)
{
    records_of("records dir", NULL);
}

static void test_records_of_a_command_sandbox(void)
{
    if (!sbx_local_test_on_path("tail")) {
        fprintf(stderr, "SKIP records of a command sandbox: no tail on PATH\n");
        return;
    }
    records_of("records cmd", SILENT_COMMAND);
}

/* A sandbox made in the first moments of a second is stamped with that
 * second, never the one before: the kernel's coarse clock (what time() reads)
 * lags the real one by up to a tick, and a caller comparing created_at with
 * its own clock would see a sandbox made before it asked. Each round waits for
 * the real clock to turn a second, then creates at once. */
static void test_record_made_as_a_second_turns(void)
{
    fixture f;
    sbx_local_test_make_dir(f.state_dir, sizeof f.state_dir, "records turn");
    f.host = new_host();
    f.backend = open_local(f.host, f.state_dir, NULL);
    sbx_error err;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "turn-box";
    for (int round = 0; round < 5; round++) {
        struct timespec turn;
        clock_gettime(CLOCK_REALTIME, &turn);
        turn.tv_sec++;
        turn.tv_nsec = 0;
        while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &turn, NULL) == EINTR)
            ;
        sbx_sandbox_record *made = NULL;
        CU_ASSERT_FATAL(sbx_backend_create_record(f.backend, &req, &made, &err) == SBX_OK);
        CU_ASSERT(made->created_at >= (int64_t)turn.tv_sec * 1000);
        sbx_backend_free_records(f.backend, made);
        CU_ASSERT(sbx_backend_destroy(f.backend, "turn-box", &err) == SBX_OK);
    }
    fixture_teardown(&f);
}

/* ------------------------------------------------------------ record cache */

/* What the cache holds at most (docs/local.md): one descriptor a record. */
#define CACHED_RECORDS_MAX 128

/* The second (CLOCK_REALTIME) from which the record of `id` has not
 * changed for more than the cache's settling time (1 s, docs/local.md):
 * from then on an instance that reads it keeps it.  0 without a record. */
static time_t record_settles_at(const fixture *f, const char *id)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s.json", f->state_dir, id);
    struct stat st;
    return stat(path, &st) == 0 ? st.st_ctim.tv_sec + 2 : 0;
}

/* Wait for the moment the record settles: the settling is a matter of the
 * clock alone, so the wait is for that time, not a condition polled. */
static void wait_settled(const fixture *f, const char *id)
{
    time_t at = record_settles_at(f, id);
    CU_ASSERT_FATAL(at > 0);
    struct timespec when = { at, 0 };
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &when, NULL) == EINTR)
        ;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    /* Nothing rewrote it meanwhile. */
    CU_ASSERT_FATAL(record_settles_at(f, id) <= now.tv_sec);
}

/* The thread id `b` discovers for `id` is `thread`. */
static void discovers_thread(sbx_backend *b, const char *id, const char *thread)
{
    sbx_sandbox *found = NULL;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_discover(b, id, &found, &err) == SBX_OK);
    CU_ASSERT_STRING_EQUAL(found->thread_id, thread);
    sbx_backend_free_sandboxes(b, found, 1);
}

/* An instance that has read a record answers from what it kept only while
 * the file is the same: replaced by another instance (a new file, perhaps
 * with the old one's inode number), rewritten in place to the same size,
 * or removed, the next read sees it. */
static void test_kept_records_follow_their_files(void)
{
    fixture f;
    fixture_setup(&f, "cache", NULL);
    sbx_host *other_host = new_host();
    sbx_backend *other = open_local(other_host, f.state_dir, NULL);
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(f.backend, "kept", "t-1", "erin", &err);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(f.backend, sb, 1);
    wait_settled(&f, "kept");
    discovers_thread(f.backend, "kept", "t-1");
    discovers_thread(f.backend, "kept", "t-1");

    CU_ASSERT_FATAL(sbx_backend_destroy(other, "kept", &err) == SBX_OK);
    sb = sbx_test_create(other, "kept", "t-2", "erin", &err);
    CU_ASSERT_FATAL(sb != NULL);
    sbx_backend_free_sandboxes(other, sb, 1);
    discovers_thread(f.backend, "kept", "t-2");

    /* Someone else's editor: the same bytes but one, written in place. */
    wait_settled(&f, "kept");
    discovers_thread(f.backend, "kept", "t-2");
    char path[PATH_MAX + 64], text[1024];
    snprintf(path, sizeof path, "%s/kept.json", f.state_dir);
    FILE *in = fopen(path, "r");
    CU_ASSERT_FATAL(in != NULL);
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    char *thread = strstr(text, "\"t-2\"");
    CU_ASSERT_FATAL(thread != NULL);
    thread[3] = '3';
    sbx_local_test_write_file(path, text);
    discovers_thread(f.backend, "kept", "t-3");

    CU_ASSERT_FATAL(sbx_backend_destroy(other, "kept", &err) == SBX_OK);
    sbx_sandbox *found = NULL;
    CU_ASSERT(sbx_backend_discover(f.backend, "kept", &found, &err) == SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "kept"), 0);
    CU_ASSERT_EQUAL(listed(f.backend, "kept", NULL), 0);
    sbx_backend_close(other);
    sbx_host_free(other_host);
    fixture_teardown(&f);
}

/* Descriptors this process has open. */
static int open_descriptors(void)
{
    DIR *dir = opendir("/proc/self/fd");
    CU_ASSERT_FATAL(dir != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(dir);
    return n - 1;   /* the directory's own */
}

/* More sandboxes than the cache keeps are all listed, every time; the
 * files it holds stay within its bound and are closed with the backend. */
static void test_kept_records_are_bounded(void)
{
    enum { SANDBOXES = CACHED_RECORDS_MAX + 5 };
    int before = open_descriptors();
    fixture f;
    fixture_setup(&f, "bounded", NULL);
    int opened = open_descriptors();
    sbx_error err;
    char id[32];
    for (int i = 0; i < SANDBOXES; i++) {
        snprintf(id, sizeof id, "many-%d", i);
        sbx_sandbox *sb = sbx_test_create(f.backend, id, NULL, NULL, &err);
        CU_ASSERT_FATAL(sb != NULL);
        sbx_backend_free_sandboxes(f.backend, sb, 1);
    }
    wait_settled(&f, id);
    for (int round = 0; round < 2; round++) {
        size_t total = 0;
        CU_ASSERT_EQUAL(listed(f.backend, "many-0", &total), 1);
        CU_ASSERT_EQUAL(total, SANDBOXES);
        CU_ASSERT(open_descriptors() - opened <= CACHED_RECORDS_MAX);
    }
    sbx_backend_close(f.backend);
    f.backend = NULL;
    CU_ASSERT_EQUAL(open_descriptors(), before);
    /* Destroyed after the count, through a backend of their own. */
    f.backend = open_local(f.host, f.state_dir, NULL);
    fixture_teardown(&f);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "directory sandbox: create, alive, list, discover, destroy", test_directory_lifecycle },
        { "anonymous sandbox keeps a null thread id", test_anonymous_sandbox_has_null_thread },
        { "create of another owner's id is refused", test_create_existing_of_another_owner_is_refused },
        { "command sandbox serves HTTP and is stopped by destroy", test_command_lifecycle },
        { "a sandbox's env reaches its command, not its command line",
          test_command_gets_the_env_outside_its_command_line },
        { "a server that never listens: create times out", test_server_that_never_listens_times_out },
        { "sandboxes are shared across processes and hosts", test_cross_process_discover_and_list },
        { "metadata is one complete JSON record", test_metadata_is_complete_json },
        { "readers never see partial metadata", test_readers_never_see_partial_metadata },
        { "invalid ids are refused before touching files", test_invalid_ids_are_refused_before_touching_files },
        { "options: unknown keys, bad values, default state dir", test_options },
        { "extra mounts are unsupported", test_extra_mounts_are_unsupported },
        { "reconcile: another host agrees; fields; absent; bad ids", test_reconcile },
        { "records (ABI 1.2) of a directory sandbox", test_records_of_a_directory_sandbox },
        { "records (ABI 1.2) of a command sandbox: its process", test_records_of_a_command_sandbox },
        { "a record made as a second turns names that second", test_record_made_as_a_second_turns },
        { "kept records follow their files", test_kept_records_follow_their_files },
        { "kept records are bounded and closed with the backend", test_kept_records_are_bounded },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("local backend", NULL, NULL, tests);
}
