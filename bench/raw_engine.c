/*
 * raw-engine: the engine's own time, the baseline bench/docker-run puts
 * beside the docker backend (docs/performance.md, "The docker backend").  The
 * Docker Engine API calls the backend makes, sent with one libcurl handle
 * over the engine's unix socket, with nothing of ours in the way.
 *
 *   raw-engine [-t TAG] [-n EXPECTED] [-c COMMAND] [-x PROGRAM] [-w]
 *              SOCKET IMAGE cycle|list|exec|write|read COUNT
 *
 * cycle: COUNT times, for the container raw-TAG-I, the calls of the
 *   backend's create (POST /containers/create with a body of the backend's
 *   shape, init included; POST .../start; GET .../json, the published port
 *   read), is_alive (GET .../json, State.Running) and destroy (GET .../json,
 *   POST .../stop?t=5, DELETE ...?force=true).  Adds create_us, alive_us
 *   and destroy_us to the result line, as sbx-docker-bench does.
 * list: GET /containers/json with the backend's label filter, parsed with
 *   json-c; -n checks the number of entries.
 * exec, write, read: in one container raw-TAG-ops, created and started
 *   first and removed last (neither is timed):
 *   exec   COUNT runs of PROGRAM (default /bin/echo) as a user of the API
 *          makes them: POST .../exec (stdout and stderr attached), POST
 *          /exec/ID/start read to its end, GET /exec/ID/json until it no
 *          longer runs (exit code 0 checked); polls= says how many
 *          inspects past the first that took.  With -w PROGRAM runs under
 *          a shell that first writes its pid on stderr and last its exit
 *          code, from a subshell, as the backend's wrapper does, and
 *          reads the container's OOM kill count as it does
 *          (docs/docker.md): the engine's time for the same processes,
 *          leaving the client's own
 *   write  COUNT PUT .../archive?path=/tmp of a tar of one 1 MiB file
 *   read   COUNT GET .../archive?path=/tmp/raw-read.bin (written once
 *          first), the tar's length checked
 * Prints one result line (bench_util.h).
 */
#include <config.h>

#include "bench/bench_util.h"
#include "plugin/docker/docker_oom.h"

#include <curl/curl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API "http://engine/v1.41"
#define LIST_PATH "/containers/json?filters=%7B%22label%22%3A%5B%22sbx.managed%3Dtrue%22%5D%7D"

#define FILE_BYTES (1u << 20)

typedef struct raw_run {
    CURL *handle;
    struct curl_slist *json_header;
    struct curl_slist *no_type_header; /* a bodyless POST: no form encoding */
    struct curl_slist *tar_header;
    const char *image;
    const char *command;
    const char *program;               /* exec: what runs */
    int wrapped;                       /* exec: under a shell, as the backend runs it */
    const char *tag;
    long expected;
    double create, alive, destroy;     /* cycle: seconds in each step */
    char container[64];                /* exec, write, read: the container */
    char *tar;                         /* write: the archive sent */
    size_t tar_len;
    unsigned long polls;               /* exec: inspects past the first */
} raw_run;

/* What a call sends: `len` bytes of `bytes` under `headers`. */
typedef struct raw_body {
    const void *bytes;
    size_t len;
    struct curl_slist *headers;
} raw_body;

/* One call: METHOD API PATH with `body` (none when NULL).  Returns the
 * HTTP status (0 on a transport error) and the answer in *answer
 * (malloc'd, NUL terminated; its length in *answer_len when that is not
 * NULL) when `answer` is not NULL. */
static long call_bytes(raw_run *run, const char *method, const char *path, const raw_body *body,
                       char **answer, size_t *answer_len)
{
    char *data = NULL;
    size_t got = 0;
    FILE *sink = open_memstream(&data, &got);
    if (sink == NULL)
        return 0;
    char url[512];
    snprintf(url, sizeof url, API "%s", path);
    CURL *h = run->handle;
    int sends = strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, sink);
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    if (sends) {
        curl_off_t len = body != NULL ? (curl_off_t)body->len : 0;
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, len);
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body != NULL ? body->bytes : "");
    }
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, strcmp(method, "GET") == 0 ||
                                               strcmp(method, "POST") == 0 ? NULL : method);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, body != NULL ? body->headers
                                            : sends      ? run->no_type_header
                                                         : NULL);
    long status = 0;
    if (curl_easy_perform(h) == CURLE_OK)
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    fclose(sink);
    if (answer_len != NULL)
        *answer_len = got;
    if (answer != NULL)
        *answer = data;
    else
        free(data);
    return status;
}

/* call_bytes with a JSON text `body` (or none). */
static long call(raw_run *run, const char *method, const char *path, const char *body,
                 char **answer)
{
    raw_body json = { body, body != NULL ? strlen(body) : 0, run->json_header };
    return call_bytes(run, method, path, body != NULL ? &json : NULL, answer, NULL);
}

