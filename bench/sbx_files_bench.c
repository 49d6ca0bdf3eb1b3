/*
 * sbx-files-bench: one file call of one backend, COUNT times on one thread,
 * with a relative path (so that a remote backend needs the sandbox's home
 * directory); bench/files-run runs it on local directly and on remote ->
 * sbx-provisiond -> local, in turns, beside an HTTP round trip to the
 * daemon (docs/performance.md, "File calls through sbx-provisiond").
 *
 *   sbx-files-bench [-b BACKEND] [-o KEY=VALUE]... write|read|list COUNT
 *   sbx-files-bench -u URL rtt|rtt-post COUNT
 *
 *   write  write_file of 100 KiB to "bench.txt"
 *   read   read_file of that file (written once first)
 *   list   list_dir of "." (depth 1), which holds that file and 20 more
 *   rtt    GET URL over one kept-alive libcurl handle (no backend)
 *   rtt-post  POST of 100 KiB to URL likewise: with rtt against
 *          bench/static-answer, the HTTP round trip of a file call's own
 *          bytes (a server that does no work but send or drop them)
 * Prints one result line (bench_util.h).
 */
#include <config.h>

#include "bench/bench_util.h"

#include <sbx/host.h>

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_OPTIONS 8
#define FILE_BYTES (100u * 1024)
#define LISTED_FILES 20

typedef struct bench {
    sbx_backend *backend;
    const char *id;
    char *file;
    CURL *curl;
    struct curl_slist *headers;
} bench;

#define PROGRAM "sbx-files-bench"

static void usage(void)
{
    fprintf(stderr, "usage: sbx-files-bench [-b BACKEND] [-o KEY=VALUE]... write|read|list "
                    "COUNT\n       sbx-files-bench -u URL rtt|rtt-post COUNT\n");
    exit(2);
}

static int call_write(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    bench *b = ctx;
    sbx_error err;
    return sbx_backend_write_file(b->backend, b->id, "bench.txt", b->file, FILE_BYTES, 0, 0,
                                  &err) != SBX_OK;
}

static int call_read(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    bench *b = ctx;
    sbx_file_content *c = NULL;
    sbx_error err;
    if (sbx_backend_read_file(b->backend, b->id, "bench.txt", 0, FILE_BYTES, &c, &err) != SBX_OK)
        return 1;
    int bad = c->length != FILE_BYTES;
    sbx_backend_free_file_content(b->backend, c);
    return bad;
}

static int call_list(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    bench *b = ctx;
    sbx_dir_listing *l = NULL;
    sbx_error err;
    if (sbx_backend_list_dir(b->backend, b->id, ".", 1, 1000, &l, &err) != SBX_OK)
        return 1;
    int bad = l->count < LISTED_FILES + 1;
    sbx_backend_free_listing(b->backend, l);
    return bad;
}

static int call_rtt(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    bench *b = ctx;
    long status = 0;
    return curl_easy_perform(b->curl) != CURLE_OK ||
           curl_easy_getinfo(b->curl, CURLINFO_RESPONSE_CODE, &status) != CURLE_OK ||
           status != 200;
}

/* The bytes of the file the calls write and read. */
static char *file_bytes(void)
{
    char *file = malloc(FILE_BYTES);
    if (file == NULL)
        sbx_bench_die(PROGRAM, "allocating", NULL);
    for (size_t i = 0; i < FILE_BYTES; i++)
        file[i] = (char)('a' + i % 26);
    return file;
}

/* The sandbox the calls work in: created, with the file to read and the
 * files to list. */
