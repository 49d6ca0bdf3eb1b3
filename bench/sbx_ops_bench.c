/*
 * sbx-ops-bench: the sandbox operations (ABI 1.3) through the library, and
 * their baselines in the same program, as bench/ops-run measures them
 * (docs/performance.md, "Sandbox operations").
 *
 *   sbx-ops-bench [-b BACKEND] [-o KEY=VALUE]... [-i ID] [-u URL] [-c CMD] [-k]
 *                 OP COUNT THREADS [ARG...]
 *
 * BACKEND (default local) is opened with the -o options (at most 8) and
 * sandbox ID (default "bench-ops") is created first and destroyed last
 * (kept with -k, for a baseline that needs its address).  With
 * SBX_BENCH_BALLAST_MIB=N in the environment the program first writes N
 * MiB of its heap, as a big host has (a fork copies the page tables of
 * all that a process touched).
 * OP is one of
 *   exec     COUNT sbx_backend_exec of CMD (default /bin/true) as argv
 *   spawn    exec's baseline on this machine: COUNT posix_spawn + waitpid
 *            of CMD with the ARGs, its output read through pipes as exec
 *            reads it (no backend; CMD may be bwrap running the program)
 *   create   COUNT creates of new sandboxes ID-THREAD-INDEX (destroyed
 *            after the timed loop)
 *   post     remote exec's baseline: COUNT libcurl POSTs to URL of the
 *            body the remote backend sends for CMD (no backend)
 *   write    COUNT write_file of 1 MiB (bytes=)
 *   read     one write_file of 1 MiB, then COUNT read_file of it
 * Prints one result line (bench_util.h) with bytes= for write and read.
 */
#include <config.h>

#include "bench/bench_util.h"

#include <sbx/host.h>

#include <curl/curl.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_OPTIONS 8
#define FILE_BYTES (1u << 20)

extern char **environ;

typedef struct bench {
    sbx_backend *backend;
    const char *id;
    const char *command;
    const char *url;
    char **args;                 /* spawn: the ARGs after CMD, NULL-terminated */
    char *file;                  /* write and read: the bytes */
    char *ballast;               /* SBX_BENCH_BALLAST_MIB: touched, never read */
} bench;

static void die(const char *what, const sbx_error *err)
{
    fprintf(stderr, "sbx-ops-bench: %s: %s\n", what, err != NULL ? err->message : "failed");
    exit(1);
}

static void usage(void)
{
    fprintf(stderr, "usage: sbx-ops-bench [-b BACKEND] [-o KEY=VALUE]... [-i ID] [-u URL] "
                    "[-c CMD] [-k] exec|spawn|post|write|read|create COUNT THREADS [ARG...]\n");
    exit(2);
}

static int call_exec(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    bench *b = ctx;
    const char *argv[] = {b->command, NULL};
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    req.argv = argv;
    sbx_exec_result *r = NULL;
    sbx_error err;
    if (sbx_backend_exec(b->backend, b->id, &req, &r, &err) != SBX_OK)
        return 1;
    int bad = r->outcome != SBX_EXEC_EXITED || r->exit_code != 0;
    sbx_backend_free_exec_result(b->backend, r);
    return bad;
}

/* Drain both pipes of a child until both close, as a backend must. */
static void drain(int out, int err)
{
    struct pollfd fds[2] = {{out, POLLIN, 0}, {err, POLLIN, 0}};
    char buf[4096];
    int open_count = 2;
    while (open_count > 0 && poll(fds, 2, -1) > 0) {
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd >= 0 && fds[i].revents != 0 && read(fds[i].fd, buf, sizeof buf) <= 0) {
                fds[i].fd = -1;
                open_count--;
            }
        }
    }
}

