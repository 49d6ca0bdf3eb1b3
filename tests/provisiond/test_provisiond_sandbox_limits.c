/* What one tenant of sbx-provisiond's sandbox API can take from the
 * others (over the local backend): clients that go away end their
 * commands at once, not at a timeout of a day, and free their threads;
 * an exec without hard_timeout ends at --exec-timeout; one token runs at
 * most --sandbox-share requests, its next ones wait (--sandbox-queue of
 * them, beyond answered 429) while another token's commands, /health and
 * the lifecycle API are served, also when every sandbox thread is busy; a file read costs about its answer in memory, not 14 times the
 * file, gives it back, and an answer over --max-answer-bytes is refused
 * with the schema's error; a download is sent from the file. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/http_probe.h"
#include "tests/support/memory_figures.h"

/* Generous against a loaded machine; the expected path is fast.  Every
 * command the tests leave running would run far longer (600 s). */
#define DEADLINE_MS 60000L

/* Send an exec of `command` for `token` on a connection of its own and
 * leave it waiting for the answer: the socket, or -1. */
static int exec_in_flight(const provd_local *d, const char *token, const char *command)
{
    char body[256], request[1024];
    snprintf(body, sizeof body, "{\"command\":\"%s\"}", command);
    snprintf(request, sizeof request,
             "POST /s/%s/v1/bash/exec HTTP/1.1\r\nHost: 127.0.0.1\r\n"
             "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
             token, strlen(body), body);
    int fd = provd_connect(provd_url(d->proc));
    if (fd >= 0 && send(fd, request, strlen(request), MSG_NOSIGNAL) != (ssize_t)strlen(request)) {
        close(fd);
        fd = -1;
    }
    CU_ASSERT(fd >= 0);
    return fd;
}

/* Whether every one of `count` markers "sleep PREFIX<i>3" runs (want 1)
 * or none does (want 0) before the deadline. */
static int markers_are(const char *prefix, int count, int want, long deadline)
{
    for (;;) {
        int all = 1, none = 1;
        for (int i = 0; i < count; i++) {
            char marker[32];
            snprintf(marker, sizeof marker, "sleep %s%d3", prefix, i);
            int running = provd_running_with(marker) != 0;
            all &= running;
            none &= !running;
        }
        if (want ? all : none)
            return 1;
        if (sbx_test_now_ms() >= deadline)
            return 0;
    }
}

/* Start `count` execs "sleep PREFIX<i>3" for `token` (sockets in `fds`)
 * and wait until they all run.  Returns 1, or 0 after a CUnit failure. */
static int start_sleeps(const provd_local *d, const char *token, const char *prefix,
                        int count, int *fds)
{
    for (int i = 0; i < count; i++) {
        char command[64];
        snprintf(command, sizeof command, "sleep %s%d3", prefix, i);
        fds[i] = exec_in_flight(d, token, command);
    }
    int running = markers_are(prefix, count, 1, sbx_test_now_ms() + DEADLINE_MS);
    CU_ASSERT_TRUE(running);
    for (int i = 0; !running && i < count; i++) {
        char got[1024];
        ssize_t n = fds[i] >= 0 ? recv(fds[i], got, sizeof got - 1, MSG_DONTWAIT) : -1;
        got[n > 0 ? n : 0] = '\0';
        fprintf(stderr, "exec 'sleep %s%d3' was answered: %s\n", prefix, i, got);
    }
    return running;
}

/* POST an exec of `command` for `token`: its status, the answer in
 * `answer`. */
static long exec_now(const provd_local *d, const char *token, const char *command,
                     char *answer, size_t cap)
{
    char path[128], body[256];
    snprintf(path, sizeof path, "/s/%s/v1/bash/exec", token);
    snprintf(body, sizeof body, "{\"command\":\"%s\"}", command);
    return provd_request(provd_url(d->proc), (provd_send){"POST", path, body}, DEADLINE_MS, answer,
                         cap);
}

#define GONE 8

