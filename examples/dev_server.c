/*
 * A small host program embedding libsbx-host: it runs a development server
 * in a sandbox the way an agent does ("start the dev server, then test
 * it"), through the live processes of ABI 1.4.
 *
 *   dev_server CONFIG SANDBOX_ID PORT
 *
 * CONFIG is an sbx configuration file (docs/configuration.md) naming the
 * backend and its options.  The program
 *   1. opens the backend and creates (or finds) the sandbox SANDBOX_ID,
 *   2. starts `python3 -m http.server PORT --bind 127.0.0.1` in it as a
 *      background process, which runs on after the call that started it,
 *   3. waits until the port accepts connections, probed from inside the
 *      sandbox (so it works whatever the sandbox's network), giving up if
 *      the server ends first or at a deadline,
 *   4. requests a page from it, and tails the server's log (its stderr, a
 *      line per request) from the start until the request's line is there,
 *   5. stops the server (SIGTERM to its process group), reads how it
 *      ended, forgets its record and destroys the sandbox.
 * It prints one line per step on stdout and the library's log on stderr;
 * it exits 0 on success, 1 when a call fails (the error on stderr), 2 on
 * bad usage.
 *
 * Build it against an installed sbx:
 *   cc -std=c11 dev_server.c $(pkg-config --cflags --libs sbx-host) -o dev_server
 * In the source tree `make check` builds it (examples/local.mk) and
 * tests/sbxctl/check-example-dev-server.sh runs it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sbx/host.h>

/* How long the server has to start serving, and the log to show the
 * request: generous, as a loaded machine starts python3 slowly. */
#define DEADLINE_MS 120000

/* One read of the log waits at most this long (the call returns as soon
 * as output or the server's end is there). */
#define READ_WAIT_MS 1000

/* After SIGTERM, how long the server has to end. */
#define STOP_WAIT_MS 10000

static void log_line(void *ctx, sbx_log_level level, const char *backend, const char *message)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    (void)ctx;
    fprintf(stderr, "[%s] %s: %s\n", names[level <= SBX_LOG_DEBUG ? level : SBX_LOG_DEBUG],
            backend, message);
}

static int failed(const char *what, const sbx_error *err)
{
    fprintf(stderr, "dev_server: %s: %s: %s\n", what, sbx_status_name(err->kind), err->message);
    return 1;
}

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* What this program holds, released in reverse order by close_all. */
typedef struct session {
    sbx_config *config;
    sbx_host *host;
    sbx_backend *backend;
} session;

/* Load CONFIG and open the backend it names, with its options. */
static int open_configured(session *s, const char *path, sbx_error *err)
{
    if (sbx_config_load_file(path, &s->config, err) != SBX_OK)
        return failed("configuration", err);
    sbx_host_services services = {sizeof services, log_line, NULL};
    if (sbx_host_new(&services, &s->host, err) != SBX_OK)
        return failed("host", err);
    size_t dirs = 0;
    const char *const *module_path = sbx_config_module_path(s->config, &dirs);
    if (dirs > 0 && sbx_host_set_module_path(s->host, module_path, dirs, err) != SBX_OK)
        return failed("module path", err);
    const char *name = sbx_config_backend(s->config);
    size_t count = 0;
    const sbx_option *options =
        name != NULL ? sbx_config_backend_options(s->config, name, &count) : NULL;
    if (sbx_backend_open(s->host, name != NULL ? name : "local", options, count, &s->backend,
                         err) != SBX_OK)
        return failed("backend", err);
    return 0;
}

static void close_all(session *s)
{
    sbx_backend_close(s->backend);
    sbx_host_free(s->host);
    sbx_config_free(s->config);
}

/* Run a short python3 program in the sandbox; its exit code, or -1 when
 * exec itself failed (*err says why). */
static int run_python(sbx_backend *b, const char *id, const char *program, const char *port,
                      sbx_error *err)
{
    const char *argv[] = {"python3", "-c", program, port, NULL};
    sbx_exec_request request = SBX_EXEC_REQUEST_INIT;
    request.argv = argv;
    request.timeout_ms = 30000;
    sbx_exec_result *result = NULL;
    if (sbx_backend_exec(b, id, &request, &result, err) != SBX_OK)
        return -1;
    int code = result->outcome == SBX_EXEC_EXITED ? result->exit_code : 128;
    sbx_backend_free_exec_result(b, result);
    return code;
}

/* Step 3: probe the port from inside the sandbox until it accepts a
 * connection; between probes, check that the server still runs (a server
 * that died will never serve: say so at once rather than at the deadline). */
static int wait_for_port(sbx_backend *b, const char *id, const char *pid, const char *port)
{
    static const char probe[] =
        "import socket, sys\n"
        "try:\n"
        "    socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1).close()\n"
        "except OSError:\n"
        "    sys.exit(1)\n";
    long long deadline = now_ms() + DEADLINE_MS;
    sbx_error err;
    for (;;) {
        int code = run_python(b, id, probe, port, &err);
        if (code < 0)
            return failed("probe", &err);
        if (code == 0)
            return 0;
        /* A wait of 0 answers at once: is it still running? */
        sbx_process_info *info = NULL;
        if (sbx_backend_process_wait(b, id, pid, 0, &info, &err) != SBX_OK)
            return failed("process_wait", &err);
        int ended = info->state == SBX_PROCESS_ENDED;
        sbx_backend_free_processes(b, info);
        if (ended) {
            fprintf(stderr, "dev_server: the server ended before it served\n");
            return 1;
        }
        if (now_ms() > deadline) {
            fprintf(stderr, "dev_server: port %s did not open within %d ms\n", port,
                    DEADLINE_MS);
            return 1;
        }
    }
}

