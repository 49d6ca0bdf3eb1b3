/* Timed, bounded multi-thread loops for the benchmark programs. */
#include <config.h>

#include "bench/bench_util.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* What one worker thread needs; the barrier makes every thread start the
 * measured loop at the same moment, so thread start-up is not timed. */
typedef struct worker {
    pthread_t id;
    unsigned thread;
    unsigned long calls;
    unsigned long done;
    int failed;
    double began, ended;      /* the worker's own loop, sbx_bench_now() */
    sbx_bench_call_fn fn;
    void *ctx;
    pthread_barrier_t *start;
} worker;

double sbx_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

long sbx_bench_maxrss_kb(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

/* The loop keeps its state in locals and writes the worker once at the end:
 * workers sit side by side in one array, and a count written per call would
 * share cache lines with the next worker's (false sharing that would cap
 * every multi-thread figure, not the code measured). */
static void *worker_main(void *arg)
{
    worker *w = arg;
    sbx_bench_call_fn fn = w->fn;
    void *ctx = w->ctx;
    unsigned thread = w->thread;
    unsigned long calls = w->calls, done = 0;
    int failed = 0;
    pthread_barrier_wait(w->start);
    double began = sbx_bench_now();
    for (; done < calls; done++) {
        if (fn(ctx, thread, done) != 0) {
            failed = 1;
            break;
        }
    }
    w->ended = sbx_bench_now();
    w->began = began;
    w->done = done;
    w->failed = failed;
    return NULL;
}

void sbx_bench_run(unsigned threads, unsigned long calls, sbx_bench_call_fn fn, void *ctx,
                   sbx_bench_result *out)
{
    worker *workers = calloc(threads, sizeof *workers);
    pthread_barrier_t start;
    if (workers == NULL || pthread_barrier_init(&start, NULL, threads + 1) != 0) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    for (unsigned i = 0; i < threads; i++) {
        worker *w = &workers[i];
        *w = (worker){.thread = i, .fn = fn, .ctx = ctx, .start = &start,
                      .calls = calls / threads + (i < calls % threads ? 1 : 0)};
        int rc = pthread_create(&w->id, NULL, worker_main, w);
        if (rc != 0) {
            /* The started threads wait at the barrier: nothing to measure. */
            fprintf(stderr, "bench: cannot start thread %u: %s\n", i, strerror(rc));
            exit(1);
        }
    }
    pthread_barrier_wait(&start);
    *out = (sbx_bench_result){0};
    /* From the first worker's start to the last one's end, as the workers
     * saw them: a clock read here, after the barrier, could come after
     * the calls on a loaded machine (a run of 100 calls once took "3 us"). */
    double began = 0, ended = 0;
    for (unsigned i = 0; i < threads; i++) {
        pthread_join(workers[i].id, NULL);
        out->calls += workers[i].done;
        out->failures += workers[i].failed ? 1 : 0;
        if (i == 0 || workers[i].began < began)
            began = workers[i].began;
        if (i == 0 || workers[i].ended > ended)
            ended = workers[i].ended;
    }
    out->seconds = ended - began;
    pthread_barrier_destroy(&start);
    free(workers);
}

void sbx_bench_print(const char *label, unsigned threads, const sbx_bench_result *r)
{
    double rate = r->seconds > 0 ? (double)r->calls / r->seconds : 0.0;
    double us = r->calls > 0 ? r->seconds * 1e6 / (double)r->calls : 0.0;
    printf("%s threads=%u calls=%lu failures=%lu seconds=%.6f rate=%.1f us_per_call=%.2f",
           label, threads, r->calls, r->failures, r->seconds, rate, us);
}

unsigned long sbx_bench_count_arg(const char *text, const char *what)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v == 0 || v > 100000000UL) {
        fprintf(stderr, "bench: %s must be a positive count, not '%s'\n", what, text);
        exit(2);
    }
    return v;
}

int sbx_bench_add_option(char *text, sbx_option *options, size_t *count, size_t max)
{
    char *eq = strchr(text, '=');
    if (eq == NULL || *count >= max)
        return -1;
    *eq = '\0';
    options[*count].key = text;
    options[*count].value = eq + 1;
    (*count)++;
    return 0;
}

void sbx_bench_die(const char *program, const char *what, const sbx_error *err)
{
    fprintf(stderr, "%s: %s: %s\n", program, what, err != NULL ? err->message : "failed");
    exit(1);
}

size_t sbx_bench_discard(char *data, size_t size, size_t n, void *ctx)
{
    (void)data;
    (void)ctx;
    return size * n;
}