static void test_clients_that_go_away_end_their_commands_and_free_the_threads(void)
{
    /* Sixteen sandbox threads: a token may take eight. */
    const char *const extra[] = {"--threads", "16", NULL};
    provd_local d;
    char token[PROVD_TEST_TOKEN_LEN + 1], answer[4096];
    if (!provd_local_start(&d, 0, extra))
        return;
    int fds[GONE];
    if (provd_create_token(provd_url(d.proc), "gone", "u", token) &&
        start_sleeps(&d, token, "81", GONE, fds)) {
        /* Every thread runs a command without hard_timeout; all the
         * clients go at once. */
        long gone_at = sbx_test_now_ms();
        for (int i = 0; i < GONE; i++)
            close(fds[i]);
        CU_ASSERT_TRUE(markers_are("81", GONE, 0, gone_at + DEADLINE_MS));
        fprintf(stderr, "%d commands ended %ld ms after their clients went\n", GONE,
                sbx_test_now_ms() - gone_at);
        /* Their threads are free: the next command runs at once. */
        CU_ASSERT_EQUAL(exec_now(&d, token, "echo next", answer, sizeof answer), 200);
        CU_ASSERT_PTR_NOT_NULL(strstr(answer, "\"stdout\":\"next\\n\""));
    }
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

static void test_an_exec_without_hard_timeout_ends_at_the_exec_timeout(void)
{
    const char *const extra[] = {"--exec-timeout", "1", NULL};
    provd_local d;
    char token[PROVD_TEST_TOKEN_LEN + 1], answer[4096];
    if (!provd_local_start(&d, 0, extra))
        return;
    if (provd_create_token(provd_url(d.proc), "bounded", "u", token)) {
        long started = sbx_test_now_ms();
        CU_ASSERT_EQUAL(exec_now(&d, token, "sleep 8213", answer, sizeof answer), 200);
        CU_ASSERT_PTR_NOT_NULL(strstr(answer, "\"status\":\"timed_out\""));
        fprintf(stderr, "an exec without hard_timeout ended after %ld ms\n",
                sbx_test_now_ms() - started);
    }
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* GET `path`: its status, within the deadline. */
static long get(const provd_local *d, const char *path)
{
    return provd_request(provd_url(d->proc), (provd_send){"GET", path, NULL}, DEADLINE_MS, NULL, 0);
}

static void test_a_token_at_its_share_and_queue_is_refused_while_others_are_served(void)
{
    /* Four sandbox threads, two of them a token's at most, none of its
     * requests waiting. */
    const char *const extra[] = {"--threads", "4", "--sandbox-queue", "0", NULL};
    provd_local d;
    char a[PROVD_TEST_TOKEN_LEN + 1], b[PROVD_TEST_TOKEN_LEN + 1], answer[4096];
    if (!provd_local_start(&d, 0, extra))
        return;
    int a_fds[2] = {-1, -1}, b_fds[2] = {-1, -1};
    if (provd_create_token(provd_url(d.proc), "tenant-a", "ua", a) &&
        provd_create_token(provd_url(d.proc), "tenant-b", "ub", b) &&
        start_sleeps(&d, a, "82", 2, a_fds)) {
        CU_ASSERT_EQUAL(exec_now(&d, a, "echo third", answer, sizeof answer), 429);
        CU_ASSERT_PTR_NOT_NULL(strstr(answer, "{\"detail\":\"too many requests of this sandbox"));
        CU_ASSERT_PTR_NOT_NULL(strstr(answer, "2 at a time and have 0 more waiting"));
        CU_ASSERT_EQUAL(exec_now(&d, b, "echo b", answer, sizeof answer), 200);
        CU_ASSERT_PTR_NOT_NULL(strstr(answer, "\"stdout\":\"b\\n\""));
        /* Every sandbox thread busy: /health and the lifecycle API still
         * answer. */
        if (start_sleeps(&d, b, "83", 2, b_fds)) {
            CU_ASSERT_EQUAL(get(&d, "/health"), 200);
            CU_ASSERT_EQUAL(get(&d, "/api/sandboxes"), 200);
            CU_ASSERT_EQUAL(get(&d, "/api/sandboxes/tenant-a"), 200);
        }
    }
    for (int i = 0; i < 2; i++) {
        if (a_fds[i] >= 0)
            close(a_fds[i]);
        if (b_fds[i] >= 0)
            close(b_fds[i]);
    }
    long deadline = sbx_test_now_ms() + DEADLINE_MS;
    CU_ASSERT_TRUE(markers_are("82", 2, 0, deadline) && markers_are("83", 2, 0, deadline));
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

static void test_a_token_beyond_its_share_waits_for_one_of_its_own(void)
{
    /* Four sandbox threads, two of them a token's at most; its next
     * requests wait (the default queue). */
    const char *const extra[] = {"--threads", "4", NULL};
    provd_local d;
    char a[PROVD_TEST_TOKEN_LEN + 1];
    if (!provd_local_start(&d, 0, extra))
        return;
    int a_fds[2] = {-1, -1}, waiting = -1;
    if (provd_create_token(provd_url(d.proc), "tenant-a", "ua", a) &&
        start_sleeps(&d, a, "85", 2, a_fds)) {
        waiting = exec_in_flight(&d, a, "sleep 8603");
        /* Two threads are free, yet the token's third request does not
         * run while its two others do. */
        CU_ASSERT_FALSE(markers_are("86", 1, 1, sbx_test_now_ms() + 500));
        close(a_fds[0]);
        a_fds[0] = -1;
        CU_ASSERT_TRUE(markers_are("86", 1, 1, sbx_test_now_ms() + DEADLINE_MS));
    }
    for (int i = 0; i < 2; i++) {
        if (a_fds[i] >= 0)
            close(a_fds[i]);
    }
    if (waiting >= 0)
        close(waiting);
    long deadline = sbx_test_now_ms() + DEADLINE_MS;
    CU_ASSERT_TRUE(markers_are("85", 2, 0, deadline) && markers_are("86", 1, 0, deadline));
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* A kB figure of /proc/PID/status (`name`: "VmRSS", "VmHWM"); -1 when
 * unreadable. */
static long status_kb(pid_t pid, const char *name)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    size_t len = strlen(name);
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, name, len) == 0 && line[len] == ':')
            kb = strtol(line + len + 1, NULL, 10);
    }
    if (f != NULL)
        fclose(f);
    return kb;
}

