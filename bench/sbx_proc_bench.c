/*
 * sbx-proc-bench: streaming exec and session commands through the library,
 * and their baselines in the same program, as bench/proc-run measures them
 * (docs/performance.md, "Live processes").
 *
 *   sbx-proc-bench [-b BACKEND] [-o KEY=VALUE]... [-i ID] MODE COUNT
 *
 * BACKEND (default local) is opened with the -o options (at most 8);
 * sandbox ID (default "bench-proc") is created first and destroyed last.
 * MODE is one of
 *   stream   one sbx_backend_exec of `head -c COUNT MiB /dev/zero` whose
 *            output is taken by the request's on_output callback (nothing
 *            kept)
 *   pipe     stream's baseline: the same command run by /bin/sh into a
 *            pipe this program reads (no backend)
 *   session  COUNT commands `true` run in one session (sbx_session_run)
 *   exec     session's baseline: COUNT one-shot sbx_backend_exec of the
 *            shell text `true`
 * Prints one result line (bench_util.h); stream and pipe add bytes= and
 * mib_per_s=, their rate= being MiB/s.
 */
#include <config.h>

#include "bench/bench_util.h"

#include <sbx/host.h>
#include <sbx/session.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_OPTIONS 8

/* What the measured calls share. */
typedef struct bench_ctx {
    sbx_backend *backend;
    const char *id;
    sbx_session *session;
    unsigned long long bytes;   /* stream, pipe: bytes taken */
} bench_ctx;

static void die(const char *what, const char *why)
{
    fprintf(stderr, "sbx-proc-bench: %s: %s\n", what, why != NULL ? why : "failed");
    exit(1);
}

static void usage(void)
{
    fprintf(stderr, "usage: sbx-proc-bench [-b BACKEND] [-o KEY=VALUE]... [-i ID] "
                    "stream|pipe|session|exec COUNT\n");
    exit(2);
}

static void count_output(void *ctx, sbx_stream stream, const char *data, size_t length)
{
    (void)stream;
    (void)data;
    ((bench_ctx *)ctx)->bytes += length;
}

/* One exec of shell text `text`; 0 when it ran and exited 0. */
static int exec_text(bench_ctx *c, const char *text, int streamed)
{
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.shell_command = text;
    if (streamed) {
        r.on_output = count_output;
        r.output_ctx = c;
    }
    sbx_exec_result *res = NULL;
    sbx_error err;
    if (sbx_backend_exec(c->backend, c->id, &r, &res, &err) != SBX_OK)
        die("exec", err.message);
    int ok = res->outcome == SBX_EXEC_EXITED && res->exit_code == 0;
    sbx_backend_free_exec_result(c->backend, res);
    return ok ? 0 : -1;
}

static int call_exec(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    return exec_text(ctx, "true", 0);
}

static int call_session(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    bench_ctx *c = ctx;
    sbx_session_result *res = NULL;
    sbx_error err;
    if (sbx_session_run(c->session, "true", 0, &res, &err) != SBX_OK)
        die("session run", err.message);
    int ok = res->exit_code == 0;
    sbx_session_result_free(res);
    return ok ? 0 : -1;
}

/* The command of stream and pipe. */
static void stream_text(unsigned long long bytes, char *out, size_t cap)
{
    snprintf(out, cap, "head -c %llu /dev/zero", bytes);
}

/* Run stream or pipe once, timed; print its line. */
static void run_stream(bench_ctx *c, const char *mode, unsigned long long bytes)
{
    char text[128];
    stream_text(bytes, text, sizeof text);
    double start = sbx_bench_now();
    if (c->backend != NULL) {
        if (exec_text(c, text, 1) != 0)
            die(mode, "the command failed");
    } else {
        FILE *p = popen(text, "r");
        if (p == NULL)
            die(mode, "popen");
        static char buf[65536];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, p)) > 0)
            c->bytes += n;
        if (pclose(p) != 0)
            die(mode, "the command failed");
    }
    double seconds = sbx_bench_now() - start;
    if (c->bytes != bytes)
        die(mode, "not every byte came");
    double mib = (double)bytes / (1024.0 * 1024.0);
    printf("%s threads=1 calls=1 failures=0 seconds=%.3f rate=%.1f bytes=%llu mib_per_s=%.1f\n",
           mode, seconds, mib / seconds, bytes, mib / seconds);
}

int main(int argc, char **argv)
{
    const char *backend_name = "local", *id = "bench-proc";
    sbx_option options[MAX_OPTIONS];
    size_t option_count = 0;
    int opt;
    while ((opt = getopt(argc, argv, "b:o:i:")) != -1) {
        if (opt == 'b')
            backend_name = optarg;
        else if (opt == 'i')
            id = optarg;
        else if (opt != 'o' ||
                 sbx_bench_add_option(optarg, options, &option_count, MAX_OPTIONS) != 0)
            usage();
    }
    if (argc - optind != 2)
        usage();
    const char *mode = argv[optind];
    unsigned long count = sbx_bench_count_arg(argv[optind + 1], "COUNT");
    bench_ctx c = { NULL, id, NULL, 0 };
    if (strcmp(mode, "pipe") == 0) {
        run_stream(&c, mode, (unsigned long long)count << 20);
        return 0;
    }
    if (strcmp(mode, "stream") != 0 && strcmp(mode, "session") != 0 &&
        strcmp(mode, "exec") != 0)
        usage();
    sbx_error err;
    sbx_host *host = NULL;
    if (sbx_host_new(NULL, &host, &err) != SBX_OK)
        die("host", err.message);
    if (sbx_backend_open(host, backend_name, options, option_count, &c.backend, &err) != SBX_OK)
        die("open", err.message);
    sbx_create_request cr = SBX_CREATE_REQUEST_INIT;
    cr.sandbox_id = id;
    sbx_sandbox *sb = NULL;
    if (sbx_backend_create(c.backend, &cr, &sb, &err) != SBX_OK)
        die("create", err.message);
    sbx_backend_free_sandboxes(c.backend, sb, 1);
    if (strcmp(mode, "stream") == 0) {
        run_stream(&c, mode, (unsigned long long)count << 20);
    } else {
        if (strcmp(mode, "session") == 0 &&
            sbx_session_open(c.backend, id, NULL, &c.session, &err) != SBX_OK)
            die("session open", err.message);
        sbx_bench_result r;
        sbx_bench_run(1, count, c.session != NULL ? call_session : call_exec, &c, &r);
        sbx_bench_print(mode, 1, &r);
        printf("\n");
        sbx_session_close(c.session, &err);
    }
    sbx_backend_destroy(c.backend, id, &err);
    sbx_backend_close(c.backend);
    sbx_host_free(host);
    return 0;
}
