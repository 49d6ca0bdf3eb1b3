/*
 * The process server of the docker helper (sbx-docker-pty serve,
 * plugin/docker/sbx_docker_serve.c) run on this host, one server shared
 * by the cases: exit codes and exact bytes, a missing working directory,
 * a signal, stdin handed on and output capped; a process's read, by the
 * script and by the server itself, serves no byte whose order line is not
 * kept yet.  No engine needed.
 */
#include <config.h>

#include "plugin/docker/docker_proc_script.h"
#include "plugin/docker/docker_proc_wire.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"

#include <CUnit/CUnit.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Far beyond what any call here takes on a loaded machine. */
#define DEADLINE_MS 30000

typedef struct server {
    pid_t pid;
    int to, from;      /* its stdin, its stdout */
} server;

static server shared;

static int start_server(server *s)
{
    const char *builddir = getenv("SBX_TEST_BUILDDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/plugin/docker/sbx-docker-pty", builddir ? builddir : ".");
    int in[2], out[2];
    if (pipe(in) != 0 || pipe(out) != 0)
        return -1;
    s->pid = fork();
    if (s->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execl(path, path, "serve", (char *)NULL);
        _exit(126);
    }
    close(in[0]);
    close(out[1]);
    s->to = in[1];
    s->from = out[0];
    return s->pid > 0 ? 0 : -1;
}

/* All `n` bytes from the server before the deadline: 0, or -1. */
static int take(const server *s, void *buf, size_t n)
{
    long until = sbx_test_now_ms() + DEADLINE_MS;
    size_t at = 0;
    while (at < n) {
        struct pollfd p = { s->from, POLLIN, 0 };
        long left = until - sbx_test_now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            return -1;
        ssize_t got = read(s->from, (char *)buf + at, n - at);
        if (got <= 0)
            return -1;
        at += (size_t)got;
    }
    return 0;
}

/* The command's request on the server's stdin. */
static int ask_with(const server *s, const char *dir, const char *const *argv,
                    const void *input, uint32_t input_len, uint32_t max_output, uint32_t flags)
{
    size_t size = strlen(dir) + 1;
    for (size_t i = 0; argv[i] != NULL; i++)
        size += strlen(argv[i]) + 1;
    char *words = malloc(size);
    if (words == NULL)
        return -1;
    size_t at = (size_t)snprintf(words, size, "%s", dir) + 1;
    for (size_t i = 0; argv[i] != NULL; i++)
        at += (size_t)snprintf(words + at, size - at, "%s", argv[i]) + 1;
    unsigned char head[DOCKER_PROC_WIRE_REQUEST_WORDS * 4];
    uint32_t numbers[] = { (uint32_t)at, input_len, max_output, flags };
    for (int i = 0; i < DOCKER_PROC_WIRE_REQUEST_WORDS; i++)
        docker_proc_wire_put(head + 4 * i, numbers[i]);
    int sent = write(s->to, head, sizeof head) == (ssize_t)sizeof head &&
               write(s->to, words, at) == (ssize_t)at &&
               (input_len == 0 || write(s->to, input, input_len) == (ssize_t)input_len);
    free(words);
    return sent ? 0 : -1;
}

static int ask(const server *s, const char *dir, const char *const *argv, const void *input,
               uint32_t input_len, uint32_t max_output)
{
    return ask_with(s, dir, argv, input, input_len, max_output, 0);
}

typedef struct reply {
    uint32_t kind, value, flags;
    char *out, *err;
    uint32_t out_len, err_len;
} reply;

static int answer(const server *s, reply *r)
{
    unsigned char head[DOCKER_PROC_WIRE_ANSWER_WORDS * 4];
    memset(r, 0, sizeof *r);
    if (take(s, head, sizeof head) != 0)
        return -1;
    r->kind = docker_proc_wire_get(head);
    r->value = docker_proc_wire_get(head + 4);
    r->out_len = docker_proc_wire_get(head + 8);
    r->err_len = docker_proc_wire_get(head + 12);
    r->flags = docker_proc_wire_get(head + 16);
    r->out = calloc(1, (size_t)r->out_len + 1);
    r->err = calloc(1, (size_t)r->err_len + 1);
    return r->out != NULL && r->err != NULL && take(s, r->out, r->out_len) == 0 &&
                   take(s, r->err, r->err_len) == 0
               ? 0
               : -1;
}