/* Reset the daemon's VmHWM to its VmRSS (clear_refs 5). */
static int reset_peak(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/clear_refs", (int)pid);
    FILE *f = fopen(path, "w");
    int done = f != NULL && fputs("5", f) >= 0;
    if (f != NULL)
        done &= fclose(f) == 0;
    return done;
}

/* POST /v1/file/read of `file` for `token`: the result (clear it). */
static void read_file(const provd_local *d, const char *token, const char *file,
                      sbx_test_http_result *r)
{
    char url[512], body[128];
    snprintf(url, sizeof url, "%s/s/%s/v1/file/read", provd_url(d->proc), token);
    snprintf(body, sizeof body, "{\"file\":\"%s\"}", file);
    memset(r, 0, sizeof *r);
    CU_ASSERT_EQUAL(sbx_test_http("POST", url, NULL, body, DEADLINE_MS, r), 0);
}

/* GET /v1/file/download of `file` for `token` (`query`: more arguments,
 * "" for none); the daemon's peak while it ran, less its resident size
 * before, in kB (through *peak_kb); the result (clear it). */
static void download(const provd_local *d, const char *token, const char *file,
                     const char *query, long *peak_kb, sbx_test_http_result *r)
{
    char url[512];
    snprintf(url, sizeof url, "%s/s/%s/v1/file/download?path=%s%s", provd_url(d->proc), token,
             file, query);
    pid_t pid = provd_pid(d->proc);
    CU_ASSERT_TRUE(reset_peak(pid));
    long before = status_kb(pid, "VmRSS");
    memset(r, 0, sizeof *r);
    CU_ASSERT_EQUAL(sbx_test_http("GET", url, NULL, NULL, DEADLINE_MS, r), 0);
    *peak_kb = status_kb(pid, "VmHWM") - before;
}

