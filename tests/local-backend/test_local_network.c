/*
 * The create request's network on local (ABI 1.5, docs/local.md "Network
 * per sandbox"): with isolation=namespaces a sandbox created with network
 * none cannot connect to a listener on the host's 127.0.0.1 while one
 * created with egress can, whatever the `network` option says; the record
 * keeps the choice, so that every exec, process and the sandbox's command
 * get it;
 * a create of the id with another network is refused; with
 * isolation=none, network none is unsupported and nothing is made.  The
 * only addresses used are the host's and the sandboxes' loopbacks.  Run as
 * root, the suite drops to an unprivileged user first (as
 * test_local_isolation does).
 */
#include <config.h>

#include "tests/backend-contract/process_calls.h"
#include "tests/local-backend/local_fixture.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/http_probe.h"
#include "tests/support/scratch_dir.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* How long an accepted connection may take to show on a loaded machine. */
#define ACCEPT_DEADLINE_MS 30000

/* A backend on a state directory of its own. */
typedef struct opened {
    char state_dir[PATH_MAX];
    sbx_host *host;
    sbx_backend *backend;
} opened;

/* The host's listener every case tries to reach, on 127.0.0.1 only. */
static int listener_fd = -1, listener_port;

static void open_backend(opened *o, const char *tag, const sbx_option *extra, size_t count)
{
    sbx_local_test_make_dir(o->state_dir, sizeof o->state_dir, tag);
    o->host = sbx_local_test_new_host(NULL, NULL);
    sbx_option opts[6] = { { "state_dir", o->state_dir } };
    for (size_t i = 0; i < count && i < 5; i++)
        opts[i + 1] = extra[i];
    o->backend = sbx_local_test_open(o->host, opts, count + 1);
}

static void close_backend(opened *o)
{
    if (o->backend == NULL)
        return;
    sbx_test_destroy_all(o->backend);
    sbx_backend_close(o->backend);
    sbx_host_free(o->host);
    sbx_test_remove_tree(o->state_dir);
    o->backend = NULL;
}

/* Create `id` with `network`: the status, the sandbox's URL into `url`
 * (when SBX_OK), the error in *err. */
static sbx_status create_with(const opened *o, const char *id, sbx_network network, char *url,
                              size_t size, sbx_error *err)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.network = network;
    sbx_sandbox *sb = NULL;
    sbx_status st = sbx_backend_create(o->backend, &req, &sb, err);
    if (st == SBX_OK) {
        snprintf(url, size, "%s", sb->sandbox_url);
        sbx_backend_free_sandboxes(o->backend, sb, 1);
    }
    return st;
}