/* Step 4: print the server's log from the start, a "log: " line per line,
 * until a line holds `needle` (0), the server ends or the deadline (1).
 * The cursor is all a reader keeps: another host process could tail the
 * same log from its own cursor. */
static int tail_log_until(sbx_backend *b, const char *id, const char *pid, const char *needle)
{
    sbx_process_read_request request = SBX_PROCESS_READ_REQUEST_INIT;
    request.wait_ms = READ_WAIT_MS;
    char line[4096];
    size_t used = 0;
    long long deadline = now_ms() + DEADLINE_MS;
    sbx_error err;
    while (now_ms() < deadline) {
        sbx_process_output *out = NULL;
        if (sbx_backend_process_read(b, id, pid, &request, &out, &err) != SBX_OK)
            return failed("process_read", &err);
        if (out->stdout_dropped + out->stderr_dropped > 0)
            printf("log: (%llu bytes dropped: the buffer wrapped)\n",
                   (unsigned long long)(out->stdout_dropped + out->stderr_dropped));
        int found = 0;
        for (size_t i = 0; i < out->length; i++) {
            char c = out->data[i];
            if (c != '\n' && used < sizeof line - 1) {
                line[used++] = c;
                continue;
            }
            line[used] = '\0';
            printf("log: %s\n", line);
            found = found || strstr(line, needle) != NULL;
            used = 0;
        }
        request.cursor = out->next;
        int ended = out->ended;
        sbx_backend_free_process_output(b, out);
        if (found)
            return 0;
        if (ended)
            break;
    }
    fprintf(stderr, "dev_server: no log line with '%s'\n", needle);
    return 1;
}

/* Step 5: SIGTERM to the server's group, wait for its end, forget it. */
static int stop_server(sbx_backend *b, const char *id, const char *pid)
{
    sbx_error err;
    if (sbx_backend_process_signal(b, id, pid, 15, &err) != SBX_OK)
        return failed("process_signal", &err);
    sbx_process_info *info = NULL;
    if (sbx_backend_process_wait(b, id, pid, STOP_WAIT_MS, &info, &err) != SBX_OK)
        return failed("process_wait", &err);
    int ended = info->state == SBX_PROCESS_ENDED;
    if (ended && info->outcome == SBX_EXEC_SIGNALED)
        printf("server stopped: signal %d\n", info->term_signal);
    else if (ended)
        printf("server stopped: exit %d\n", info->exit_code);
    sbx_backend_free_processes(b, info);
    if (!ended) {
        fprintf(stderr, "dev_server: the server did not stop within %d ms\n", STOP_WAIT_MS);
        return 1;
    }
    /* Its record and output buffers are kept until forgotten (or until
     * newer processes push them out). */
    if (sbx_backend_process_forget(b, id, pid, &err) != SBX_OK)
        return failed("process_forget", &err);
    return 0;
}

/* Steps 2 to 5 on the sandbox `id`. */
static int run_server(sbx_backend *b, const char *id, const char *port)
{
    static const char get[] =
        "import sys, urllib.request\n"
        "urllib.request.urlopen('http://127.0.0.1:%s/' % sys.argv[1], timeout=10).read()\n";
    const char *argv[] = {"python3", "-m", "http.server", port, "--bind", "127.0.0.1", NULL};
    sbx_process_request request = SBX_PROCESS_REQUEST_INIT;
    request.argv = argv;
    sbx_process_info *server = NULL;
    sbx_error err;
    if (sbx_backend_process_start(b, id, &request, &server, &err) != SBX_OK)
        return failed("process_start", &err);
    /* The id is all another host process needs to find the server again. */
    char pid[SBX_PROCESS_ID_MAX + 1];
    snprintf(pid, sizeof pid, "%s", server->process_id);
    sbx_backend_free_processes(b, server);
    printf("server started: process %s\n", pid);

    int status = wait_for_port(b, id, pid, port);
    if (status == 0) {
        printf("port %s is open inside the sandbox\n", port);
        int code = run_python(b, id, get, port, &err);
        if (code != 0)
            status = code < 0 ? failed("request", &err) : 1;
    }
    if (status == 0)
        status = tail_log_until(b, id, pid, "\"GET / HTTP/1.1\" 200");
    int stopped = stop_server(b, id, pid);
    return status != 0 ? status : stopped;
}

int main(int argc, char **argv)
{
    if (argc != 4 || strspn(argv[3], "0123456789") != strlen(argv[3]) || argv[3][0] == '\0') {
        fprintf(stderr, "usage: dev_server CONFIG SANDBOX_ID PORT\n");
        return 2;
    }
    const char *id = argv[2];
    session s = {NULL, NULL, NULL};
    sbx_error err;
    int status = open_configured(&s, argv[1], &err);
    if (status == 0) {
        sbx_create_request create = SBX_CREATE_REQUEST_INIT;
        create.sandbox_id = id;
        sbx_sandbox_record *record = NULL;
        if (sbx_backend_create_record(s.backend, &create, &record, &err) != SBX_OK) {
            status = failed("create", &err);
        } else {
            sbx_backend_free_records(s.backend, record);
            printf("sandbox %s ready\n", id);
            status = run_server(s.backend, id, argv[3]);
            /* Destroy ends every process still in the sandbox. */
            if (sbx_backend_destroy(s.backend, id, &err) != SBX_OK)
                status = failed("destroy", &err);
            else
                printf("sandbox %s destroyed\n", id);
        }
    }
    close_all(&s);
    return status;
}
