/* sbx-provisiond's start as an operator sees it: files in the state
 * directory that are not ownership records (a FIFO, a directory, a file
 * over the size limit, a symbolic link, text that is no record) are
 * skipped with a warning naming them, the daemon serves the other ids,
 * and the ids those files name are never handed to anyone (409); a stop
 * signal during a slow start ends the process at once; a FIFO given as
 * the TLS certificate or key is refused, never waited on; the mount
 * contract served is the one the backend's capabilities answer at start,
 * whatever the backend's name. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/emulator.h"
#include "tests/support/scratch_dir.h"

#include <json-c/json.h>

/* Generous for a loaded machine; the expected path takes milliseconds. */
#define DEADLINE_MS 30000

/* The odd files: name in the state directory, and how to make it. */
enum kind { FIFO, DIRECTORY, OVERSIZED, LINK, NOT_A_RECORD };
static const struct {
    const char *id;
    enum kind kind;
} odd[] = {
    {"odd-fifo", FIFO},           {"odd-dir", DIRECTORY}, {"odd-big", OVERSIZED},
    {"odd-link", LINK},           {"odd-text", NOT_A_RECORD},
};
#define ODD_COUNT (sizeof odd / sizeof odd[0])

static void read_text(const char *path, char *text, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t got = f != NULL ? fread(text, 1, cap - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    text[got] = '\0';
}

/* Make the odd file of odd[i] in `dir`, beside the good record `good`. */
static int make_odd(const char *dir, size_t i, const char *good)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.owner", dir, odd[i].id);
    switch (odd[i].kind) {
    case FIFO:
        return mkfifo(path, 0600) == 0;
    case DIRECTORY:
        return mkdir(path, 0700) == 0;
    case LINK:
        return symlink(good, path) == 0;
    case OVERSIZED:
    case NOT_A_RECORD: {
        FILE *f = fopen(path, "w");
        if (f == NULL)
            return 0;
        if (odd[i].kind == NOT_A_RECORD)
            fputs("{\"user_id\":5}", f);
        else
            for (int k = 0; k < 65 * 1024 + 1; k++)
                fputc(' ', f);
        return fclose(f) == 0;
    }
    }
    return 0;
}

static void test_odd_state_files_are_skipped_and_their_ids_refused(void)
{
    provd_local d;
    if (!provd_local_start(&d, 1, NULL))
        return;
    char answer[4096];
    CU_ASSERT_EQUAL(
        provd_create(provd_url(d.proc), "kept", "ann", DEADLINE_MS, answer, sizeof answer), 200);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 1), 0);
    char good[512];
    snprintf(good, sizeof good, "%s/kept.owner", d.owners_dir);
    for (size_t i = 0; i < ODD_COUNT; i++)
        CU_ASSERT_FATAL(make_odd(d.owners_dir, i, good));

    /* provd_local_restart fails when the daemon does not listen within 10 s. */
    long started = sbx_test_now_ms();
    if (!provd_local_restart(&d, 1, NULL)) {
        provd_local_stop(&d, 0);
        return;
    }
    fprintf(stderr, "started past the odd files in %ld ms\n", sbx_test_now_ms() - started);
    const char *base = provd_url(d.proc);
    char text[16384];
    read_text(d.stderr_path, text, sizeof text);
    for (size_t i = 0; i < ODD_COUNT; i++) {
        char name[512];
        snprintf(name, sizeof name, "%s/%s.owner", d.owners_dir, odd[i].id);
        CU_ASSERT_PTR_NOT_NULL(strstr(text, name));
        /* Nobody gets the id, whoever asks, and nothing of it is removed. */
        CU_ASSERT_EQUAL(provd_create(base, odd[i].id, "ann", DEADLINE_MS, answer, sizeof answer),
                        409);
        CU_ASSERT_PTR_NOT_NULL(strstr(answer, "has no verifiable"));
        char path[128];
        snprintf(path, sizeof path, "/api/sandboxes/%s", odd[i].id);
        CU_ASSERT_EQUAL(provd_request(base, (provd_send){"DELETE", path, NULL}, DEADLINE_MS, answer,
                                      sizeof answer),
                        409);
        struct stat st;
        CU_ASSERT_EQUAL(lstat(name, &st), 0);
    }
    /* The rest is served as before. */
    CU_ASSERT_EQUAL(provd_request(base, (provd_send){"GET", "/api/sandboxes/kept", NULL},
                                  DEADLINE_MS, answer, sizeof answer),
                    200);
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, "\"user_id\":\"ann\""));
    CU_ASSERT_EQUAL(provd_create(base, "kept", "bob", DEADLINE_MS, answer, sizeof answer), 409);
    CU_ASSERT_EQUAL(provd_create(base, "fresh", "bob", DEADLINE_MS, answer, sizeof answer), 200);
    CU_ASSERT_EQUAL(provd_request(base, (provd_send){"DELETE", "/api/sandboxes/fresh", NULL},
                                  DEADLINE_MS, NULL, 0),
                    200);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* A peer that accepts connections and never answers: the daemon's start
 * over the remote backend waits in its contract probe. */