static void reply_free(reply *r)
{
    free(r->out);
    free(r->err);
}

static int suite_init(void)
{
    signal(SIGPIPE, SIG_IGN);
    char hello[DOCKER_PROC_WIRE_HELLO_LEN];
    return start_server(&shared) == 0 && take(&shared, hello, sizeof hello) == 0 &&
                   memcmp(hello, DOCKER_PROC_WIRE_HELLO, sizeof hello) == 0
               ? 0
               : -1;
}

static int suite_clean(void)
{
    close(shared.to);
    int status = 0;
    waitpid(shared.pid, &status, 0);
    close(shared.from);
    /* An end of file between requests is a clean end. */
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void test_exit_codes_and_bytes(void)
{
    const char *argv[] = { "/bin/sh", "-c", "printf 'a\\000b'; printf 'e\\n' >&2; exit 3", NULL };
    reply r;
    CU_ASSERT_FATAL(ask(&shared, "", argv, NULL, 0, 1024) == 0 && answer(&shared, &r) == 0);
    CU_ASSERT(r.kind == DOCKER_PROC_WIRE_EXITED && r.value == 3 && r.flags == 0);
    CU_ASSERT(r.out_len == 3 && memcmp(r.out, "a\0b", 3) == 0);
    CU_ASSERT_STRING_EQUAL(r.err, "e\n");
    reply_free(&r);
    const char *missing[] = { "/nonexistent/program", NULL };
    CU_ASSERT_FATAL(ask(&shared, "", missing, NULL, 0, 1024) == 0 && answer(&shared, &r) == 0);
    CU_ASSERT(r.kind == DOCKER_PROC_WIRE_EXITED && r.value == 127);
    reply_free(&r);
}

static void test_working_dir_and_signal(void)
{
    const char *pwd[] = { "/bin/sh", "-c", "pwd; kill -TERM $$", NULL };
    reply r;
    CU_ASSERT_FATAL(ask(&shared, "/tmp", pwd, NULL, 0, 1024) == 0 && answer(&shared, &r) == 0);
    CU_ASSERT(r.kind == DOCKER_PROC_WIRE_SIGNALED && r.value == SIGTERM);
    CU_ASSERT_STRING_EQUAL(r.out, "/tmp\n");
    reply_free(&r);
    CU_ASSERT_FATAL(ask(&shared, "/nonexistent-dir", pwd, NULL, 0, 1024) == 0 &&
                    answer(&shared, &r) == 0);
    CU_ASSERT_EQUAL(r.kind, DOCKER_PROC_WIRE_NODIR);
    CU_ASSERT_EQUAL(r.out_len, 0);
    reply_free(&r);
}

static void test_stdin_and_cap(void)
{
    size_t n = 300000;
    char *input = malloc(n);
    CU_ASSERT_FATAL(input != NULL);
    for (size_t i = 0; i < n; i++)
        input[i] = (char)(i * 7);
    const char *cat[] = { "cat", NULL };
    reply r;
    /* The request's stdin goes out while the server answers nothing, so
     * all of it must fit the pipe or be read by the server: it is. */
    CU_ASSERT_FATAL(ask(&shared, "", cat, input, (uint32_t)n, (uint32_t)n) == 0 &&
                    answer(&shared, &r) == 0);
    CU_ASSERT(r.out_len == n && memcmp(r.out, input, n) == 0 && r.flags == 0);
    reply_free(&r);
    CU_ASSERT_FATAL(ask(&shared, "", cat, input, (uint32_t)n, 10) == 0 &&
                    answer(&shared, &r) == 0);
    CU_ASSERT(r.out_len == 10 && memcmp(r.out, input, 10) == 0);
    CU_ASSERT_EQUAL(r.flags, DOCKER_PROC_WIRE_OUT_TRUNCATED);
    reply_free(&r);
    /* A command that never reads its stdin: the bytes are drained. */
    const char *none[] = { "/bin/sh", "-c", "exec 0<&-; echo ok", NULL };
    CU_ASSERT_FATAL(ask(&shared, "", none, input, (uint32_t)n, 64) == 0 &&
                    answer(&shared, &r) == 0);
    CU_ASSERT_STRING_EQUAL(r.out, "ok\n");
    reply_free(&r);
    free(input);
}

/* Write `text` to DIR/NAME: 1, or 0. */
static int put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    int ok = f != NULL && fputs(text, f) >= 0;
    return f != NULL && fclose(f) == 0 && ok;
}

