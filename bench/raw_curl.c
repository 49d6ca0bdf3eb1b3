/*
 * raw-curl: the libcurl baseline of bench/run.  A plain keep-alive loop,
 * one easy handle per thread set up once, doing the same HTTP calls the
 * remote backend does, with nothing of ours in the way.
 *
 *   raw-curl [-k API_KEY] [-j] [-t TAG] BASE_URL GET PATH COUNT THREADS
 *   raw-curl [-k API_KEY] [-t TAG] BASE_URL CREATE COUNT THREADS
 *
 * GET fetches BASE_URL PATH; -j also parses each body (json_baseline.h):
 * as a list answer when PATH is /api/sandboxes, else as a sandbox answer
 * whose status must be Running (what is_alive learns).  CREATE posts a create body like the backend's for the
 * ids TAG-T-I (thread T, call I).  Prints one result line (bench_util.h).
 */
#include <config.h>

#include "bench/bench_util.h"
#include "bench/json_baseline.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A growing body buffer, reused across the calls of one thread. */
typedef struct body_buffer {
    char *data;
    size_t len, cap;
} body_buffer;

typedef struct raw_thread {
    CURL *handle;
    body_buffer body;
} raw_thread;

typedef struct raw_run {
    const char *base_url;
    const char *path;
    const char *tag;
    int create;
    int parse;
    int list;              /* the path is the list route */
    long last_list_count;
    struct curl_slist *headers;
    raw_thread *threads;
} raw_run;

static size_t collect(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    body_buffer *b = userdata;
    size_t n = size * nmemb;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (grown == NULL)
            return 0;
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, ptr, n);
    b->len += n;
    b->data[b->len] = '\0';
    return n;
}

static int one_call(void *ctx, unsigned thread, unsigned long index)
{
    raw_run *run = ctx;
    raw_thread *t = &run->threads[thread];
    char body[512];
    t->body.len = 0;
    if (run->create) {
        snprintf(body, sizeof body,
                 "{\"sandbox_id\":\"%s-%u-%lu\",\"thread_id\":\"%s-%u-%lu\","
                 "\"user_id\":\"default\",\"required_mount_contract_version\":0,"
                 "\"include_legacy_skills\":false,\"provision_lark_cli_runtime\":false,"
                 "\"provision_lark_cli_broker\":false}",
                 run->tag, thread, index, run->tag, thread, index);
        curl_easy_setopt(t->handle, CURLOPT_POSTFIELDS, body);
    }
    if (curl_easy_perform(t->handle) != CURLE_OK)
        return -1;
    long status = 0;
    curl_easy_getinfo(t->handle, CURLINFO_RESPONSE_CODE, &status);
    if (status != 200)
        return -1;
    if (run->parse && !run->list) {
        if (sbx_bench_parse_alive(t->body.data, t->body.len) != 1)
            return -1;
    } else if (run->parse) {
        long entries = sbx_bench_parse_list(t->body.data, t->body.len);
        if (entries < 0)
            return -1;
        if (thread == 0) /* one writer: the figure is the same for every thread */
            run->last_list_count = entries;
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: raw-curl [-k API_KEY] [-j] [-t TAG] BASE_URL GET PATH COUNT THREADS\n"
                    "       raw-curl [-k API_KEY] [-t TAG] BASE_URL CREATE COUNT THREADS\n");
    return 2;
}

int main(int argc, char **argv)
{
    raw_run run = {.tag = "raw", .path = "/api/sandboxes", .last_list_count = -1};
    const char *key = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "k:jt:")) != -1) {
        if (opt == 'k')
            key = optarg;
        else if (opt == 'j')
            run.parse = 1;
        else if (opt == 't')
            run.tag = optarg;
        else
            return usage();
    }
    int rest = argc - optind;
    if (rest < 2)
        return usage();
    run.base_url = argv[optind];
    run.create = strcmp(argv[optind + 1], "CREATE") == 0;
    if (run.create ? rest != 4 : (strcmp(argv[optind + 1], "GET") != 0 || rest != 5))
        return usage();
    if (!run.create)
        run.path = argv[optind + 2];
    run.list = strcmp(run.path, "/api/sandboxes") == 0;
    unsigned long count = sbx_bench_count_arg(argv[argc - 2], "COUNT");
    unsigned threads = (unsigned)sbx_bench_count_arg(argv[argc - 1], "THREADS");

    curl_global_init(CURL_GLOBAL_DEFAULT);
    char key_header[512];
    if (key != NULL) {
        snprintf(key_header, sizeof key_header, "X-API-Key: %s", key);
        run.headers = curl_slist_append(run.headers, key_header);
    }
    if (run.create)
        run.headers = curl_slist_append(run.headers, "Content-Type: application/json");
    char url[1024];
    snprintf(url, sizeof url, "%s%s", run.base_url, run.path);
    run.threads = calloc(threads, sizeof *run.threads);
    if (run.threads == NULL)
        return 1;
    for (unsigned i = 0; i < threads; i++) {
        CURL *h = curl_easy_init();
        if (h == NULL)
            return 1;
        curl_easy_setopt(h, CURLOPT_URL, url);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, run.headers);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &run.threads[i].body);
        if (run.create)
            curl_easy_setopt(h, CURLOPT_POST, 1L);
        run.threads[i].handle = h;
    }

    long rss_before = sbx_bench_maxrss_kb();
    sbx_bench_result r;
    sbx_bench_run(threads, count, one_call, &run, &r);
    sbx_bench_print(run.create ? "raw-curl create" : "raw-curl get", threads, &r);
    printf(" list_count=%ld maxrss_before_kb=%ld maxrss_kb=%ld\n", run.last_list_count,
           rss_before, sbx_bench_maxrss_kb());

    for (unsigned i = 0; i < threads; i++) {
        curl_easy_cleanup(run.threads[i].handle);
        free(run.threads[i].body.data);
    }
    free(run.threads);
    curl_slist_free_all(run.headers);
    curl_global_cleanup();
    return r.failures == 0 ? 0 : 1;
}
