/*
 * raw-jsonc: the json-c baseline of bench/run for a list answer read from a
 * file: COUNT parses of the same body (json_baseline.h), then the result
 * line (bench_util.h) with the peak memory before and after.
 *
 *   raw-jsonc FILE COUNT
 */
#include <config.h>

#include "bench/bench_util.h"
#include "bench/json_baseline.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct parse_run {
    char *body;
    size_t len;
    long entries;
} parse_run;

static int one_parse(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    parse_run *run = ctx;
    run->entries = sbx_bench_parse_list(run->body, run->len);
    return run->entries < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: raw-jsonc FILE COUNT\n");
        return 2;
    }
    unsigned long count = sbx_bench_count_arg(argv[2], "COUNT");
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(argv[1]);
        return 1;
    }
    parse_run run = {0};
    size_t cap = 0;
    for (;;) {
        if (run.len + 65536 + 1 > cap) {
            cap = cap ? cap * 2 : 1 << 20;
            char *grown = realloc(run.body, cap);
            if (grown == NULL)
                return 1;
            run.body = grown;
        }
        size_t n = fread(run.body + run.len, 1, cap - run.len - 1, f);
        run.len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    run.body[run.len] = '\0';

    long rss_before = sbx_bench_maxrss_kb();
    sbx_bench_result r;
    sbx_bench_run(1, count, one_parse, &run, &r);
    sbx_bench_print("raw-jsonc parse", 1, &r);
    printf(" list_count=%ld body_bytes=%zu maxrss_before_kb=%ld maxrss_kb=%ld\n", run.entries,
           run.len, rss_before, sbx_bench_maxrss_kb());
    free(run.body);
    return r.failures == 0 ? 0 : 1;
}