/* GET /containers/NAME/json: 1 when it answers that the container runs
 * and, with `need_port`, publishes 8080/tcp; else 0. */
static int inspect_running(raw_run *run, const char *name, int need_port)
{
    char path[160], *answer = NULL;
    snprintf(path, sizeof path, "/containers/%s/json", name);
    long status = call(run, "GET", path, NULL, &answer);
    json_object *o = status == 200 ? json_tokener_parse(answer) : NULL;
    free(answer);
    json_object *state, *running, *net, *ports, *bound;
    int ok = o != NULL && json_object_object_get_ex(o, "State", &state) &&
             json_object_object_get_ex(state, "Running", &running) &&
             json_object_get_boolean(running);
    if (ok && need_port)
        ok = json_object_object_get_ex(o, "NetworkSettings", &net) &&
             json_object_object_get_ex(net, "Ports", &ports) &&
             json_object_object_get_ex(ports, "8080/tcp", &bound) &&
             json_object_array_length(bound) > 0;
    json_object_put(o);
    return ok;
}

/* The create body the backend sends for sandbox `name` (its labels,
 * command, port binding and init).  Returns a malloc'd string or NULL. */
static char *create_body(const raw_run *run, const char *name)
{
    json_object *body = json_object_new_object(), *labels = json_object_new_object();
    json_object_object_add(labels, "sbx.managed", json_object_new_string("true"));
    json_object_object_add(labels, "sbx.sandbox_id", json_object_new_string(name));
    json_object_object_add(labels, "sbx.user_id", json_object_new_string("default"));
    json_object_object_add(labels, "sbx.thread_id", json_object_new_string(name));
    json_object_object_add(body, "Image", json_object_new_string(run->image));
    json_object_object_add(body, "Labels", labels);
    if (run->command != NULL) {
        json_object *cmd = json_object_new_array();
        json_object_array_add(cmd, json_object_new_string("sh"));
        json_object_array_add(cmd, json_object_new_string("-c"));
        json_object_array_add(cmd, json_object_new_string(run->command));
        json_object_object_add(body, "Cmd", cmd);
    }
    json_object *exposed = json_object_new_object();
    json_object_object_add(exposed, "8080/tcp", json_object_new_object());
    json_object_object_add(body, "ExposedPorts", exposed);
    json_object *binding = json_object_new_object(), *bindings = json_object_new_array(),
                *port_bindings = json_object_new_object(), *host = json_object_new_object();
    json_object_object_add(binding, "HostIp", json_object_new_string("127.0.0.1"));
    json_object_object_add(binding, "HostPort", json_object_new_string(""));
    json_object_array_add(bindings, binding);
    json_object_object_add(port_bindings, "8080/tcp", bindings);
    json_object_object_add(host, "PortBindings", port_bindings);
    json_object_object_add(host, "Init", json_object_new_boolean(1));
    json_object_object_add(body, "HostConfig", host);
    char *text = strdup(json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN));
    json_object_put(body);
    return text;
}

static int fail(const char *what, const char *name, long status)
{
    fprintf(stderr, "raw-engine: %s of %s: HTTP status %ld\n", what, name, status);
    return -1;
}

/* The backend's create of container `name`: create, start, inspect. */
static int create_container(raw_run *run, const char *name)
{
    char path[160];
    char *body = create_body(run, name);
    snprintf(path, sizeof path, "/containers/create?name=%s", name);
    long status = body != NULL ? call(run, "POST", path, body, NULL) : 0;
    free(body);
    if (status != 201)
        return fail("create", name, status);
    snprintf(path, sizeof path, "/containers/%s/start", name);
    if ((status = call(run, "POST", path, NULL, NULL)) != 204)
        return fail("start", name, status);
    if (!inspect_running(run, name, 1))
        return fail("inspect after start", name, 0);
    return 0;
}

/* The backend's destroy of container `name`: inspect, stop, remove. */
static int remove_container(raw_run *run, const char *name)
{
    char path[160];
    long status;
    if (!inspect_running(run, name, 0))
        return fail("inspect before stop", name, 0);
    snprintf(path, sizeof path, "/containers/%s/stop?t=5", name);
    if ((status = call(run, "POST", path, NULL, NULL)) != 204)
        return fail("stop", name, status);
    snprintf(path, sizeof path, "/containers/%s?force=true", name);
    if ((status = call(run, "DELETE", path, NULL, NULL)) != 204)
        return fail("removal", name, status);
    return 0;
}

