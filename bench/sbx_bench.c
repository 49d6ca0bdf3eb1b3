/*
 * sbx-bench: the remote backend, through the host library, as bench/run
 * measures it (docs/performance.md).
 *
 *   sbx-bench [-k API_KEY] [-t TAG] [-n EXPECTED] [-o KEY=VALUE] BASE_URL OP COUNT THREADS
 *
 * OP is one of
 *   alive   is_alive("bench-alive") COUNT times
 *   create  create of the ids TAG-T-I (thread T, call I), user "default"
 *   list    list_running COUNT times; -n checks the number of sandboxes
 *   open    COUNT times: new host, load + open "remote", close, free host
 *           (module load + open time; THREADS must be 1)
 *   reopen  COUNT times: open + close "remote" on one host that has loaded
 *           the module already (open time alone; THREADS must be 1)
 * -o passes one more backend option (e.g. max_response_bytes=67108864).
 * The backend is found through $SBX_MODULE_PATH.  Prints one result line
 * (bench_util.h) with the peak memory before and after the loop, and for
 * list the heap bytes the last list's records take (records_bytes).
 */
#include <config.h>

#include "bench/bench_util.h"

#include <sbx/host.h>

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct bench_run {
    sbx_backend *backend;
    sbx_host *host;        /* reopen: the host that keeps the module loaded */
    sbx_option options[3];
    size_t option_count;
    const char *tag;
    long expected;         /* list: sandboxes expected per call, -1: any */
    size_t last_count;
    size_t records_bytes;  /* list: heap bytes of the last list's records */
} bench_run;

/* Report a failed call once per thread (the loop stops there). */
static int failed(const char *what, const sbx_error *err)
{
    fprintf(stderr, "sbx-bench: %s failed: %s: %s\n", what, sbx_status_name(err->kind),
            err->message);
    return -1;
}

static int call_alive(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    bench_run *run = ctx;
    sbx_error err;
    int alive = 0;
    if (sbx_backend_is_alive(run->backend, "bench-alive", &alive, &err) != SBX_OK)
        return failed("is_alive", &err);
    if (!alive)
        fprintf(stderr, "sbx-bench: is_alive answered 'not alive' for bench-alive\n");
    return alive ? 0 : -1;
}

static int call_create(void *ctx, unsigned thread, unsigned long index)
{
    bench_run *run = ctx;
    char id[64];
    snprintf(id, sizeof id, "%s-%u-%lu", run->tag, thread, index);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.thread_id = id;
    sbx_sandbox *sb = NULL;
    sbx_error err;
    if (sbx_backend_create(run->backend, &req, &sb, &err) != SBX_OK)
        return failed("create", &err);
    sbx_backend_free_sandboxes(run->backend, sb, 1);
    return 0;
}

static int call_list(void *ctx, unsigned thread, unsigned long index)
{
    (void)index;
    bench_run *run = ctx;
    sbx_sandbox *list = NULL;
    size_t count = 0;
    sbx_error err;
    if (sbx_backend_list_running(run->backend, &list, &count, &err) != SBX_OK)
        return failed("list_running", &err);
    if (thread == 0) { /* one writer: the figure is the same for every thread */
        run->last_count = count;
        /* The array and each record's one block with its malloc header:
         * "the records" of the list's memory target (growth at most 1.5 x
         * the answer plus the records; docs/performance.md, "List
         * decoding"). */
        run->records_bytes = count * sizeof *list;
        for (size_t i = 0; i < count; i++)
            run->records_bytes += malloc_usable_size(list[i].sandbox_id) + sizeof(size_t);
    }
    sbx_backend_free_sandboxes(run->backend, list, count);
    if (run->expected >= 0 && count != (size_t)run->expected) {
        fprintf(stderr, "sbx-bench: list_running gave %zu sandboxes, expected %ld\n", count,
                run->expected);
        return -1;
    }
    return 0;
}

