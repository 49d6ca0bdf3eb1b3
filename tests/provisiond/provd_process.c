/* The daemon as a child process, and a daemon over the local backend. */
#include <config.h>

#include "tests/provisiond/provd_process.h"

#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/http_probe.h"
#include "tests/support/proc_table.h"
#include "tests/support/remote_helpers.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/watched_child.h"

#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sbx/host.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define LISTENING_PREFIX "sbx-provisiond listening on "
#define START_DEADLINE_MS 10000
#define STOP_DEADLINE_MS 10000

struct provd_proc {
    sbx_test_child child;
    char url[256];
};

const char *provd_bin(void)
{
    static char path[1024];
    const char *bin = getenv("SBX_PROVISIOND_BIN");
    if (bin != NULL && bin[0] != '\0')
        return bin;
    const char *builddir = getenv("SBX_TEST_BUILDDIR");
    snprintf(path, sizeof path, "%s/tools/provisiond/sbx-provisiond",
             builddir != NULL ? builddir : ".");
    return path;
}

/* The daemon with `args` as a watched child, stderr as
 * sbx_test_child_spawn takes it.  NULL (message on stderr) when it cannot
 * run. */
static provd_proc *spawn(const char *const *args, const char *stderr_path)
{
    provd_proc *p = calloc(1, sizeof *p);
    if (p == NULL) {
        fprintf(stderr, "provd: out of memory\n");
        return NULL;
    }
    if (sbx_test_child_spawn(&p->child, provd_bin(), args, stderr_path, 0) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

/* Signal it (0: not), wait at most `timeout_ms` for its end, free `p`:
 * its exit status, -1 when it died of a signal or was killed. */
static int finish(provd_proc *p, int signal_number, long timeout_ms, char *keep,
                  size_t keep_cap)
{
    int status = sbx_test_child_finish(&p->child, signal_number, timeout_ms, keep, keep_cap);
    free(p);
    return status;
}

provd_proc *provd_start(const char *const *args, const char *stderr_path)
{
    provd_proc *p = spawn(args, stderr_path);
    if (p != NULL &&
        !sbx_test_child_expect(&p->child, LISTENING_PREFIX, p->url, sizeof p->url,
                               START_DEADLINE_MS)) {
        finish(p, SIGKILL, STOP_DEADLINE_MS, NULL, 0);
        return NULL;
    }
    return p;
}

provd_proc *provd_spawn(const char *const *args, const char *stderr_path)
{
    return spawn(args, stderr_path);
}

int provd_wait_exit(provd_proc *p, long timeout_ms, char *output, size_t output_cap)
{
    return finish(p, 0, timeout_ms, output, output_cap);
}

long provd_request(const char *base, provd_send send, long timeout_ms, char *answer,
                   size_t answer_cap)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", base, send.path);
    sbx_test_http_result r;
    memset(&r, 0, sizeof r);
    long status =
        sbx_test_http(send.method, url, NULL, send.body, timeout_ms, &r) == 0 ? r.status : -1;
    if (answer != NULL)
        snprintf(answer, answer_cap, "%s", r.body != NULL ? r.body : "");
    sbx_test_http_result_clear(&r);
    return status;
}

long provd_create(const char *base, const char *id, const char *user, long timeout_ms,
                  char *answer, size_t answer_cap)
{
    char body[256];
    snprintf(body, sizeof body, "{\"sandbox_id\":\"%s\",\"user_id\":\"%s\",\"thread_id\":\"t\"}",
             id, user);
    return provd_request(base, (provd_send){"POST", "/api/sandboxes", body}, timeout_ms, answer,
                         answer_cap);
}

int provd_connect(const char *url)
{
    const char *colon = strrchr(url, ':');
    struct sockaddr_in to = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)atoi(colon != NULL ? colon + 1 : "0"))};
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&to, sizeof to) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int provd_create_token(const char *url, const char *id, const char *user, char *token)
{
    char answer[2048];
    long status = provd_create(url, id, user, 60000L, answer, sizeof answer);
    const char *mark = strstr(answer, "/s/");
    int ok = status == 200 && mark != NULL &&
             strspn(mark + 3, "0123456789abcdef") == PROVD_TEST_TOKEN_LEN;
    CU_ASSERT_TRUE(ok);
    if (ok)
        snprintf(token, PROVD_TEST_TOKEN_LEN + 1, "%s", mark + 3);
    return ok;
}

/* Whether `p`'s command line holds the marker `ctx`. */
static int holds_marker(const sbx_test_process *p, void *ctx)
{
    return strstr(p->line, ctx) != NULL;
}

