/*
 * sbx-docker-bench: the docker backend, through the host library, as
 * bench/docker-run measures it (docs/performance.md, "The docker backend").
 *
 *   sbx-docker-bench [-t TAG] [-n EXPECTED] [-c COMMAND] [-o KEY=VALUE]...
 *                    SOCKET IMAGE OP COUNT THREADS
 *
 * OP is one of
 *   cycle   COUNT times: create TAG-T-I (thread T, call I), is_alive of it
 *           (which must answer alive), destroy it.  One cycle of the id
 *           TAG-first runs before, untimed in the rate: an instance's first
 *           create asks the engine about its init binary (GET /info, once
 *           per instance); its time is reported as first_us.
 *   create  create TAG-T-I COUNT times (the sandboxes a list then finds)
 *   list    list_running COUNT times; -n checks the number of sandboxes
 * Sandboxes run COMMAND (the backend's `command` option; default: the
 * image's own); -o sets another backend option (at most 8).  The backend is found through $SBX_MODULE_PATH.  Prints one
 * result line (bench_util.h); cycle adds the mean time of each step,
 * create_us, alive_us and destroy_us.
 */
#include <config.h>

#include "bench/bench_util.h"

#include <sbx/host.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Seconds spent in each step of a cycle, by one thread. */
typedef struct step_times {
    double create, alive, destroy;
} step_times;

typedef struct docker_run {
    sbx_backend *backend;
    const char *tag;
    long expected;        /* list: sandboxes expected per call, -1: any */
    step_times *steps;    /* cycle: one per thread */
} docker_run;

/* Report a failed call (the thread's loop stops there). */
static int failed(const char *what, const char *id, const sbx_error *err)
{
    fprintf(stderr, "sbx-docker-bench: %s of %s failed: %s: %s\n", what, id,
            sbx_status_name(err->kind), err->message);
    return -1;
}

static int create_one(docker_run *run, const char *id)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.thread_id = id;
    sbx_sandbox *sb = NULL;
    sbx_error err;
    if (sbx_backend_create(run->backend, &req, &sb, &err) != SBX_OK)
        return failed("create", id, &err);
    sbx_backend_free_sandboxes(run->backend, sb, 1);
    return 0;
}

static int call_create(void *ctx, unsigned thread, unsigned long index)
{
    docker_run *run = ctx;
    char id[64];
    snprintf(id, sizeof id, "%s-%u-%lu", run->tag, thread, index);
    return create_one(run, id);
}

static int call_cycle(void *ctx, unsigned thread, unsigned long index)
{
    docker_run *run = ctx;
    step_times *steps = &run->steps[thread];
    char id[64];
    snprintf(id, sizeof id, "%s-%u-%lu", run->tag, thread, index);
    double t0 = sbx_bench_now();
    if (create_one(run, id) != 0)
        return -1;
    double t1 = sbx_bench_now();
    sbx_error err;
    int alive = 0;
    if (sbx_backend_is_alive(run->backend, id, &alive, &err) != SBX_OK)
        return failed("is_alive", id, &err);
    if (!alive) {
        fprintf(stderr, "sbx-docker-bench: is_alive answered 'not alive' for %s\n", id);
        return -1;
    }
    double t2 = sbx_bench_now();
    if (sbx_backend_destroy(run->backend, id, &err) != SBX_OK)
        return failed("destroy", id, &err);
    double t3 = sbx_bench_now();
    steps->create += t1 - t0;
    steps->alive += t2 - t1;
    steps->destroy += t3 - t2;
    return 0;
}

static int call_list(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    docker_run *run = ctx;
    sbx_sandbox *list = NULL;
    size_t count = 0;
    sbx_error err;
    if (sbx_backend_list_running(run->backend, &list, &count, &err) != SBX_OK)
        return failed("list_running", "the sandboxes", &err);
    sbx_backend_free_sandboxes(run->backend, list, count);
    if (run->expected >= 0 && count != (size_t)run->expected) {
        fprintf(stderr, "sbx-docker-bench: list_running gave %zu sandboxes, expected %ld\n",
                count, run->expected);
        return -1;
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: sbx-docker-bench [-t TAG] [-n EXPECTED] [-c COMMAND] [-o KEY=VALUE]... "
                    "SOCKET IMAGE "
                    "cycle|create|list COUNT THREADS\n");
    return 2;
}

int main(int argc, char **argv)
{
    docker_run run = {.tag = "bench", .expected = -1};
    sbx_option options[11];
    size_t option_count = 2;
    int opt;
    while ((opt = getopt(argc, argv, "t:n:c:o:")) != -1) {
        if (opt == 't')
            run.tag = optarg;
        else if (opt == 'n')
            run.expected = atol(optarg);
        else if (opt == 'c' && option_count < 11)
            options[option_count++] = (sbx_option){"command", optarg};
        else if (opt != 'o' || sbx_bench_add_option(optarg, options, &option_count, 11) != 0)
            return usage();
    }
    if (argc - optind != 5)
        return usage();
    const char *op = argv[optind + 2];
    unsigned long count = sbx_bench_count_arg(argv[optind + 3], "COUNT");
    unsigned threads = (unsigned)sbx_bench_count_arg(argv[optind + 4], "THREADS");
    sbx_bench_call_fn fn = strcmp(op, "cycle") == 0    ? call_cycle
                           : strcmp(op, "create") == 0 ? call_create
                           : strcmp(op, "list") == 0   ? call_list
                                                       : NULL;
    if (fn == NULL)
        return usage();
    options[0] = (sbx_option){"socket", argv[optind]};
    options[1] = (sbx_option){"image", argv[optind + 1]};
    run.steps = calloc(threads, sizeof *run.steps);
    if (run.steps == NULL)
        return 1;

    sbx_host *host = NULL;
    sbx_error err;
    if (sbx_host_new(NULL, &host, &err) != SBX_OK ||
        sbx_backend_open(host, "docker", options, option_count, &run.backend, &err) != SBX_OK) {
        failed("open", "the docker backend", &err);
        sbx_host_free(host);
        return 1;
    }
    double first = 0;
    if (fn == call_cycle) {
        char tag[64];
        snprintf(tag, sizeof tag, "%s-first", run.tag);
        docker_run once = run;
        once.tag = tag;
        first = sbx_bench_now();
        if (call_cycle(&once, 0, 0) != 0)
            return 1;
        first = sbx_bench_now() - first;
        run.steps[0] = (step_times){0};
    }
    sbx_bench_result r;
    sbx_bench_run(threads, count, fn, &run, &r);
    char label[64];
    snprintf(label, sizeof label, "sbx %s", op);
    sbx_bench_print(label, threads, &r);
    if (fn == call_cycle && r.calls > 0) {
        step_times sum = {0};
        for (unsigned i = 0; i < threads; i++) {
            sum.create += run.steps[i].create;
            sum.alive += run.steps[i].alive;
            sum.destroy += run.steps[i].destroy;
        }
        double per = 1e6 / (double)r.calls;
        printf(" create_us=%.0f alive_us=%.0f destroy_us=%.0f first_us=%.0f", sum.create * per,
               sum.alive * per, sum.destroy * per, first * 1e6);
    }
    printf("\n");
    sbx_backend_close(run.backend);
    sbx_host_free(host);
    free(run.steps);
    return r.failures == 0 ? 0 : 1;
}