static int silent_peer(unsigned *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 8) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(addr.sin_port);
    return fd;
}

static void test_sigterm_while_starting_ends_the_daemon_at_once(void)
{
    unsigned port = 0;
    int peer = silent_peer(&port);
    CU_ASSERT_FATAL(peer >= 0);
    char url[128], stderr_path[] = "/tmp/sbx-provd-start-XXXXXX";
    snprintf(url, sizeof url, "provisioner_url=http://127.0.0.1:%u", port);
    int err_fd = mkstemp(stderr_path);
    CU_ASSERT_FATAL(err_fd >= 0);
    close(err_fd);
    const char *const args[] = {"--listen", "127.0.0.1:0", "--backend", "remote",
                                "--set",    url,           NULL};
    provd_proc *p = provd_spawn(args, stderr_path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    /* Its probe has connected: the daemon is starting, and waits. */
    struct pollfd pfd = {.fd = peer, .events = POLLIN};
    int probed = poll(&pfd, 1, DEADLINE_MS) == 1;
    CU_ASSERT_TRUE(probed);
    int conn = probed ? accept(peer, NULL, NULL) : -1;
    long signalled = sbx_test_now_ms();
    kill(provd_pid(p), SIGTERM);
    char out[1024];
    int status = provd_wait_exit(p, DEADLINE_MS, out, sizeof out);
    long took = sbx_test_now_ms() - signalled;
    fprintf(stderr, "ended %ld ms after SIGTERM\n", took);
    char text[4096];
    read_text(stderr_path, text, sizeof text);
    CU_ASSERT_EQUAL(status, 0);
    /* It stopped where it was: it never listened. */
    CU_ASSERT_PTR_NULL(strstr(out, "listening"));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "SIGTERM while starting"));
    if (conn >= 0)
        close(conn);
    close(peer);
    unlink(stderr_path);
}