int provd_running_with(const char *marker)
{
    return sbx_test_proc_each(holds_marker, (void *)marker);
}

const char *provd_url(const provd_proc *p)
{
    return p->url;
}

pid_t provd_pid(const provd_proc *p)
{
    return p->child.pid;
}

int provd_stop_with(provd_proc *p, int signal_number)
{
    return p != NULL ? finish(p, signal_number, STOP_DEADLINE_MS, NULL, 0) : -1;
}

int provd_stop(provd_proc *p)
{
    return provd_stop_with(p, SIGTERM);
}

int provd_run_refused(const char *const *args, char *output, size_t output_cap)
{
    output[0] = '\0';
    provd_proc *p = spawn(args, SBX_TEST_STDERR_TO_STDOUT);
    return p != NULL ? finish(p, 0, START_DEADLINE_MS, output, output_cap) : -1;
}

/* Start the daemon on d's directories with `backend_args` (NULL-terminated)
 * naming its backend and that backend's options. */
static int start_with(provd_local *d, const char *const *backend_args, int with_state_dir,
                      const char *const *extra)
{
    const char *args[40] = {"--listen", "127.0.0.1:0"};
    size_t n = 2;
    for (size_t i = 0; backend_args[i] != NULL && n + 1 < 40; i++)
        args[n++] = backend_args[i];
    if (with_state_dir && n + 2 < 40) {
        args[n++] = "--state-dir";
        args[n++] = d->owners_dir;
    }
    for (size_t i = 0; extra != NULL && extra[i] != NULL && n + 1 < 40; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    d->proc = provd_start(args, d->stderr_path);
    CU_ASSERT_PTR_NOT_NULL(d->proc);
    return d->proc != NULL;
}

static int start_on(provd_local *d, int with_state_dir, const char *const *extra)
{
    char local_setting[320];
    snprintf(local_setting, sizeof local_setting, "state_dir=%s", d->local_dir);
    const char *const backend_args[] = {"--backend", "local", "--set", local_setting, NULL};
    return start_with(d, backend_args, with_state_dir, extra);
}

/* Make d's fresh private directory.  Returns 1, or 0 after a CUnit failure. */
static int make_dir(provd_local *d)
{
    memset(d, 0, sizeof *d);
    if (sbx_test_scratch_dir(d->dir, sizeof d->dir, "provd") != 0) {
        CU_FAIL("cannot make a temporary directory");
        return 0;
    }
    snprintf(d->local_dir, sizeof d->local_dir, "%s/local", d->dir);
    snprintf(d->owners_dir, sizeof d->owners_dir, "%s/owners", d->dir);
    snprintf(d->stderr_path, sizeof d->stderr_path, "%s/stderr", d->dir);
    return 1;
}

int provd_local_start(provd_local *d, int with_state_dir, const char *const *extra)
{
    if (!make_dir(d))
        return 0;
    if (!start_on(d, with_state_dir, extra)) {
        provd_local_stop(d, 0);
        return 0;
    }
    return 1;
}

/* Start the daemon over the docker backend on d's fresh directory, its
 * containers running `command` (a docker backend option setting) and
 * create waiting as `ready` says (another setting). */
static int docker_start(provd_local *d, const char *socket, const char *image,
                        const char *command, const char *ready, const char *const *extra)
{
    if (!make_dir(d))
        return 0;
    char socket_setting[1100], image_setting[300];
    snprintf(socket_setting, sizeof socket_setting, "socket=%s", socket);
    snprintf(image_setting, sizeof image_setting, "image=%s", image);
    const char *const backend_args[] = {"--backend", "docker", "--set", socket_setting,
                                        "--set", image_setting, "--set", command,
                                        "--set", ready, NULL};
    if (!start_with(d, backend_args, 1, extra)) {
        provd_local_stop(d, 0);
        return 0;
    }
    return 1;
}

int provd_docker_start(provd_local *d, const char *socket, const char *image,
                       const char *const *extra)
{
    return docker_start(
        d, socket, image,
        "command=mkdir -p /www && echo sandbox > /www/index.html && exec httpd -f -p 8080 -h /www",
        "ready_timeout_ms=" SBX_TEST_READY_TIMEOUT_MS, extra);
}

int provd_docker_start_plain(provd_local *d, const char *socket, const char *image,
                             const char *const *extra)
{
    return docker_start(d, socket, image, "command=exec sleep 2147483647",
                        "ready_timeout_ms=0", extra);
}

int provd_local_restart(provd_local *d, int with_state_dir, const char *const *extra)
{
    return start_on(d, with_state_dir, extra);
}

/* The start of what the daemon wrote to d->stderr_path, NUL-terminated
 * ("" when nothing can be read). */
static void read_stderr(const provd_local *d, char *text, size_t cap)
{
    FILE *f = fopen(d->stderr_path, "r");
    size_t got = f != NULL ? fread(text, 1, cap - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    text[got] = '\0';
}

int provd_local_stop(provd_local *d, int keep_dir)
{
    int status = provd_stop(d->proc);
    d->proc = NULL;
    if (!keep_dir && d->dir[0] != '\0') {
        /* What the daemon said goes into the test's log before it goes. */
        char text[8192];
        read_stderr(d, text, sizeof text);
        fprintf(stderr, "--- sbx-provisiond stderr ---\n%s", text);
        sbx_test_destroy_local_sandboxes(d->local_dir);
        sbx_test_remove_tree(d->dir);
        d->dir[0] = '\0';
    }
    return status;
}

static int compare_ids(const void *a, const void *b)
{
    return strcmp(((const sbx_sandbox *)a)->sandbox_id, ((const sbx_sandbox *)b)->sandbox_id);
}

/* The local backend on d->local_dir, opened through the host library
 * without the daemon.  Returns 1 with *host and *backend set (close the
 * backend, then free the host, also on failure). */
static int open_local(const provd_local *d, sbx_host **host, sbx_backend **backend,
                      sbx_error *err)
{
    const sbx_option options[] = {{"state_dir", d->local_dir}};
    *host = NULL;
    *backend = NULL;
    return sbx_host_new(NULL, host, err) == SBX_OK &&
           sbx_backend_open(*host, "local", options, 1, backend, err) == SBX_OK;
}

unsigned provd_local_create_fields(const provd_local *d)
{
    sbx_host *host = NULL;
    sbx_backend *backend = NULL;
    sbx_error err;
    sbx_operations_info info = {.struct_size = sizeof info};
    if (!open_local(d, &host, &backend, &err) ||
        sbx_backend_operations_info(backend, &info, &err) != SBX_OK)
        fprintf(stderr, "provd: cannot open %s: %s\n", d->local_dir, err.message);
    sbx_backend_close(backend);
    sbx_host_free(host);
    return info.create_fields;
}

char *provd_local_ids(const provd_local *d)
{
    sbx_host *host = NULL;
    sbx_backend *backend = NULL;
    sbx_error err;
    sbx_sandbox *list = NULL;
    size_t count = 0;
    char *ids = NULL;
    if (open_local(d, &host, &backend, &err) &&
        sbx_backend_list_running(backend, &list, &count, &err) == SBX_OK) {
        if (count > 1) /* an empty list is NULL, which qsort may not take */
            qsort(list, count, sizeof *list, compare_ids);
        size_t size = 1;
        for (size_t i = 0; i < count; i++)
            size += strlen(list[i].sandbox_id) + 1;
        ids = calloc(1, size);
        for (size_t i = 0; ids != NULL && i < count; i++) {
            if (i > 0)
                strcat(ids, ",");
            strcat(ids, list[i].sandbox_id);
        }
    } else {
        fprintf(stderr, "provd: cannot list %s: %s\n", d->local_dir, err.message);
    }
    if (backend != NULL)
        sbx_backend_free_sandboxes(backend, list, count);
    sbx_backend_close(backend);
    sbx_host_free(host);
    return ids;
}

int provd_local_stderr_says(const provd_local *d, long timeout_ms, const char *text)
{
    long deadline = sbx_test_now_ms() + timeout_ms;
    do {
        char buf[16384];
        read_stderr(d, buf, sizeof buf);
        if (strstr(buf, text) != NULL)
            return 1;
    } while (poll(NULL, 0, 10) == 0 && sbx_test_now_ms() < deadline);
    return 0;
}

int provd_local_stderr_count(const provd_local *d, const char *text)
{
    FILE *f = fopen(d->stderr_path, "r");
    if (f == NULL)
        return 0;
    char line[4096];
    int count = 0;
    while (fgets(line, sizeof line, f) != NULL)
        count += strstr(line, text) != NULL;
    fclose(f);
    return count;
}

int provd_local_remote_up(provd_local *d, sbx_host **host, sbx_backend **remote)
{
    if (*remote != NULL)
        return 1;
    if (d->proc == NULL && !provd_local_start(d, 1, NULL))
        return 0;
    sbx_error err;
    *remote = sbx_test_open_remote(host, provd_url(d->proc), NULL, NULL, 0, &err);
    if (*remote == NULL)
        fprintf(stderr, "open remote: %s\n", err.message);
    CU_ASSERT_PTR_NOT_NULL(*remote);
    return *remote != NULL;
}