static void prepare(bench *b)
{
    sbx_error err;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = b->id;
    sbx_sandbox *sb = NULL;
    if (sbx_backend_create(b->backend, &req, &sb, &err) != SBX_OK)
        sbx_bench_die(PROGRAM, "creating the sandbox", &err);
    sbx_backend_free_sandboxes(b->backend, sb, 1);
    b->file = file_bytes();
    if (sbx_backend_write_file(b->backend, b->id, "bench.txt", b->file, FILE_BYTES, 0, 0,
                               &err) != SBX_OK)
        sbx_bench_die(PROGRAM, "writing the file", &err);
    for (int i = 0; i < LISTED_FILES; i++) {
        char name[32];
        snprintf(name, sizeof name, "listed-%02d.txt", i);
        if (sbx_backend_write_file(b->backend, b->id, name, "x", 1, 0, 0, &err) != SBX_OK)
            sbx_bench_die(PROGRAM, "writing a file to list", &err);
    }
}

int main(int argc, char **argv)
{
    bench b = {.id = "bench-files"};
    const char *backend_name = "local", *url = NULL;
    sbx_option options[MAX_OPTIONS];
    size_t option_count = 0;
    int c;
    while ((c = getopt(argc, argv, "b:o:u:")) != -1) {
        switch (c) {
        case 'b': backend_name = optarg; break;
        case 'u': url = optarg; break;
        case 'o':
            if (sbx_bench_add_option(optarg, options, &option_count, MAX_OPTIONS) != 0)
                usage();
            break;
        default: usage();
        }
    }
    if (argc - optind != 2)
        usage();
    const char *op = argv[optind];
    unsigned long count = sbx_bench_count_arg(argv[optind + 1], "COUNT");
    sbx_bench_call_fn fn = strcmp(op, "write") == 0  ? call_write
                           : strcmp(op, "read") == 0 ? call_read
                           : strcmp(op, "list") == 0 ? call_list
                           : strcmp(op, "rtt") == 0 || strcmp(op, "rtt-post") == 0 ? call_rtt
                                                                                   : NULL;
    if (fn == NULL || (fn == call_rtt) != (url != NULL))
        usage();
    sbx_host *host = NULL;
    sbx_error err;
    if (fn == call_rtt) {
        curl_global_init(CURL_GLOBAL_DEFAULT);
        if ((b.curl = curl_easy_init()) == NULL)
            sbx_bench_die(PROGRAM, "making a libcurl handle", NULL);
        curl_easy_setopt(b.curl, CURLOPT_URL, url);
        curl_easy_setopt(b.curl, CURLOPT_WRITEFUNCTION, sbx_bench_discard);
        /* the receive buffer of the backends' client (common/http_client.c) */
        curl_easy_setopt(b.curl, CURLOPT_BUFFERSIZE, 131072L);
        if (strcmp(op, "rtt-post") == 0) {
            b.file = file_bytes();
            curl_easy_setopt(b.curl, CURLOPT_POSTFIELDS, b.file);
            curl_easy_setopt(b.curl, CURLOPT_POSTFIELDSIZE, (long)FILE_BYTES);
            /* as the remote backend sends its bodies: no wait for a 100 Continue */
            b.headers = curl_slist_append(curl_slist_append(NULL, "Expect:"),
                                          "Content-Type: application/json");
            curl_easy_setopt(b.curl, CURLOPT_HTTPHEADER, b.headers);
        }
    } else {
        if (sbx_host_new(NULL, &host, &err) != SBX_OK ||
            sbx_backend_open(host, backend_name, options, option_count, &b.backend, &err) !=
                SBX_OK)
            sbx_bench_die(PROGRAM, "opening the backend", &err);
        prepare(&b);
    }
    sbx_bench_result result;
    sbx_bench_run(1, count, fn, &b, &result);
    sbx_bench_print(op, 1, &result);
    printf("\n");
    if (fn == call_rtt) {
        curl_easy_cleanup(b.curl);
        curl_slist_free_all(b.headers);
        curl_global_cleanup();
    } else {
        if (sbx_backend_destroy(b.backend, b.id, &err) != SBX_OK)
            sbx_bench_die(PROGRAM, "destroying the sandbox", &err);
        sbx_backend_close(b.backend);
        sbx_host_free(host);
    }
    free(b.file);
    return result.failures == 0 ? 0 : 1;
}
