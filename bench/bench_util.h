/*
 * Shared plumbing of the benchmark programs (bench/, docs/performance.md):
 * a bounded, timed loop spread over N threads, and the figures each program
 * prints as one "key=value ..." line that bench/run reads.
 */
#ifndef SBX_BENCH_UTIL_H
#define SBX_BENCH_UTIL_H

#include <sbx/host.h>

#include <stddef.h>

/* One call of the measured operation by thread `thread` (0-based), its
 * `index`-th call (0-based, counted per thread).  Returns 0 on success;
 * anything else is counted as a failure and ends that thread's loop. */
typedef int (*sbx_bench_call_fn)(void *ctx, unsigned thread, unsigned long index);

/* What a run measured. */
typedef struct sbx_bench_result {
    unsigned long calls;     /* successful calls, all threads together */
    unsigned long failures;  /* threads that stopped on a failed call */
    double seconds;          /* wall time from the common start to the last thread's end */
} sbx_bench_result;

/* Run `calls` calls of `fn` split evenly over `threads` threads (each starts
 * at the same instant, behind a barrier) and fill *out.  Exits the program
 * with a message when a thread cannot be started (nothing to measure). */
void sbx_bench_run(unsigned threads, unsigned long calls, sbx_bench_call_fn fn, void *ctx,
                   sbx_bench_result *out);

/* Monotonic seconds, for timing single steps. */
double sbx_bench_now(void);

/* This process's peak resident set so far, in KiB (getrusage ru_maxrss). */
long sbx_bench_maxrss_kb(void);

/* Print the result line "<label> threads=T calls=N failures=F seconds=S
 * rate=R us_per_call=U" on stdout.  Programs may append more key=value pairs
 * before their newline; this writes none. */
void sbx_bench_print(const char *label, unsigned threads, const sbx_bench_result *r);

/* Parse a positive count argument or exit(2) with a message naming `what`
 * (benchmark programs are programs: they may exit). */
unsigned long sbx_bench_count_arg(const char *text, const char *what);

/* Append a -o KEY=VALUE argument to options[*count] (split in place: the
 * key and value point into `text`) and count it.  Returns 0, or -1 when
 * it has no '=' or *count is already `max` (nothing is changed). */
int sbx_bench_add_option(char *text, sbx_option *options, size_t *count, size_t max);

/* Print "<program>: <what>: <err's message, or "failed">" on stderr and
 * exit(1): a benchmark that cannot set up has nothing to measure. */
void sbx_bench_die(const char *program, const char *what, const sbx_error *err);

/* A libcurl write callback that keeps nothing (CURLOPT_WRITEFUNCTION):
 * returns size * n, all taken. */
size_t sbx_bench_discard(char *data, size_t size, size_t n, void *ctx);

#endif /* SBX_BENCH_UTIL_H */