static void test_a_file_read_costs_about_its_answer_and_gives_it_back(void)
{
    const char *const extra[] = {"--max-answer-bytes", "33554432", NULL};
    provd_local d;
    char token[PROVD_TEST_TOKEN_LEN + 1], answer[4096];
    if (!provd_local_start(&d, 0, extra))
        return;
    /* Sparse files (no disk): each NUL is six bytes of answer. */
    if (!provd_create_token(provd_url(d.proc), "reads", "u", token) ||
        exec_now(&d, token, "truncate -s 4M fits && truncate -s 8M wide && truncate -s 40M over",
                 answer, sizeof answer) != 200) {
        CU_FAIL("the sparse files were not made");
        provd_local_stop(&d, 0);
        return;
    }
    pid_t pid = provd_pid(d.proc);
    CU_ASSERT_TRUE(reset_peak(pid));
    long before = status_kb(pid, "VmRSS");
    sbx_test_http_result r;
    read_file(&d, token, "fits", &r);
    long peak = status_kb(pid, "VmHWM");
    size_t answer_kb = r.body_len / 1024;
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT(r.body_len > (size_t)24 << 20 && r.body_len < (size_t)32 << 20);
    CU_ASSERT(r.body != NULL && strncmp(r.body, "{\"success\":true,", 16) == 0);
    sbx_test_http_result_clear(&r);
    /* The file and its answer, and no more than half the answer again;
     * given back once the answer is sent. */
    long deadline = sbx_test_now_ms() + DEADLINE_MS, after;
    while ((after = status_kb(pid, "VmRSS")) > before + (long)answer_kb / 8 &&
           SBX_TEST_MEMORY_FIGURES_HOLD && sbx_test_now_ms() < deadline)
        ;
    if (SBX_TEST_MEMORY_FIGURES_HOLD) {
        CU_ASSERT(before > 0 && peak - before <= (long)(answer_kb * 3 / 2));
        CU_ASSERT(after <= before + (long)answer_kb / 8);
    }
    fprintf(stderr,
            "a %zu kB answer: VmRSS %ld kB before, VmHWM %ld kB during (+%ld), VmRSS %ld kB "
            "after\n",
            answer_kb, before, peak, peak - before, after);
    /* An answer over the cap, and a file over it, are refused. */
    read_file(&d, token, "wide", &r);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT(r.body != NULL && strstr(r.body, "{\"success\":false,") == r.body);
    CU_ASSERT(r.body != NULL && strstr(r.body, "the answer would be larger than 33554432 bytes"));
    CU_ASSERT(r.body != NULL && strstr(r.body, "\"error_type\":\"io_error\""));
    sbx_test_http_result_clear(&r);
    read_file(&d, token, "over", &r);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT(r.body != NULL && strstr(r.body, "{\"success\":false,") == r.body);
    CU_ASSERT(r.body != NULL && strstr(r.body, "over is larger than 33554432 bytes"));
    sbx_test_http_result_clear(&r);
    /* A download of it too, sent from the file or read whole. */
    static const char *const policies[] = {"", "&change_policy=abort"};
    for (size_t i = 0; i < 2; i++) {
        long peak_kb = 0;
        download(&d, token, "over", policies[i], &peak_kb, &r);
        CU_ASSERT_EQUAL(r.status, 400);
        CU_ASSERT(r.body != NULL &&
                  strcmp(r.body, "{\"detail\":\"over is larger than 33554432 bytes, the largest "
                                 "file read whole here\"}") == 0);
        sbx_test_http_result_clear(&r);
    }
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* POST /v1/file/write of `size` bytes of text (base64 when `base64`) to
 * `file` for `token`; the daemon's peak while it ran, less its resident
 * size before, in kB (through *peak_kb), and the answer's status. */
static long write_big(const provd_local *d, const char *token, const char *file, size_t size,
                      int base64, long *peak_kb)
{
    size_t content_len = base64 ? (size + 2) / 3 * 4 : size;
    char *body = malloc(content_len + 200);
    if (body == NULL)
        return -1;
    int head = snprintf(body, 200, "{\"file\":\"%s\",%s\"content\":\"", file,
                        base64 ? "\"encoding\":\"base64\"," : "");
    /* "abc" is "YWJj" in base64: `size` a multiple of 3 repeats either */
    for (size_t i = 0; i < content_len; i++)
        body[head + i] = base64 ? "YWJj"[i % 4] : "abc"[i % 3];
    snprintf(body + head + content_len, 200, "\"}");
    char url[512];
    snprintf(url, sizeof url, "%s/s/%s/v1/file/write", provd_url(d->proc), token);
    pid_t pid = provd_pid(d->proc);
    CU_ASSERT_TRUE(reset_peak(pid));
    long before = status_kb(pid, "VmRSS");
    sbx_test_http_result r;
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL(sbx_test_http("POST", url, NULL, body, DEADLINE_MS, &r), 0);
    *peak_kb = status_kb(pid, "VmHWM") - before;
    long status = r.status;
    char expected[64];
    snprintf(expected, sizeof expected, "\"bytes_written\":%zu", size);
    CU_ASSERT(r.body != NULL && strstr(r.body, expected) != NULL);
    sbx_test_http_result_clear(&r);
    free(body);
    return status;
}

static void test_a_16_mib_write_holds_its_body_and_no_copy_of_it(void)
{
    const size_t size = (size_t)16 << 20;
    provd_local d;
    char token[PROVD_TEST_TOKEN_LEN + 1], answer[4096];
    if (!provd_local_start(&d, 0, NULL))
        return;
    if (provd_create_token(provd_url(d.proc), "big", "u", token)) {
        long text_kb = 0, base64_kb = 0;
        CU_ASSERT_EQUAL(write_big(&d, token, "big.txt", size, 0, &text_kb), 200);
        /* size - 1 is a multiple of 3: whole groups of "abc" */
        CU_ASSERT_EQUAL(write_big(&d, token, "big.bin", size - 1, 1, &base64_kb), 200);
        CU_ASSERT_EQUAL(exec_now(&d, token, "wc -c < big.txt; wc -c < big.bin; head -c 6 big.bin",
                                 answer, sizeof answer), 200);
        CU_ASSERT_PTR_NOT_NULL(strstr(answer, "\"stdout\":\"16777216\\n16777215\\nabcabc\""));
        /* The body (16 MiB of text, 21.3 MiB of base64) and a quarter
         * of it for everything else; json-c's parse took three times. */
        if (SBX_TEST_MEMORY_FIGURES_HOLD) {
            CU_ASSERT(text_kb > 0 && text_kb <= 16384 * 5 / 4);
            CU_ASSERT(base64_kb > 0 && base64_kb <= 21846 * 5 / 4);
        }
        fprintf(stderr, "16 MiB writes: the daemon's peak rose by %ld kB (text), %ld kB (base64)\n",
                text_kb, base64_kb);
    }
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* Whether `len` bytes at `body` are "0123456789abcdef\n" over and over,
 * `want` bytes of it. */
static int is_pattern(const char *body, size_t len, size_t want)
{
    static const char line[] = "0123456789abcdef\n";
    if (body == NULL || len != want)
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (body[i] != line[i % (sizeof line - 1)])
            return 0;
    }
    return 1;
}

/* Over the local backend (open_file, ABI 1.6) a download is sent from the
 * file: the daemon holds none of its 16 MiB.  change_policy=abort keeps
 * the copy read whole, and the same bytes. */
static void test_a_16_mib_download_is_sent_from_the_file(void)
{
    const size_t size = (size_t)16 << 20;
    provd_local d;
    char token[PROVD_TEST_TOKEN_LEN + 1], answer[4096];
    if (!provd_local_start(&d, 0, NULL))
        return;
    if (provd_create_token(provd_url(d.proc), "down", "u", token) &&
        exec_now(&d, token, "yes 0123456789abcdef | head -c 16777216 > big.bin", answer,
                 sizeof answer) == 200) {
        long sent_kb = 0, abort_kb = 0;
        sbx_test_http_result r;
        download(&d, token, "big.bin", "", &sent_kb, &r);
        CU_ASSERT_EQUAL(r.status, 200);
        CU_ASSERT(r.content_type != NULL &&
                  strcmp(r.content_type, "application/octet-stream") == 0);
        CU_ASSERT_TRUE(is_pattern(r.body, r.body_len, size));
        sbx_test_http_result_clear(&r);
        download(&d, token, "big.bin", "&change_policy=abort", &abort_kb, &r);
        CU_ASSERT_EQUAL(r.status, 200);
        CU_ASSERT_TRUE(is_pattern(r.body, r.body_len, size));
        sbx_test_http_result_clear(&r);
        /* Sent from the file: well below an eighth of it. */
        if (SBX_TEST_MEMORY_FIGURES_HOLD)
            CU_ASSERT(sent_kb >= 0 && sent_kb < 16384 / 8);
        fprintf(stderr,
                "16 MiB downloads: the daemon's peak rose by %ld kB (sent from the file), "
                "%ld kB (change_policy=abort, read whole)\n",
                sent_kb, abort_kb);
    } else {
        CU_FAIL("the 16 MiB file was not made");
    }
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* Read from `fd` until the end of its stream (1) or an error or the
 * deadline (0), adding the bytes read to *total. */
static int read_to_end(int fd, size_t *total, long deadline)
{
    char buf[65536];
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        long left = deadline - sbx_test_now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) != 1)
            return 0;
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0)
            return n == 0;
        *total += (size_t)n;
    }
}