static int call_spawn(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    bench *b = ctx;
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
        return 1;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    /* args[-1] is the slot main reserved for CMD. */
    char **argv = b->args - 1;
    argv[0] = (char *)b->command;
    pid_t pid;
    int rc = posix_spawn(&pid, b->command, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    close(err[1]);
    if (rc == 0)
        drain(out[0], err[0]);
    close(out[0]);
    close(err[0]);
    int status = 0;
    return rc != 0 || waitpid(pid, &status, 0) != pid || status != 0;
}

/* The id of a create's sandbox. */
static void create_id(const bench *b, unsigned thread, unsigned long index, char *id, size_t size)
{
    snprintf(id, size, "%s-%u-%lu", b->id, thread, index);
}

static int call_create(void *ctx, unsigned thread, unsigned long index)
{
    bench *b = ctx;
    char id[128];
    create_id(b, thread, index, id, sizeof id);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    sbx_sandbox *sb = NULL;
    sbx_error err;
    if (sbx_backend_create(b->backend, &req, &sb, &err) != SBX_OK) {
        fprintf(stderr, "sbx-ops-bench: create %s: %s\n", id, err.message);
        return 1;
    }
    sbx_backend_free_sandboxes(b->backend, sb, 1);
    return 0;
}

static size_t discard(char *data, size_t size, size_t n, void *ctx)
{
    (void)data;
    (void)ctx;
    return size * n;
}

static int call_post(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    bench *b = ctx;
    char body[512];
    snprintf(body, sizeof body, "{\"command\":\"'%s'\",\"hard_timeout\":600}", b->command);
    CURL *curl = curl_easy_init();
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    curl_easy_setopt(curl, CURLOPT_URL, b->url);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    long status = 0;
    CURLcode rc = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return rc != CURLE_OK || status != 200;
}

static int call_write(void *ctx, unsigned thread, unsigned long index)
{
    (void)index;
    bench *b = ctx;
    char path[64];
    snprintf(path, sizeof path, "bench-%u.bin", thread);
    sbx_error err;
    return sbx_backend_write_file(b->backend, b->id, path, b->file, FILE_BYTES, 0, 0, &err) !=
           SBX_OK;
}

static int call_read(void *ctx, unsigned thread, unsigned long index)
{
    (void)thread;
    (void)index;
    bench *b = ctx;
    sbx_file_content *c = NULL;
    sbx_error err;
    if (sbx_backend_read_file(b->backend, b->id, "bench-read.bin", 0, FILE_BYTES, &c, &err) !=
        SBX_OK)
        return 1;
    int bad = c->length != FILE_BYTES;
    sbx_backend_free_file_content(b->backend, c);
    return bad;
}

int main(int argc, char **argv)
{
    bench b = {.id = "bench-ops", .command = "/bin/true", .url = NULL};
    const char *backend_name = "local";
    sbx_option options[MAX_OPTIONS];
    size_t option_count = 0;
    int c, keep = 0;
    while ((c = getopt(argc, argv, "+b:o:i:u:c:k")) != -1) {
        switch (c) {
        case 'k': keep = 1; break;
        case 'b': backend_name = optarg; break;
        case 'i': b.id = optarg; break;
        case 'u': b.url = optarg; break;
        case 'c': b.command = optarg; break;
        case 'o':
            if (sbx_bench_add_option(optarg, options, &option_count, MAX_OPTIONS) != 0)
                usage();
            break;
        default: usage();
        }
    }
    if (argc - optind < 3)
        usage();
    /* argv[optind + 2] (THREADS, read below) becomes CMD's slot. */
    b.args = argv + optind + 3;
    const char *op = argv[optind];
    unsigned long count = sbx_bench_count_arg(argv[optind + 1], "COUNT");
    unsigned long threads = sbx_bench_count_arg(argv[optind + 2], "THREADS");
    sbx_bench_call_fn fn = strcmp(op, "exec") == 0    ? call_exec
                           : strcmp(op, "spawn") == 0 ? call_spawn
                           : strcmp(op, "post") == 0  ? call_post
                           : strcmp(op, "write") == 0 ? call_write
                           : strcmp(op, "read") == 0  ? call_read
                           : strcmp(op, "create") == 0 ? call_create
                                                      : NULL;
    if (fn == NULL || (fn == call_post && b.url == NULL) || (fn != call_spawn && *b.args != NULL))
        usage();
    int with_backend = fn != call_spawn && fn != call_post;
    sbx_host *host = NULL;
    sbx_error err;
    if (with_backend && (sbx_host_new(NULL, &host, &err) != SBX_OK ||
                         sbx_backend_open(host, backend_name, options, option_count, &b.backend,
                                          &err) != SBX_OK))
        die("opening the backend", &err);
    if (with_backend && fn != call_create) {
        sbx_create_request req = SBX_CREATE_REQUEST_INIT;
        req.sandbox_id = b.id;
        sbx_sandbox *sb = NULL;
        if (sbx_backend_create(b.backend, &req, &sb, &err) != SBX_OK)
            die("creating the sandbox", &err);
        sbx_backend_free_sandboxes(b.backend, sb, 1);
    }
    if (fn == call_write || fn == call_read) {
        b.file = malloc(FILE_BYTES);
        if (b.file == NULL)
            die("allocating", NULL);
        for (size_t i = 0; i < FILE_BYTES; i++)
            b.file[i] = (char)(i * 31);
        if (fn == call_read && sbx_backend_write_file(b.backend, b.id, "bench-read.bin", b.file,
                                                      FILE_BYTES, 0, 0, &err) != SBX_OK)
            die("writing the file to read", &err);
    }
    const char *ballast_mib = getenv("SBX_BENCH_BALLAST_MIB");
    if (ballast_mib != NULL) {
        size_t size = sbx_bench_count_arg(ballast_mib, "SBX_BENCH_BALLAST_MIB") << 20;
        if ((b.ballast = malloc(size)) == NULL)
            die("allocating the ballast", NULL);
        memset(b.ballast, 1, size);
    }
    if (fn == call_post)
        curl_global_init(CURL_GLOBAL_DEFAULT);
    sbx_bench_result result;
    sbx_bench_run((unsigned)threads, count, fn, &b, &result);
    sbx_bench_print(op, (unsigned)threads, &result);
    if (fn == call_write || fn == call_read)
        printf(" bytes=%u", FILE_BYTES);
    printf("\n");
    for (unsigned t = 0; fn == call_create && t < threads; t++)
        for (unsigned long i = 0; i < count; i++) {
            char id[128];
            create_id(&b, t, i, id, sizeof id);
            sbx_backend_destroy(b.backend, id, &err);
        }
    if (with_backend) {
        if (fn != call_create && !keep && sbx_backend_destroy(b.backend, b.id, &err) != SBX_OK)
            die("destroying the sandbox", &err);
        sbx_backend_close(b.backend);
        sbx_host_free(host);
    }
    free(b.file);
    free(b.ballast);
    return result.failures == 0 ? 0 : 1;
}
