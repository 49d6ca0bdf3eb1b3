/*
 * sbx-line-bench: how long a line a process prints takes to reach the
 * host (docs/performance.md, "Process output latency").
 *
 *   sbx-line-bench follow [-b BACKEND] [-o KEY=VALUE]... [-i ID] LINES
 *   sbx-line-bench poll -u SANDBOX_URL [-k AIO_KEY] LINES
 *   sbx-line-bench pipe LINES
 *
 * Both run, in a sandbox, a shell loop that prints LINES lines 50 ms
 * apart, each the wall-clock time in nanoseconds taken just before it is
 * printed; the reader takes the time each line arrives.  follow reads
 * through the library (sbx_backend_process_start, then
 * sbx_backend_process_read long-polled: BACKEND, default remote, opened
 * with the -o options; sandbox ID, default "bench-line", created first
 * and destroyed last).  poll is the remote backend's baseline: the same
 * AIO routes (POST /v1/bash/exec with async_mode, then /v1/bash/output
 * with wait) called with plain libcurl on one reused handle.  pipe is
 * the local backend's: the same loop run by /bin/sh on this machine into
 * a pipe this program reads.  Prints "MODE lines=N median_us=M p90_us=P
 * p99_us=Q".  Same machine only: the two clocks are one.
 */
#include <config.h>

#include "bench/bench_util.h"

#include <sbx/host.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_OPTIONS 8
#define MAX_LINES 10000
#define WAIT_MS 5000

/* Lines seen so far, and the text of a line not yet finished. */
typedef struct lines {
    double latency_us[MAX_LINES];
    size_t count;
    char partial[64];
    size_t partial_len;
} lines;

static void die(const char *what, const char *why)
{
    fprintf(stderr, "sbx-line-bench: %s: %s\n", what, why != NULL ? why : "failed");
    exit(1);
}

static void usage(void)
{
    fprintf(stderr, "usage: sbx-line-bench follow [-b BACKEND] [-o KEY=VALUE]... [-i ID] LINES\n"
                    "       sbx-line-bench poll -u SANDBOX_URL [-k AIO_KEY] LINES\n"
                    "       sbx-line-bench pipe LINES\n");
    exit(2);
}

static int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Take `len` bytes of output: each finished line is one latency. */
static void take(lines *l, const char *data, size_t len)
{
    int64_t now = wall_ns();
    for (size_t i = 0; i < len; i++) {
        if (data[i] != '\n') {
            if (l->partial_len + 1 < sizeof l->partial)
                l->partial[l->partial_len++] = data[i];
            continue;
        }
        l->partial[l->partial_len] = '\0';
        l->partial_len = 0;
        if (l->count < MAX_LINES)
            l->latency_us[l->count++] = (double)(now - strtoll(l->partial, NULL, 10)) / 1000.0;
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *mode, lines *l)
{
    if (l->count == 0)
        die(mode, "no line arrived");
    qsort(l->latency_us, l->count, sizeof l->latency_us[0], by_value);
    printf("%s lines=%zu median_us=%.0f p90_us=%.0f p99_us=%.0f\n", mode, l->count,
           l->latency_us[l->count / 2], l->latency_us[l->count * 9 / 10],
           l->latency_us[l->count * 99 / 100]);
}

/* The loop the sandbox runs. */
static void command_text(unsigned long n, char *out, size_t cap)
{
    snprintf(out, cap,
             "i=0; while [ $i -lt %lu ]; do date +%%s%%N; sleep 0.05; i=$((i+1)); done", n);
}

static void follow(sbx_backend *backend, const char *id, unsigned long n, lines *l)
{
    char text[256];
    command_text(n, text, sizeof text);
    sbx_process_request rq = SBX_PROCESS_REQUEST_INIT;
    rq.shell_command = text;
    sbx_process_info *info = NULL;
    sbx_error err;
    if (sbx_backend_process_start(backend, id, &rq, &info, &err) != SBX_OK)
        die("process_start", err.message);
    sbx_process_read_request read = SBX_PROCESS_READ_REQUEST_INIT;
    read.wait_ms = WAIT_MS;
    for (int ended = 0; !ended;) {
        sbx_process_output *o = NULL;
        if (sbx_backend_process_read(backend, id, info->process_id, &read, &o, &err) != SBX_OK)
            die("process_read", err.message);
        take(l, o->data, o->length);
        read.cursor = o->next;
        ended = o->ended;
        sbx_backend_free_process_output(backend, o);
    }
    sbx_backend_process_forget(backend, id, info->process_id, &err);
    sbx_backend_free_processes(backend, info);
}

/* One answer's body. */
typedef struct body {
    char *text;
    size_t len;
} body;

static size_t collect(char *data, size_t size, size_t n, void *ctx)
{
    body *b = ctx;
    char *grown = realloc(b->text, b->len + size * n + 1);
    if (grown == NULL)
        return 0;
    memcpy(grown + b->len, data, size * n);
    b->len += size * n;
    grown[b->len] = '\0';
    b->text = grown;
    return size * n;
}

/* POST `json` to URL + `route` on `curl`; the answer's data member. */
static json_object *post(CURL *curl, const char *url, const char *route, const char *json,
                         json_object **root)
{
    char full[1024];
    snprintf(full, sizeof full, "%s%s", url, route);
    body b = {NULL, 0};
    curl_easy_setopt(curl, CURLOPT_URL, full);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, json);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &b);
    if (curl_easy_perform(curl) != CURLE_OK || b.text == NULL)
        die(route, "no answer");
    *root = json_tokener_parse(b.text);
    free(b.text);
    json_object *data = NULL;
    if (*root == NULL || !json_object_object_get_ex(*root, "data", &data) || data == NULL)
        die(route, "an answer without data");
    return data;
}