/* A file cut shorter while it is sent ends the answer short of its
 * Content-Length, and the connection is closed: the client never takes
 * the short file for a whole one.  64 MiB is more than the socket
 * buffers hold, so most of it is still to send when the file is cut. */
static void test_a_download_of_a_file_cut_while_sent_is_cut_and_closed(void)
{
    provd_local d;
    char token[PROVD_TEST_TOKEN_LEN + 1], answer[4096];
    if (!provd_local_start(&d, 0, NULL))
        return;
    if (!provd_create_token(provd_url(d.proc), "cut", "u", token) ||
        exec_now(&d, token, "truncate -s 64M cut.bin", answer, sizeof answer) != 200) {
        CU_FAIL("the 64 MiB file was not made");
        provd_local_stop(&d, 0);
        return;
    }
    char request[512];
    snprintf(request, sizeof request,
             "GET /s/%s/v1/file/download?path=cut.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
             token);
    int fd = provd_connect(provd_url(d.proc));
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT(send(fd, request, strlen(request), MSG_NOSIGNAL) == (ssize_t)strlen(request));
    /* The answer has begun (its first bytes are here) before the cut. */
    char head[512] = "";
    struct pollfd p = {.fd = fd, .events = POLLIN};
    CU_ASSERT_EQUAL(poll(&p, 1, (int)DEADLINE_MS), 1);
    ssize_t first = recv(fd, head, sizeof head - 1, 0);
    CU_ASSERT_FATAL(first > 0);
    head[first] = '\0';
    CU_ASSERT_PTR_NOT_NULL(strstr(head, "HTTP/1.1 200 OK\r\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(head, "Content-Length: 67108864\r\n"));
    CU_ASSERT_EQUAL(exec_now(&d, token, "truncate -s 0 cut.bin", answer, sizeof answer), 200);
    size_t total = (size_t)first;
    CU_ASSERT_TRUE(read_to_end(fd, &total, sbx_test_now_ms() + DEADLINE_MS));
    CU_ASSERT(total < (size_t)64 << 20);
    fprintf(stderr, "a 64 MiB download cut to 0 bytes while sent: %zu bytes arrived, then the "
                    "end of the connection\n",
            total);
    close(fd);
    /* The daemon goes on answering. */
    CU_ASSERT_EQUAL(exec_now(&d, token, "echo on", answer, sizeof answer), 200);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

void sbx_test_register(void)
{
    static CU_TestInfo tests[] = {
        {"a 16 MiB write holds its body and no copy of it",
         test_a_16_mib_write_holds_its_body_and_no_copy_of_it},
        {"clients that go away end their commands and free the threads",
         test_clients_that_go_away_end_their_commands_and_free_the_threads},
        {"an exec without hard_timeout ends at the exec timeout",
         test_an_exec_without_hard_timeout_ends_at_the_exec_timeout},
        {"a token at its share and queue is refused while others are served",
         test_a_token_at_its_share_and_queue_is_refused_while_others_are_served},
        {"a token beyond its share waits for one of its own",
         test_a_token_beyond_its_share_waits_for_one_of_its_own},
        {"a file read costs about its answer and gives it back",
         test_a_file_read_costs_about_its_answer_and_gives_it_back},
        {"a 16 MiB download is sent from the file", test_a_16_mib_download_is_sent_from_the_file},
        {"a download of a file cut while sent is cut and closed",
         test_a_download_of_a_file_cut_while_sent_is_cut_and_closed},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbx-provisiond sandbox API limits", NULL, NULL, tests);
}