/* The header line of a read of process `id` from cursor 0, answered by
 * the script (flags 0) or by the server itself (DOCKER_PROC_WIRE_SCRIPT),
 * into `head`. */
static void read_head(const char *id, uint32_t flags, char *head, size_t size)
{
    const char *argv[] = { "/bin/sh", "-c", docker_proc_script(), "sh", "read", id,
                           "0", "0", "1000", "0", NULL };
    reply r;
    head[0] = '\0';
    CU_ASSERT_FATAL(ask_with(&shared, "", argv, NULL, 0, 4096, flags) == 0 &&
                    answer(&shared, &r) == 0);
    CU_ASSERT_EQUAL(r.kind, DOCKER_PROC_WIRE_EXITED);
    snprintf(head, size, "%.*s", (int)strcspn(r.out, "\n"), r.out);
    reply_free(&r);
}

/* The parent of DOCKER_PROC_ROOT. */
#define PROC_ROOT_BASE "/tmp/.sbx"

/* A copier has put 6 bytes in the segment but kept the order of 4 only
 * (its tick "K TOTAL"): a reader that served the other 2 could let the
 * program write to the other stream in answer and be ordered before them. */
static void test_a_read_stops_at_the_kept_order(void)
{
    char id[64], dir[128], head[256];
    snprintf(id, sizeof id, "pserve-%ld", (long)getpid());
    snprintf(dir, sizeof dir, "%s/%s", DOCKER_PROC_ROOT, id);
    /* The helper's root is fixed; what this test makes of it on the host,
     * it removes (rmdir: a directory another run uses stays). */
    int made_base = mkdir(PROC_ROOT_BASE, 0755) == 0;
    int made_root = mkdir(DOCKER_PROC_ROOT, 0755) == 0;
    CU_ASSERT_FATAL(access(DOCKER_PROC_ROOT, W_OK) == 0 && mkdir(dir, 0700) == 0);
    CU_ASSERT_FATAL(put(dir, "argc", "1\n") && put(dir, "argv", "sh\n") &&
                    put(dir, "start", "0\n") && put(dir, "buf", "65536\n") &&
                    put(dir, "o.1000000000000000000", "abcdef") && put(dir, "o.t", "3 4\n") &&
                    put(dir, "e.1000000000000000000", "") && put(dir, "e.t", "0 0\n") &&
                    put(dir, "order", "o 0\n") && put(dir, "last", "o\n"));
    read_head(id, 0, head, sizeof head);
    CU_ASSERT_STRING_EQUAL(head, "sbx-read 0 4 0 0 4 0 run");
    read_head(id, DOCKER_PROC_WIRE_SCRIPT, head, sizeof head);
    CU_ASSERT_STRING_EQUAL(head, "sbx-read 0 4 0 0 4 0 run");
    /* The copier ended: everything it copied is in order. */
    CU_ASSERT(put(dir, "o.t", "end\n"));
    read_head(id, 0, head, sizeof head);
    CU_ASSERT_STRING_EQUAL(head, "sbx-read 0 6 0 0 6 0 run");
    read_head(id, DOCKER_PROC_WIRE_SCRIPT, head, sizeof head);
    CU_ASSERT_STRING_EQUAL(head, "sbx-read 0 6 0 0 6 0 run");
    char rm[256];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    CU_ASSERT(system(rm) == 0);
    if (made_root)
        CU_ASSERT(rmdir(DOCKER_PROC_ROOT) == 0 || errno == ENOTEMPTY);
    if (made_base)
        CU_ASSERT(rmdir(PROC_ROOT_BASE) == 0 || errno == ENOTEMPTY);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "exit codes, stdout and stderr bytes exact (NUL kept)", test_exit_codes_and_bytes },
        { "working directory entered or told missing; a signal told", test_working_dir_and_signal },
        { "stdin handed on whole, output capped and said so", test_stdin_and_cap },
        { "a read stops at the order kept, by the script and the server",
          test_a_read_stops_at_the_kept_order },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("docker process server", suite_init, suite_clean, tests);
}