static sbx_status open_backend(bench_run *run, sbx_host **host, sbx_error *err)
{
    sbx_status st = sbx_host_new(NULL, host, err);
    if (st == SBX_OK)
        st = sbx_backend_open(*host, "remote", run->options, run->option_count,
                              &run->backend, err);
    return st;
}

static int call_open(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    bench_run *run = ctx;
    sbx_host *host = NULL;
    sbx_error err;
    sbx_status st = open_backend(run, &host, &err);
    sbx_backend_close(run->backend);
    run->backend = NULL;
    sbx_host_free(host);
    return st == SBX_OK ? 0 : failed("open", &err);
}

static int call_reopen(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    bench_run *run = ctx;
    sbx_backend *backend = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_open(run->host, "remote", run->options, run->option_count,
                                     &backend, &err);
    sbx_backend_close(backend);
    return st == SBX_OK ? 0 : failed("open", &err);
}

static int usage(void)
{
    fprintf(stderr, "usage: sbx-bench [-k API_KEY] [-t TAG] [-n EXPECTED] [-o KEY=VALUE] BASE_URL "
                    "alive|create|list|open|reopen COUNT THREADS\n");
    return 2;
}

int main(int argc, char **argv)
{
    bench_run run = {.tag = "bench", .expected = -1};
    const char *key = NULL;
    int opt;
    char *extra = NULL;
    while ((opt = getopt(argc, argv, "k:t:n:o:")) != -1) {
        if (opt == 'o' && strchr(optarg, '=') != NULL)
            extra = optarg;
        else if (opt == 'k')
            key = optarg;
        else if (opt == 't')
            run.tag = optarg;
        else if (opt == 'n')
            run.expected = atol(optarg);
        else
            return usage();
    }
    if (argc - optind != 4)
        return usage();
    const char *op = argv[optind + 1];
    unsigned long count = sbx_bench_count_arg(argv[optind + 2], "COUNT");
    unsigned threads = (unsigned)sbx_bench_count_arg(argv[optind + 3], "THREADS");
    run.options[run.option_count++] = (sbx_option){"provisioner_url", argv[optind]};
    if (key != NULL)
        run.options[run.option_count++] = (sbx_option){"api_key", key};
    if (extra != NULL) {
        char *eq = strchr(extra, '=');
        *eq = '\0';
        run.options[run.option_count++] = (sbx_option){extra, eq + 1};
    }

    sbx_bench_call_fn fn = strcmp(op, "alive") == 0    ? call_alive
                           : strcmp(op, "create") == 0 ? call_create
                           : strcmp(op, "list") == 0   ? call_list
                           : strcmp(op, "open") == 0   ? call_open
                           : strcmp(op, "reopen") == 0 ? call_reopen
                                                       : NULL;
    if (fn == NULL || ((fn == call_open || fn == call_reopen) && threads != 1))
        return usage();

    sbx_host *host = NULL;
    sbx_error err;
    if (fn != call_open && open_backend(&run, &host, &err) != SBX_OK) {
        failed("open", &err);
        sbx_host_free(host);
        return 1;
    }
    if (fn == call_reopen) { /* the module stays loaded: measure open alone */
        sbx_backend_close(run.backend);
        run.backend = NULL;
        run.host = host;
    }
    long rss_before = sbx_bench_maxrss_kb();
    sbx_bench_result r;
    sbx_bench_run(threads, count, fn, &run, &r);
    char label[64];
    snprintf(label, sizeof label, "sbx %s", op);
    sbx_bench_print(label, threads, &r);
    printf(" list_count=%ld records_bytes=%zu maxrss_before_kb=%ld maxrss_kb=%ld\n",
           fn == call_list ? (long)run.last_count : -1L, run.records_bytes, rss_before,
           sbx_bench_maxrss_kb());
    sbx_backend_close(run.backend);
    sbx_host_free(host);
    return r.failures == 0 ? 0 : 1;
}
