/*
 * raw-engine: the engine's own time, the baseline bench/docker-run puts
 * beside the docker backend (docs/performance.md, "The docker backend").  The
 * Docker Engine API calls the backend makes, sent with one libcurl handle
 * over the engine's unix socket, with nothing of ours in the way.
 *
 *   raw-engine [-t TAG] [-n EXPECTED] [-c COMMAND] SOCKET IMAGE cycle|list COUNT
 *
 * cycle: COUNT times, for the container raw-TAG-I, the calls of the
 *   backend's create (POST /containers/create with a body of the backend's
 *   shape, init included; POST .../start; GET .../json, the published port
 *   read), is_alive (GET .../json, State.Running) and destroy (GET .../json,
 *   POST .../stop?t=5, DELETE ...?force=true).  Adds create_us, alive_us
 *   and destroy_us to the result line, as sbx-docker-bench does.
 * list: GET /containers/json with the backend's label filter, parsed with
 *   json-c; -n checks the number of entries.
 * Prints one result line (bench_util.h).
 */
#include <config.h>

#include "bench/bench_util.h"

#include <curl/curl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API "http://engine/v1.41"
#define LIST_PATH "/containers/json?filters=%7B%22label%22%3A%5B%22sbx.managed%3Dtrue%22%5D%7D"

typedef struct raw_run {
    CURL *handle;
    struct curl_slist *json_header;
    struct curl_slist *no_type_header; /* a bodyless POST: no form encoding */
    const char *image;
    const char *command;
    const char *tag;
    long expected;
    double create, alive, destroy;   /* cycle: seconds in each step */
} raw_run;

/* One call: METHOD API PATH with `body` (JSON) or none.  Returns the HTTP
 * status (0 on a transport error) and the answer in *answer (malloc'd, NUL
 * terminated) when `answer` is not NULL. */
static long call(raw_run *run, const char *method, const char *path, const char *body,
                 char **answer)
{
    char *data = NULL;
    size_t len = 0;
    FILE *sink = open_memstream(&data, &len);
    if (sink == NULL)
        return 0;
    char url[512];
    snprintf(url, sizeof url, API "%s", path);
    CURL *h = run->handle;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, sink);
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    if (strcmp(method, "POST") == 0)
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body != NULL ? body : "");
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, strcmp(method, "DELETE") == 0 ? method : NULL);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, body != NULL             ? run->json_header
                                            : strcmp(method, "POST") == 0 ? run->no_type_header
                                                                          : NULL);
    long status = 0;
    if (curl_easy_perform(h) == CURLE_OK)
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    fclose(sink);
    if (answer != NULL)
        *answer = data;
    else
        free(data);
    return status;
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

static int call_cycle(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    raw_run *run = ctx;
    char name[64], path[160];
    snprintf(name, sizeof name, "raw-%s-%lu", run->tag, index);
    double t0 = sbx_bench_now();
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
    double t1 = sbx_bench_now();
    if (!inspect_running(run, name, 0))
        return fail("is_alive", name, 0);
    double t2 = sbx_bench_now();
    if (!inspect_running(run, name, 0))
        return fail("inspect before stop", name, 0);
    snprintf(path, sizeof path, "/containers/%s/stop?t=5", name);
    if ((status = call(run, "POST", path, NULL, NULL)) != 204)
        return fail("stop", name, status);
    snprintf(path, sizeof path, "/containers/%s?force=true", name);
    if ((status = call(run, "DELETE", path, NULL, NULL)) != 204)
        return fail("removal", name, status);
    double t3 = sbx_bench_now();
    run->create += t1 - t0;
    run->alive += t2 - t1;
    run->destroy += t3 - t2;
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
    fprintf(stderr, "usage: raw-engine [-t TAG] [-n EXPECTED] [-c COMMAND] SOCKET IMAGE "
                    "cycle|list COUNT\n");
    return 2;
}

int main(int argc, char **argv)
{
    raw_run run = {.tag = "bench", .expected = -1};
    int opt;
    while ((opt = getopt(argc, argv, "t:n:c:")) != -1) {
        if (opt == 't')
            run.tag = optarg;
        else if (opt == 'n')
            run.expected = atol(optarg);
        else if (opt == 'c')
            run.command = optarg;
        else
            return usage();
    }
    if (argc - optind != 4)
        return usage();
    const char *op = argv[optind + 2];
    sbx_bench_call_fn fn = strcmp(op, "cycle") == 0 ? call_cycle
                           : strcmp(op, "list") == 0 ? call_list
                                                     : NULL;
    if (fn == NULL)
        return usage();
    unsigned long count = sbx_bench_count_arg(argv[optind + 3], "COUNT");
    run.image = argv[optind + 1];

    curl_global_init(CURL_GLOBAL_DEFAULT);
    run.handle = curl_easy_init();
    run.json_header = curl_slist_append(NULL, "Content-Type: application/json");
    run.no_type_header = curl_slist_append(NULL, "Content-Type:");
    if (run.handle == NULL || run.json_header == NULL || run.no_type_header == NULL)
        return 1;
    curl_easy_setopt(run.handle, CURLOPT_UNIX_SOCKET_PATH, argv[optind]);
    curl_easy_setopt(run.handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(run.handle, CURLOPT_TIMEOUT_MS, 60000L);

    sbx_bench_result r;
    sbx_bench_run(1, count, fn, &run, &r);
    sbx_bench_print(fn == call_cycle ? "raw-engine cycle" : "raw-engine list", 1, &r);
    if (fn == call_cycle && r.calls > 0) {
        double per = 1e6 / (double)r.calls;
        printf(" create_us=%.0f alive_us=%.0f destroy_us=%.0f", run.create * per,
               run.alive * per, run.destroy * per);
    }
    printf("\n");
    curl_slist_free_all(run.json_header);
    curl_slist_free_all(run.no_type_header);
    curl_easy_cleanup(run.handle);
    curl_global_cleanup();
    return r.failures == 0 ? 0 : 1;
}
