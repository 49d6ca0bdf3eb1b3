/*
 * load-floor: the dynamic loader's share of a cold module load, for
 * bench/run.  dlopen (RTLD_NOW) and dlclose of one shared library, COUNT
 * times, in a process that has not loaded it otherwise; with libcurl this
 * is what loading the remote module cost when nothing else in the process
 * had libcurl and its dependencies mapped already.
 *
 *   load-floor LIBRARY COUNT
 *
 * Prints one result line (bench_util.h).
 */
#include <config.h>

#include "bench/bench_util.h"

#include <dlfcn.h>
#include <stdio.h>

static int call_load(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    void *h = dlopen(ctx, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "load-floor: %s\n", dlerror());
        return -1;
    }
    dlclose(h);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: load-floor LIBRARY COUNT\n");
        return 2;
    }
    sbx_bench_result r;
    sbx_bench_run(1, sbx_bench_count_arg(argv[2], "COUNT"), call_load, argv[1], &r);
    sbx_bench_print("load-floor", 1, &r);
    printf("\n");
    return r.failures == 0 ? 0 : 1;
}