/* As create_with, asserting success. */
static void create_ok(const opened *o, const char *id, sbx_network network, char *url,
                      size_t size)
{
    sbx_error err;
    sbx_status st = create_with(o, id, network, url, size, &err);
    if (st != SBX_OK)
        fprintf(stderr, "create %s: %s\n", id, err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
}

/* Accept what is pending on the listener within ACCEPT_DEADLINE_MS: 1 when
 * a connection came. */
static int listener_accepted(void)
{
    struct pollfd p = { listener_fd, POLLIN, 0 };
    if (poll(&p, 1, ACCEPT_DEADLINE_MS) != 1)
        return 0;
    int c = accept(listener_fd, NULL, NULL);
    if (c >= 0)
        close(c);
    return c >= 0;
}

/* 1 when a connection is pending on the listener now (none should be). */
static int listener_pending(void)
{
    struct pollfd p = { listener_fd, POLLIN, 0 };
    return poll(&p, 1, 0) == 1;
}

/* The exit code of an exec in `id` connecting to 127.0.0.1:`port` (-1
 * when it did not exit). */
static int connect_exit(const opened *o, const char *id, int port)
{
    char text[128];
    snprintf(text, sizeof text, "exec bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d' 2>/dev/null",
             port);
    sbx_exec_result *r = sbx_test_shell_ok(o->backend, id, text, 0);
    int code = r->outcome == SBX_EXEC_EXITED ? r->exit_code : -1;
    sbx_backend_free_exec_result(o->backend, r);
    return code;
}

/* The exit code of a live process (process_start) in `id` connecting to
 * 127.0.0.1:`port`, once it ended (-1 when it did not exit). */
static int process_connect_exit(const opened *o, const char *id, int port)
{
    char text[128], process[SBX_PROCESS_ID_MAX + 1];
    snprintf(text, sizeof text, "exec bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d' 2>/dev/null",
             port);
    proc_test_start_shell(o->backend, id, text, NULL, process);
    sbx_process_info *info = proc_test_wait_end(o->backend, id, process);
    int code = info != NULL && info->outcome == SBX_EXEC_EXITED ? info->exit_code : -1;
    sbx_backend_free_processes(o->backend, info);
    return code;
}

/* 1 when the record of `id` says "network": `want` (NULL: no member). */
static int recorded_network(const opened *o, const char *id, const char *want)
{
    json_object *meta = sbx_local_test_read_metadata(o->state_dir, id), *v = NULL;
    const char *got = meta != NULL && json_object_object_get_ex(meta, "network", &v)
                          ? json_object_get_string(v) : NULL;
    int same = want == NULL ? got == NULL : got != NULL && strcmp(got, want) == 0;
    if (!same)
        fprintf(stderr, "record of %s: network %s, not %s\n", id, got ? got : "(none)",
                want ? want : "(none)");
    json_object_put(meta);
    return same;
}

/* isolation=namespaces, network=forward (the default): none and the
 * default stay on their own loopback, egress reaches the host's. */
static void test_none_cannot_connect_out_egress_can(void)
{
    opened o = { 0 };
    const sbx_option ns[] = { { "isolation", "namespaces" } };
    open_backend(&o, "net ns", ns, 1);
    char url[PATH_MAX + 32];
    create_ok(&o, "net-none", SBX_NETWORK_NONE, url, sizeof url);
    create_ok(&o, "net-egress", SBX_NETWORK_EGRESS, url, sizeof url);
    create_ok(&o, "net-default", SBX_NETWORK_DEFAULT, url, sizeof url);
    CU_ASSERT(connect_exit(&o, "net-none", listener_port) == 1);
    CU_ASSERT(connect_exit(&o, "net-default", listener_port) == 1);
    CU_ASSERT(!listener_pending());
    CU_ASSERT(connect_exit(&o, "net-egress", listener_port) == 0);
    CU_ASSERT(listener_accepted());
    /* A live process gets the same network as an exec. */
    CU_ASSERT(process_connect_exit(&o, "net-none", listener_port) == 1);
    CU_ASSERT(!listener_pending());
    CU_ASSERT(process_connect_exit(&o, "net-egress", listener_port) == 0);
    CU_ASSERT(listener_accepted());
    CU_ASSERT(recorded_network(&o, "net-none", "forward"));
    CU_ASSERT(recorded_network(&o, "net-egress", "host"));
    CU_ASSERT(recorded_network(&o, "net-default", "forward"));
    /* Another network is another spec: the existing sandbox is not handed
     * out as one of it, and stays as it was. */
    sbx_error err;
    CU_ASSERT(create_with(&o, "net-none", SBX_NETWORK_EGRESS, url, sizeof url, &err) ==
              SBX_ERR_REFUSED);
    CU_ASSERT(create_with(&o, "net-none", SBX_NETWORK_NONE, url, sizeof url, &err) == SBX_OK);
    CU_ASSERT(connect_exit(&o, "net-none", listener_port) == 1);
    close_backend(&o);
}

/* isolation=none: the host's network is all there is.  Egress is what
 * every sandbox has; none is refused before anything is made. */
static void test_without_namespaces_none_is_unsupported(void)
{
    opened o = { 0 };
    const sbx_option plain[] = { { "isolation", "none" } };
    open_backend(&o, "net plain", plain, 1);
    char url[PATH_MAX + 32];
    sbx_error err;
    CU_ASSERT(create_with(&o, "net-plain-none", SBX_NETWORK_NONE, url, sizeof url, &err) ==
              SBX_ERR_UNSUPPORTED);
    CU_ASSERT(strstr(err.message, "network none") != NULL &&
              strstr(err.message, "isolation=namespaces") != NULL &&
              strstr(err.message, "net-plain-none") != NULL);
    CU_ASSERT_EQUAL(sbx_local_test_count_entries(o.state_dir), 0);
    create_ok(&o, "net-plain-egress", SBX_NETWORK_EGRESS, url, sizeof url);
    CU_ASSERT(connect_exit(&o, "net-plain-egress", listener_port) == 0);
    CU_ASSERT(listener_accepted());
    CU_ASSERT(recorded_network(&o, "net-plain-egress", NULL));
    close_backend(&o);
}

/* The sandbox's command follows its network too: with the option
 * network=none, an egress sandbox serves on the host's 127.0.0.1 (its URL
 * answers); with network=host, a sandbox created with none keeps its own
 * loopback and its port is forwarded (its URL answers, its execs reach
 * nothing of the host's). */
static void test_the_command_follows_the_sandbox_network(void)
{
    const char *server = sbx_local_test_server_command();
    if (server == NULL)
        return;
    const char *configured[] = { "none", "host" };
    const sbx_network asked[] = { SBX_NETWORK_EGRESS, SBX_NETWORK_NONE };
    const int reaches_host[] = { 0, 1 };
    for (size_t i = 0; i < 2; i++) {
        opened o = { 0 };
        const sbx_option opts[] = { { "isolation", "namespaces" }, { "network", configured[i] },
                                    { "command", server },
                                    { "ready_timeout_ms", SBX_TEST_READY_TIMEOUT_MS } };
        char tag[32], url[PATH_MAX + 32];
        snprintf(tag, sizeof tag, "net cmd %s", configured[i]);
        open_backend(&o, tag, opts, 4);
        create_ok(&o, "net-cmd", asked[i], url, sizeof url);
        CU_ASSERT(strncmp(url, "http://127.0.0.1:", 17) == 0);
        CU_ASSERT(sbx_test_http_get(url, 30000, NULL) == 200);
        CU_ASSERT(connect_exit(&o, "net-cmd", listener_port) == reaches_host[i]);
        if (reaches_host[i] == 0)
            CU_ASSERT(listener_accepted());
        CU_ASSERT(recorded_network(&o, "net-cmd", i == 0 ? "host" : "forward"));
        close_backend(&o);
    }
    CU_ASSERT(!listener_pending());
}

static int suite_init(void)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    listener_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener_fd < 0 || bind(listener_fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(listener_fd, 16) != 0 ||
        getsockname(listener_fd, (struct sockaddr *)&a, &len) != 0)
        return 1;
    listener_port = ntohs(a.sin_port);
    return 0;
}

static int suite_cleanup(void)
{
    if (listener_fd >= 0)
        close(listener_fd);
    return 0;
}

void sbx_test_register(void)
{
    /* A root host needs the sandbox_uid options of test_local_root_host. */
    sbx_local_test_drop_root("test_local_network");
    if (!sbx_local_test_namespaces_allowed()) {
        fprintf(stderr, "test_local_network: skipped: this kernel refuses user, mount, pid "
                        "and network namespaces to this user (docs/local.md, Isolation)\n");
        exit(77);
    }
    static const CU_TestInfo tests[] = {
        { "namespaces: network none cannot connect out, egress can",
          test_none_cannot_connect_out_egress_can },
        { "isolation=none: network none unsupported, egress works",
          test_without_namespaces_none_is_unsupported },
        { "command: served as the sandbox's network says",
          test_the_command_follows_the_sandbox_network },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("local backend network per sandbox", suite_init, suite_cleanup, tests);
}