static const char *member(json_object *obj, const char *name)
{
    json_object *v = NULL;
    return json_object_object_get_ex(obj, name, &v) && v != NULL ? json_object_get_string(v)
                                                                 : "";
}

static void poll_baseline(const char *url, const char *key, unsigned long n, lines *l)
{
    char text[256], json[1024], header[256];
    command_text(n, text, sizeof text);
    json_object *cmd = json_object_new_string(text);
    snprintf(json, sizeof json, "{\"command\":%s,\"async_mode\":true}",
             json_object_to_json_string(cmd));
    json_object_put(cmd);
    CURL *curl = curl_easy_init();
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    if (key != NULL) {
        snprintf(header, sizeof header, "X-AIO-API-Key: %s", key);
        headers = curl_slist_append(headers, header);
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    json_object *root = NULL;
    json_object *data = post(curl, url, "/v1/bash/exec", json, &root);
    char session[160];
    snprintf(session, sizeof session, "%s", member(data, "session_id"));
    json_object_put(root);
    long long offset = 0, stderr_offset = 0;
    for (int running = 1; running;) {
        snprintf(json, sizeof json,
                 "{\"session_id\":\"%s\",\"offset\":%lld,\"stderr_offset\":%lld,"
                 "\"wait\":true,\"wait_timeout\":%d}",
                 session, offset, stderr_offset, WAIT_MS / 1000);
        data = post(curl, url, "/v1/bash/output", json, &root);
        json_object *out = NULL, *command = NULL;
        json_object_object_get_ex(data, "stdout", &out);
        take(l, json_object_get_string(out), (size_t)json_object_get_string_len(out));
        offset = atoll(member(data, "offset"));
        stderr_offset = atoll(member(data, "stderr_offset"));
        json_object_object_get_ex(data, "command", &command);
        running = strcmp(member(command, "status"), "running") == 0;
        json_object_put(root);
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
}

/* The loop run into a pipe, read as it comes. */
static void pipe_baseline(unsigned long n, lines *l)
{
    char text[256], buf[4096];
    command_text(n, text, sizeof text);
    FILE *p = popen(text, "r");
    if (p == NULL)
        die("popen", NULL);
    ssize_t got;
    while ((got = read(fileno(p), buf, sizeof buf)) > 0)
        take(l, buf, (size_t)got);
    pclose(p);
}

int main(int argc, char **argv)
{
    const char *backend_name = "remote", *id = "bench-line", *url = NULL, *key = NULL;
    sbx_option options[MAX_OPTIONS];
    size_t option_count = 0;
    if (argc < 2)
        usage();
    const char *mode = argv[1];
    int c;
    optind = 2;
    while ((c = getopt(argc, argv, "b:o:i:u:k:")) != -1) {
        switch (c) {
        case 'b': backend_name = optarg; break;
        case 'i': id = optarg; break;
        case 'u': url = optarg; break;
        case 'k': key = optarg; break;
        case 'o':
            if (sbx_bench_add_option(optarg, options, &option_count, MAX_OPTIONS) != 0)
                usage();
            break;
        default: usage();
        }
    }
    if (argc - optind != 1)
        usage();
    unsigned long n = sbx_bench_count_arg(argv[optind], "LINES");
    if (n > MAX_LINES)
        usage();
    static lines l;
    if (strcmp(mode, "poll") == 0 && url != NULL) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        poll_baseline(url, key, n, &l);
        curl_global_cleanup();
    } else if (strcmp(mode, "pipe") == 0) {
        pipe_baseline(n, &l);
    } else if (strcmp(mode, "follow") == 0) {
        sbx_host *host = NULL;
        sbx_backend *backend = NULL;
        sbx_error err;
        if (sbx_host_new(NULL, &host, &err) != SBX_OK ||
            sbx_backend_open(host, backend_name, options, option_count, &backend, &err) !=
                SBX_OK)
            die("opening the backend", err.message);
        sbx_create_request req = SBX_CREATE_REQUEST_INIT;
        req.sandbox_id = id;
        sbx_sandbox *sb = NULL;
        if (sbx_backend_create(backend, &req, &sb, &err) != SBX_OK)
            die("creating the sandbox", err.message);
        sbx_backend_free_sandboxes(backend, sb, 1);
        follow(backend, id, n, &l);
        sbx_backend_destroy(backend, id, &err);
        sbx_backend_close(backend);
        sbx_host_free(host);
    } else {
        usage();
    }
    report(mode, &l);
    return 0;
}
