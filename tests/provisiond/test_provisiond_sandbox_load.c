/* The sandbox API of sbx-provisiond (over the local backend) under load
 * and under clients that go away: 20 clients at once, each through its
 * own remote backend, run commands and move files in 5 sandboxes and get
 * their own outputs back, none another's; clients that disconnect in the
 * middle of an exec (a close, a reset, a half-close) leave nothing behind:
 * the command and its background child end (at once: a client that
 * goes away ends its command; by the exec's timeout at the latest), the
 * daemon keeps no child process and no connection of theirs, and it
 * answers the next request at once. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/proc_table.h"
#include "tests/support/remote_helpers.h"

#define CLIENTS 20
#define SANDBOXES 5
#define ROUNDS 8
/* Generous against a loaded machine; the expected path is fast. */
#define DEADLINE_MS 60000L

typedef struct client {
    const char *url;            /* the daemon's */
    pthread_barrier_t *start;
    int index;
    int failures;
} client;

/* Count a failure of client `c` with what went wrong. */
static void failed(client *c, const char *what, const char *detail)
{
    c->failures++;
    fprintf(stderr, "client %d: %s: %s\n", c->index, what, detail);
}

/* One round of client `c` in sandbox `id`: a command whose output names
 * the client and round (in its env, stdout, stderr and exit code), a file
 * of its own written and read back. */
static void one_round(client *c, sbx_backend *b, const char *id, int round)
{
    char value[64], client_env[16], code_env[16], want_out[160], name[64];
    snprintf(value, sizeof value, "client %d round %d", c->index, round);
    snprintf(client_env, sizeof client_env, "%d", c->index);
    snprintf(code_env, sizeof code_env, "%d", (c->index * ROUNDS + round) % 200);
    const sbx_env_var env[] = {{"MINE", value}, {"CLIENT", client_env}, {"CODE", code_env}};
    sbx_exec_request req = SBX_EXEC_REQUEST_INIT;
    req.shell_command = "printf '%s|' \"$MINE\"; cat \"f-$CLIENT\" 2>/dev/null; "
                        "printf '%s' \"$MINE\" >&2; exit \"$CODE\"";
    req.env = env;
    req.env_count = 3;
    req.timeout_ms = DEADLINE_MS;
    /* The file the client wrote in its last round comes back in this one. */
    if (round == 0)
        snprintf(want_out, sizeof want_out, "%s|", value);
    else
        snprintf(want_out, sizeof want_out, "%s|last %d", value, round - 1);
    sbx_exec_result *r = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_exec(b, id, &req, &r, &err);
    if (st != SBX_OK)
        failed(c, "exec", err.message);
    else if (r->outcome != SBX_EXEC_EXITED || r->exit_code != atoi(code_env) ||
             strcmp(r->stdout_data, want_out) != 0 || strcmp(r->stderr_data, value) != 0)
        failed(c, "exec answered another's output", r->stdout_data);
    sbx_backend_free_exec_result(b, r);
    char bytes[32];
    int len = snprintf(bytes, sizeof bytes, "last %d", round);
    snprintf(name, sizeof name, "f-%d", c->index);
    if (sbx_backend_write_file(b, id, name, bytes, (size_t)len, 0, 0600, &err) !=
        SBX_OK) {
        failed(c, "write", err.message);
        return;
    }
    sbx_file_content *content = NULL;
    if (sbx_backend_read_file(b, id, name, 0, 1024, &content, &err) != SBX_OK)
        failed(c, "read", err.message);
    else if (content->length != (size_t)len || memcmp(content->data, bytes, (size_t)len) != 0)
        failed(c, "read another's bytes", content->data);
    sbx_backend_free_file_content(b, content);
}