static int call_cycle(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    raw_run *run = ctx;
    char name[64];
    snprintf(name, sizeof name, "raw-%s-%lu", run->tag, index);
    double t0 = sbx_bench_now();
    if (create_container(run, name) != 0)
        return -1;
    double t1 = sbx_bench_now();
    if (!inspect_running(run, name, 0))
        return fail("is_alive", name, 0);
    double t2 = sbx_bench_now();
    if (remove_container(run, name) != 0)
        return -1;
    double t3 = sbx_bench_now();
    run->create += t1 - t0;
    run->alive += t2 - t1;
    run->destroy += t3 - t2;
    return 0;
}

/* A string field of a JSON answer, copied into `out` ("" when absent). */
static void answer_string(const char *answer, const char *key, char *out, size_t size)
{
    json_object *o = answer != NULL ? json_tokener_parse(answer) : NULL, *v;
    out[0] = '\0';
    if (o != NULL && json_object_object_get_ex(o, key, &v))
        snprintf(out, size, "%s", json_object_get_string(v));
    json_object_put(o);
}

static int call_exec(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    raw_run *run = ctx;
    char path[256], id[128], *answer = NULL;
    json_object *body = json_object_new_object(), *cmd = json_object_new_array();
    if (run->wrapped) {
        json_object_array_add(cmd, json_object_new_string("/bin/sh"));
        json_object_array_add(cmd, json_object_new_string("-c"));
        json_object_array_add(cmd, json_object_new_string(
                                       DOCKER_OOM_COUNT_SH "; "
                                       "echo \"sbx-exec: pid $$ oom $o\" >&2; ( exec \"$@\" ); "
                                       "c=$?; echo \"\nsbx-exec: exit $c\" >&2; exit $c"));
        json_object_array_add(cmd, json_object_new_string("sbx-exec"));
    }
    json_object_array_add(cmd, json_object_new_string(run->program));
    json_object_object_add(body, "AttachStdout", json_object_new_boolean(1));
    json_object_object_add(body, "AttachStderr", json_object_new_boolean(1));
    json_object_object_add(body, "Cmd", cmd);
    snprintf(path, sizeof path, "/containers/%s/exec", run->container);
    long status = call(run, "POST", path, json_object_to_json_string(body), &answer);
    json_object_put(body);
    answer_string(answer, "Id", id, sizeof id);
    free(answer);
    if (status != 201 || id[0] == '\0')
        return fail("exec create", run->container, status);
    /* Without an Upgrade header the engine answers 200 and the stream
     * ends when the command's output does. */
    snprintf(path, sizeof path, "/exec/%s/start", id);
    if ((status = call(run, "POST", path, "{\"Detach\":false,\"Tty\":false}", NULL)) != 200)
        return fail("exec start", run->container, status);
    snprintf(path, sizeof path, "/exec/%s/json", id);
    for (unsigned long polls = 0; polls < 1000; polls++) {
        if ((status = call(run, "GET", path, NULL, &answer)) != 200) {
            free(answer);
            return fail("exec inspect", run->container, status);
        }
        json_object *o = json_tokener_parse(answer), *running, *code;
        free(answer);
        int done = json_object_object_get_ex(o, "Running", &running) &&
                   !json_object_get_boolean(running);
        int ok = done && json_object_object_get_ex(o, "ExitCode", &code) &&
                 json_object_get_int(code) == 0;
        json_object_put(o);
        if (done && !ok)
            return fail("exec (its exit code)", run->container, status);
        if (done) {
            run->polls += polls;
            return 0;
        }
    }
    return fail("exec (it still runs)", run->container, status);
}

/* PUT the archive of one file into /tmp. */
static int put_tar(raw_run *run)
{
    char path[160];
    snprintf(path, sizeof path, "/containers/%s/archive?path=/tmp", run->container);
    raw_body tar = { run->tar, run->tar_len, run->tar_header };
    long status = call_bytes(run, "PUT", path, &tar, NULL, NULL);
    return status == 200 ? 0 : fail("archive PUT", run->container, status);
}

static int call_write(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    return put_tar(ctx);
}

static int call_read(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    raw_run *run = ctx;
    char path[160], *answer = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "/containers/%s/archive?path=/tmp/raw-read.bin", run->container);
    long status = call_bytes(run, "GET", path, NULL, &answer, &len);
    free(answer);
    if (status != 200 || len < FILE_BYTES + 512)
        return fail("archive GET", run->container, status);
    return 0;
}

/* A ustar archive of one regular file `name` of FILE_BYTES bytes, as
 * `docker cp` sends one (header, data, two zero blocks). */