static void test_fifo_as_tls_file_is_refused_not_waited_on(void)
{
    char dir[200];
    CU_ASSERT_FATAL(sbx_test_scratch_dir(dir, sizeof dir, "provd-tls") == 0);
    char fifo[256], pem[256];
    snprintf(fifo, sizeof fifo, "%s/fifo.pem", dir);
    snprintf(pem, sizeof pem, "%s/cert.pem", dir);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    FILE *f = fopen(pem, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("-----BEGIN CERTIFICATE-----\n", f);
    fclose(f);
    const char *const pairs[][2] = {{fifo, pem}, {pem, fifo}};
    for (size_t i = 0; i < 2; i++) {
        const char *const args[] = {"--listen",   "127.0.0.1:0", "--tls-cert", pairs[i][0],
                                    "--tls-key", pairs[i][1],    NULL};
        char output[2048];
        long started = sbx_test_now_ms();
        CU_ASSERT_EQUAL(provd_run_refused(args, output, sizeof output), 2);
        fprintf(stderr, "refused in %ld ms: %s", sbx_test_now_ms() - started, output);
        CU_ASSERT_PTR_NOT_NULL(strstr(output, i == 0 ? "--tls-cert" : "--tls-key"));
        CU_ASSERT_PTR_NOT_NULL(strstr(output, "not a regular file"));
    }
    sbx_test_remove_tree(dir);
}

/* The served contract, as a client reads it: GET /api/capabilities's
 * mount_contract_version (absent: 0, as from a legacy provisioner); -1
 * when the daemon does not answer it. */
static int served_contract(const char *base)
{
    char answer[1024];
    if (provd_request(base, (provd_send){"GET", "/api/capabilities", NULL}, DEADLINE_MS, answer,
                      sizeof answer) != 200)
        return -1;
    json_object *root = json_tokener_parse(answer);
    json_object *version = NULL;
    int served = root == NULL ? -1
                 : json_object_object_get_ex(root, "mount_contract_version", &version)
                     ? json_object_get_int(version)
                     : 0;
    json_object_put(root);
    return served;
}

/* Whether the file at `path` says `text` within DEADLINE_MS (read again
 * every 10 ms); `text_out` keeps what it said last. */
static int file_says(const char *path, const char *text, char *text_out, size_t cap)
{
    long deadline = sbx_test_now_ms() + DEADLINE_MS;
    for (;;) {
        read_text(path, text_out, cap);
        if (strstr(text_out, text) != NULL)
            return 1;
        if (sbx_test_now_ms() >= deadline)
            return 0;
        poll(NULL, 0, 10);
    }
}

/* Start the daemon over `backend` (with `setting`, NULL: none) and check
 * the contract it serves and says at start. */
static void expect_served(const char *backend, const char *setting, int contract)
{
    char stderr_path[] = "/tmp/sbx-provd-contract-XXXXXX";
    int err_fd = mkstemp(stderr_path);
    CU_ASSERT_FATAL(err_fd >= 0);
    close(err_fd);
    const char *const args[] = {"--listen", "127.0.0.1:0", "--backend", backend,
                                setting != NULL ? "--set" : NULL, setting, NULL};
    provd_proc *p = provd_start(args, stderr_path);
    CU_ASSERT_PTR_NOT_NULL(p);
    if (p != NULL) {
        int served = served_contract(provd_url(p));
        if (served != contract)
            fprintf(stderr, "backend %s: served contract %d, expected %d\n", backend, served,
                    contract);
        CU_ASSERT_EQUAL(served, contract);
        /* The start line follows the listening line: wait for it, since
         * a stop signal before it ends the daemon as still starting. */
        char text[4096], says[64];
        snprintf(says, sizeof says, "mount contract %d,", contract);
        int said = file_says(stderr_path, says, text, sizeof text);
        if (!said)
            fprintf(stderr, "backend %s: no '%s' in its stderr:\n%s\n", backend, says, text);
        CU_ASSERT_TRUE(said);
        CU_ASSERT_EQUAL(provd_stop(p), 0);
    }
    unlink(stderr_path);
}

/* The daemon serves the contract the backend's capabilities answer (at
 * most 2), for any backend and whatever its name; a backend without
 * capabilities promises nothing and is served as legacy (0). */
static void test_served_contract_is_the_backends_capabilities_answer(void)
{
    /* Remote backends chained to provisioners of contracts 1 and 3. */
    static const struct {
        const char *emu_contract;
        int served;
    } chained[] = {{"1", 1}, {"3", 2}};
    for (size_t i = 0; i < sizeof chained / sizeof chained[0]; i++) {
        const char *const emu_args[] = {"--contract", chained[i].emu_contract, NULL};
        sbx_test_emu *emu = sbx_test_emu_start(emu_args);
        CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
        char url[300];
        snprintf(url, sizeof url, "provisioner_url=%s", sbx_test_emu_url(emu));
        expect_served("remote", url, chained[i].served);
        sbx_test_emu_stop(emu);
    }

    /* Modules of the tests' fixtures: one answering 2 under a name of its
     * own, one of ABI 1.0 without capabilities. */
    const char *build = getenv("SBX_TEST_BUILDDIR");
    const char *old = getenv("SBX_MODULE_PATH");
    char *saved = old != NULL ? strdup(old) : NULL;
    char path[8192];
    snprintf(path, sizeof path, "%s/tests/host/fixtures/.libs%s%s",
             build != NULL ? build : ".", old != NULL ? ":" : "", old != NULL ? old : "");
    setenv("SBX_MODULE_PATH", path, 1);
    expect_served("fixture-good", NULL, 2);
    expect_served("fixture-older-minor", NULL, 0);
    if (saved != NULL)
        setenv("SBX_MODULE_PATH", saved, 1);
    else
        unsetenv("SBX_MODULE_PATH");
    free(saved);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"odd_state_files_are_skipped_and_their_ids_refused",
         test_odd_state_files_are_skipped_and_their_ids_refused},
        {"sigterm_while_starting_ends_the_daemon_at_once",
         test_sigterm_while_starting_ends_the_daemon_at_once},
        {"fifo_as_tls_file_is_refused_not_waited_on",
         test_fifo_as_tls_file_is_refused_not_waited_on},
        {"served_contract_is_the_backends_capabilities_answer",
         test_served_contract_is_the_backends_capabilities_answer},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("provisiond_startup", NULL, NULL, tests);
}