static void *client_main(void *arg)
{
    client *c = arg;
    sbx_host *host = NULL;
    sbx_error err;
    /* 20 clients share the daemon's 8 threads: on a loaded machine a
     * call may wait longer than the remote backend's default 10 s. */
    const sbx_option patient[] = {{"timeout_ms", "120000"}};
    sbx_backend *b = sbx_test_open_remote(&host, c->url, NULL, patient, 1, &err);
    if (b == NULL)
        failed(c, "open remote", err.message);
    /* Every client starts at once, opened or not, so that none waits. */
    pthread_barrier_wait(c->start);
    char id[16];
    snprintf(id, sizeof id, "box-%d", c->index % SANDBOXES);
    for (int round = 0; b != NULL && round < ROUNDS; round++)
        one_round(c, b, id, round);
    sbx_backend_close(b);
    sbx_host_free(host);
    return NULL;
}

static void test_twenty_clients_in_five_sandboxes_each_get_their_own_outputs(void)
{
    provd_local d;
    if (!provd_local_start(&d, 1, NULL))
        return;
    for (int i = 0; i < SANDBOXES; i++) {
        char id[16];
        snprintf(id, sizeof id, "box-%d", i);
        CU_ASSERT_EQUAL(provd_create(provd_url(d.proc), id, "u", DEADLINE_MS, NULL, 0), 200);
    }
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, CLIENTS);
    client clients[CLIENTS];
    pthread_t threads[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        clients[i] = (client){provd_url(d.proc), &start, i, 0};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, client_main, &clients[i]), 0);
    }
    int failures = 0;
    for (int i = 0; i < CLIENTS; i++) {
        pthread_join(threads[i], NULL);
        failures += clients[i].failures;
    }
    pthread_barrier_destroy(&start);
    CU_ASSERT_EQUAL(failures, 0);
    /* Each client's last file is in its own sandbox, with its last bytes. */
    for (int i = 0; i < CLIENTS; i++) {
        char path[700], text[32] = "";
        snprintf(path, sizeof path, "%s/box-%d/f-%d", d.local_dir, i % SANDBOXES, i);
        FILE *f = fopen(path, "r");
        if (f != NULL) {
            text[fread(text, 1, sizeof text - 1, f)] = '\0';
            fclose(f);
        }
        char want[32];
        snprintf(want, sizeof want, "last %d", ROUNDS - 1);
        CU_ASSERT_STRING_EQUAL(text, want);
    }
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* How many entries /proc/PID/`what` (fd, task) has, not counting the
 * links to the file `kept` (NULL: none); -1 when unreadable. */
static int proc_entries(pid_t pid, const char *what, const char *kept)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, what);
    DIR *dir = opendir(path);
    if (dir == NULL)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        char link[320], target[sizeof link] = "";
        if (e->d_name[0] == '.')
            continue;
        if (kept != NULL) {
            snprintf(link, sizeof link, "%s/%s", path, e->d_name);
            ssize_t len = readlink(link, target, sizeof target - 1);
            target[len > 0 ? len : 0] = '\0';
        }
        n += kept == NULL || strcmp(target, kept) != 0;
    }
    closedir(dir);
    return n;
}

/* The parent children_of() looks for, and how many children so far. */
struct children {
    long parent;
    int n;
};

/* Count `p` in the children `ctx` when it is a child of their parent. */
static int count_child(const sbx_test_process *p, void *ctx)
{
    struct children *c = ctx;
    c->n += p->ppid == c->parent;
    return 0;
}

/* How many processes have `parent` as their parent. */
static int children_of(pid_t parent)
{
    struct children c = {(long)parent, 0};
    sbx_test_proc_each(count_child, &c);
    return c.n;
}

/* Whether the file `name` of sandbox `id` exists, waiting for it at most
 * DEADLINE_MS. */
static int appears(const provd_local *d, const char *id, const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s/%s", d->local_dir, id, name);
    long deadline = sbx_test_now_ms() + DEADLINE_MS;
    while (access(path, F_OK) != 0 && sbx_test_now_ms() < deadline)
        ;
    return access(path, F_OK) == 0;
}

/* Whether what arrives on `fd` holds `text` before `deadline` (ms on
 * sbx_test_now_ms's clock), waiting in poll(). */