static int make_tar(raw_run *run, const char *name)
{
    run->tar_len = 512 + FILE_BYTES + 1024;
    run->tar = calloc(1, run->tar_len);
    if (run->tar == NULL)
        return -1;
    char *h = run->tar;
    snprintf(h, 100, "%s", name);
    snprintf(h + 100, 8, "%07o", 0644);
    snprintf(h + 108, 8, "%07o", 0);
    snprintf(h + 116, 8, "%07o", 0);
    snprintf(h + 124, 12, "%011o", FILE_BYTES);
    snprintf(h + 136, 12, "%011o", 0);
    h[156] = '0';
    memcpy(h + 257, "ustar\00000", 8);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += (unsigned char)h[i];
    snprintf(h + 148, 8, "%06o", sum);
    for (size_t i = 0; i < FILE_BYTES; i++)
        h[512 + i] = (char)(i * 31);
    return 0;
}

static int call_list(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    raw_run *run = ctx;
    char *answer = NULL;
    long status = call(run, "GET", LIST_PATH, NULL, &answer);
    json_object *list = status == 200 ? json_tokener_parse(answer) : NULL;
    free(answer);
    long entries = json_object_is_type(list, json_type_array)
                       ? (long)json_object_array_length(list) : -1;
    json_object_put(list);
    if (entries < 0)
        return fail("list", "the containers", status);
    if (run->expected >= 0 && entries != run->expected) {
        fprintf(stderr, "raw-engine: the list has %ld entries, expected %ld\n", entries,
                run->expected);
        return -1;
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: raw-engine [-t TAG] [-n EXPECTED] [-c COMMAND] [-x PROGRAM] [-w] "
                    "SOCKET IMAGE cycle|list|exec|write|read COUNT\n");
    return 2;
}

int main(int argc, char **argv)
{
    raw_run run = {.tag = "bench", .expected = -1, .program = "/bin/echo"};
    int opt;
    while ((opt = getopt(argc, argv, "t:n:c:x:w")) != -1) {
        if (opt == 't')
            run.tag = optarg;
        else if (opt == 'n')
            run.expected = atol(optarg);
        else if (opt == 'c')
            run.command = optarg;
        else if (opt == 'x')
            run.program = optarg;
        else if (opt == 'w')
            run.wrapped = 1;
        else
            return usage();
    }
    if (argc - optind != 4)
        return usage();
    const char *op = argv[optind + 2];
    sbx_bench_call_fn fn = strcmp(op, "cycle") == 0   ? call_cycle
                           : strcmp(op, "list") == 0  ? call_list
                           : strcmp(op, "exec") == 0  ? call_exec
                           : strcmp(op, "write") == 0 ? call_write
                           : strcmp(op, "read") == 0  ? call_read
                                                      : NULL;
    if (fn == NULL)
        return usage();
    unsigned long count = sbx_bench_count_arg(argv[optind + 3], "COUNT");
    run.image = argv[optind + 1];

    curl_global_init(CURL_GLOBAL_DEFAULT);
    run.handle = curl_easy_init();
    run.json_header = curl_slist_append(NULL, "Content-Type: application/json");
    run.no_type_header = curl_slist_append(NULL, "Content-Type:");
    run.tar_header = curl_slist_append(NULL, "Content-Type: application/x-tar");
    if (run.handle == NULL || run.json_header == NULL || run.no_type_header == NULL ||
        run.tar_header == NULL)
        return 1;
    curl_easy_setopt(run.handle, CURLOPT_UNIX_SOCKET_PATH, argv[optind]);
    curl_easy_setopt(run.handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(run.handle, CURLOPT_TIMEOUT_MS, 60000L);

    /* The operations' container, made and filled before the clock starts. */
    int in_container = fn != call_cycle && fn != call_list;
    snprintf(run.container, sizeof run.container, "raw-%s-ops", run.tag);
    if (in_container &&
        (create_container(&run, run.container) != 0 ||
         (fn != call_exec && make_tar(&run, fn == call_read ? "raw-read.bin" : "raw-write.bin") != 0) ||
         (fn == call_read && put_tar(&run) != 0)))
        return 1;
    sbx_bench_result r;
    sbx_bench_run(1, count, fn, &run, &r);
    char label[64];
    snprintf(label, sizeof label, "raw-engine %s", op);
    sbx_bench_print(label, 1, &r);
    if (fn == call_cycle && r.calls > 0) {
        double per = 1e6 / (double)r.calls;
        printf(" create_us=%.0f alive_us=%.0f destroy_us=%.0f", run.create * per,
               run.alive * per, run.destroy * per);
    }
    if (fn == call_exec)
        printf(" polls=%lu", run.polls);
    if (fn == call_write || fn == call_read)
        printf(" bytes=%u", FILE_BYTES);
    printf("\n");
    if (in_container && remove_container(&run, run.container) != 0)
        r.failures++;
    free(run.tar);
    curl_slist_free_all(run.json_header);
    curl_slist_free_all(run.no_type_header);
    curl_slist_free_all(run.tar_header);
    curl_easy_cleanup(run.handle);
    curl_global_cleanup();
    return r.failures == 0 ? 0 : 1;
}