static int answer_says(int fd, long deadline, const char *text)
{
    char got[8192];
    size_t len = 0;
    got[0] = '\0';
    while (strstr(got, text) == NULL && len + 1 < sizeof got) {
        long left = deadline - sbx_test_now_ms();
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, (int)left) != 1)
            return 0;
        ssize_t n = recv(fd, got + len, sizeof got - 1 - len, 0);
        if (n <= 0)
            return 0;
        len += (size_t)n;
        got[len] = '\0';
    }
    return strstr(got, text) != NULL;
}

/* A raw connection to the daemon at `url` that has sent an exec of
 * `body` (JSON) in the sandbox of `token`, its answer unread; -1 when it
 * cannot connect or send. */
static int exec_sent(const char *url, const char *token, const char *body)
{
    char request[1024];
    int len = snprintf(request, sizeof request,
                       "POST /s/%s/v1/bash/exec HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                       token, strlen(body), body);
    int fd = provd_connect(url);
    if (fd >= 0 && send(fd, request, (size_t)len, MSG_NOSIGNAL) != (ssize_t)len) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* The ways a client can go away in the middle of an exec. */
typedef enum { GONE_CLOSE, GONE_RESET, GONE_HALF_CLOSE, GONE_WAYS } gone_way;

static void test_clients_gone_mid_exec_leave_nothing_and_the_daemon_serves_on(void)
{
    provd_local d;
    if (!provd_local_start(&d, 1, NULL))
        return;
    char token[PROVD_TEST_TOKEN_LEN + 1], path[256], answer[4096];
    if (!provd_create_token(provd_url(d.proc), "cut", "u", token)) {
        provd_local_stop(&d, 0);
        return;
    }
    /* The daemon's own descriptors and threads once it has served the
     * API, before the clients come. */
    snprintf(path, sizeof path, "/s/%s/v1/sandbox", token);
    CU_ASSERT_EQUAL(provd_request(provd_url(d.proc), (provd_send){"GET", path, NULL}, DEADLINE_MS,
                                  answer, sizeof answer),
                    200);
    pid_t pid = provd_pid(d.proc);
    /* The local backend keeps the sandbox's record open from a read of it
     * made a second or more after it changed (its record cache,
     * plugin/local/local_cache.h): under load, during the execs.  That
     * descriptor is the backend's, none of the clients'. */
    char record[sizeof d.local_dir + 16];
    snprintf(record, sizeof record, "%s/cut.json", d.local_dir);
    int fds_before = proc_entries(pid, "fd", record);
    int threads_before = proc_entries(pid, "task", NULL);
    int sockets[GONE_WAYS];
    long started = sbx_test_now_ms();
    for (int way = 0; way < GONE_WAYS; way++) {
        /* A foreground and a background sleep, told apart by their length;
         * the command says it runs by a file, then waits for the timeout. */
        char body[512];
        snprintf(body, sizeof body,
                 "{\"command\":\"sleep 5%d11 & sleep 5%d12 & touch started-%d; wait\","
                 "\"hard_timeout\":3}",
                 way, way, way);
        sockets[way] = exec_sent(provd_url(d.proc), token, body);
        CU_ASSERT_FATAL(sockets[way] >= 0);
        char started_name[32];
        snprintf(started_name, sizeof started_name, "started-%d", way);
        CU_ASSERT_TRUE(appears(&d, "cut", started_name));
    }
    /* All three commands run; their clients go. */
    struct linger reset = {1, 0};
    setsockopt(sockets[GONE_RESET], SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    shutdown(sockets[GONE_HALF_CLOSE], SHUT_WR);
    close(sockets[GONE_CLOSE]);
    close(sockets[GONE_RESET]);
    /* The half-closed client, taken as gone, still reads: its answer
     * comes when the command ends. */
    long deadline = sbx_test_now_ms() + DEADLINE_MS;
    CU_ASSERT_TRUE(answer_says(sockets[GONE_HALF_CLOSE], deadline, "\"status\":\"timed_out\""));
    close(sockets[GONE_HALF_CLOSE]);
    fprintf(stderr, "the half-closed client's exec ended after %ld ms\n",
            sbx_test_now_ms() - started);
    /* None of the commands is left running (the clients that went started
     * theirs earlier, with the same timeout). */
    int left = 1;
    while (left && sbx_test_now_ms() < deadline) {
        left = 0;
        for (int way = 0; way < GONE_WAYS; way++) {
            char marker[16];
            snprintf(marker, sizeof marker, "sleep 5%d1", way);
            left |= provd_running_with(marker);
        }
    }
    CU_ASSERT_FALSE(left);
    /* Nothing of theirs is left in the daemon: no child process, the
     * connections closed, its threads as before. */
    while ((children_of(pid) != 0 || proc_entries(pid, "fd", record) > fds_before ||
            proc_entries(pid, "task", NULL) > threads_before) &&
           sbx_test_now_ms() < deadline)
        ;
    CU_ASSERT_EQUAL(children_of(pid), 0);
    CU_ASSERT(proc_entries(pid, "fd", record) <= fds_before);
    CU_ASSERT(proc_entries(pid, "task", NULL) <= threads_before);
    /* And it serves the next client at once. */
    snprintf(path, sizeof path, "/s/%s/v1/bash/exec", token);
    CU_ASSERT_EQUAL(
        provd_request(
            provd_url(d.proc),
            (provd_send){"POST", path, "{\"command\":\"echo still here\",\"hard_timeout\":30}"},
            DEADLINE_MS, answer, sizeof answer),
        200);
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, "\"stdout\":\"still here\\n\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, "\"status\":\"completed\""));
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* Whether no process with `marker` in its command line runs, waiting for
 * that until `deadline` (ms on sbx_test_now_ms's clock). */
static int none_left(const char *marker, long deadline)
{
    while (provd_running_with(marker) && sbx_test_now_ms() < deadline)
        ;
    return !provd_running_with(marker);
}

/* A half-closed client gets its answer whatever else the daemon's thread
 * serves: here its only thread (--threads 1) also holds an idle keep-alive
 * connection, older than the client's.  (Without a settled suspension,
 * libmicrohttpd read the resumed connection before answering it whenever
 * an older one shared its thread, and closed it at the client's EOF.) */
static void test_a_half_closed_client_gets_its_answer_beside_an_idle_connection(void)
{
    static const char *const extra[] = {"--threads", "1", NULL};
    static const char health[] = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    provd_local d;
    if (!provd_local_start(&d, 1, extra))
        return;
    char token[PROVD_TEST_TOKEN_LEN + 1];
    long deadline = sbx_test_now_ms() + DEADLINE_MS;
    int idle = -1, half = -1;
    if (provd_create_token(provd_url(d.proc), "half", "u", token)) {
        idle = provd_connect(provd_url(d.proc));
        CU_ASSERT(idle >= 0);
        CU_ASSERT_EQUAL(send(idle, health, sizeof health - 1, MSG_NOSIGNAL),
                        (ssize_t)(sizeof health - 1));
        CU_ASSERT_TRUE(answer_says(idle, deadline, " 200 OK\r\n"));
        half = exec_sent(provd_url(d.proc), token,
                         "{\"command\":\"touch started; sleep 5301\",\"hard_timeout\":30}");
        CU_ASSERT(half >= 0);
    }
    if (half >= 0) {
        CU_ASSERT_TRUE(appears(&d, "half", "started"));
        shutdown(half, SHUT_WR);
        CU_ASSERT_TRUE(answer_says(half, deadline, "\"status\":\"timed_out\""));
        CU_ASSERT_TRUE(none_left("sleep 5301", deadline));
        close(half);
    }
    if (idle >= 0)
        close(idle);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

void sbx_test_register(void)
{
    static CU_TestInfo tests[] = {
        {"20 clients in 5 sandboxes each get their own outputs",
         test_twenty_clients_in_five_sandboxes_each_get_their_own_outputs},
        {"clients gone mid-exec leave nothing and the daemon serves on",
         test_clients_gone_mid_exec_leave_nothing_and_the_daemon_serves_on},
        {"a half-closed client gets its answer beside an idle connection",
         test_a_half_closed_client_gets_its_answer_beside_an_idle_connection},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbx-provisiond sandbox API under load", NULL, NULL, tests);
}
