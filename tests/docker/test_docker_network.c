/*
 * The create request's network and the OOM report on the docker backend,
 * against the engine docker-suite.sh starts (dockerd): a sandbox created
 * with network none has only its loopback and no route (a connection to
 * any address fails at once, no packet leaves) and no address, while an
 * egress one (and the default) has the engine's network, its URL
 * answering on 127.0.0.1; another network is another spec; an exec killed
 * by the memory limit says oom_killed, one killed otherwise does not.
 */
#include <config.h>

#include "tests/support/backend_calls.h"
#include "tests/support/cunit_main.h"
#include "tests/support/docker_engine.h"
#include "tests/support/http_probe.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Create `id` with `network` and `memory_bytes` (SBX_LIMIT_NONE: none):
 * the status, its URL into `url` when SBX_OK. */
static sbx_status create_with(const char *id, sbx_network network, int64_t memory_bytes,
                              char *url, size_t size)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.network = network;
    req.memory_bytes = memory_bytes;
    sbx_sandbox *sb = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_create(sbx_test_docker.backend, &req, &sb, &err);
    if (st == SBX_OK) {
        snprintf(url, size, "%s", sb->sandbox_url);
        sbx_backend_free_sandboxes(sbx_test_docker.backend, sb, 1);
    } else {
        fprintf(stderr, "create %s: %s\n", id, err.message);
    }
    return st;
}

/* Run shell text in sandbox `id` (timeout 30 s); the result (fatal when
 * the exec could not run). */
static sbx_exec_result *sh(const char *id, const char *text)
{
    return sbx_test_shell_ok(sbx_test_docker.backend, id, text, 30000);
}

/* 1 when shell text in `id` exits 0 with stdout `want` (reporting it). */
static int says(const char *id, const char *text, const char *want)
{
    sbx_exec_result *r = sh(id, text);
    int same = r->outcome == SBX_EXEC_EXITED && r->exit_code == 0 &&
               strcmp(r->stdout_data, want) == 0;
    if (!same)
        fprintf(stderr, "%s in %s: exit %d, out '%s', err '%s'\n", text, id, r->exit_code,
                r->stdout_data, r->stderr_data);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    return same;
}

/* The interfaces, and the routes other than the loopback's: "lo" and
 * none without a network. */
#define INTERFACES "ls /sys/class/net | tr '\\n' ' '; echo; tail -n +2 /proc/net/route | wc -l"
/* A connection to a documentation address (TEST-NET-1), which no network
 * routes anywhere: tried only where there is no route, so nothing leaves. */
#define CONNECT_OUT "nc -w 2 192.0.2.1 9 </dev/null 2>&1; echo \"exit $?\""

static void test_none_has_only_its_loopback_egress_the_engine_network(void)
{
    char none_url[256], egress_url[256], default_url[256];
    CU_ASSERT_FATAL(create_with("net-none", SBX_NETWORK_NONE, SBX_LIMIT_NONE, none_url,
                                sizeof none_url) == SBX_OK);
    CU_ASSERT_FATAL(create_with("net-egress", SBX_NETWORK_EGRESS, SBX_LIMIT_NONE, egress_url,
                                sizeof egress_url) == SBX_OK);
    CU_ASSERT_FATAL(create_with("net-default", SBX_NETWORK_DEFAULT, SBX_LIMIT_NONE, default_url,
                                sizeof default_url) == SBX_OK);
    /* No network, so no published port: no address. */
    CU_ASSERT_STRING_EQUAL(none_url, "");
    CU_ASSERT(says("net-none", INTERFACES, "lo \n0\n"));
    sbx_exec_result *r = sh("net-none", CONNECT_OUT);
    CU_ASSERT(strstr(r->stdout_data, "unreachable") != NULL &&
              strstr(r->stdout_data, "exit 0") == NULL);
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    /* Its own server still serves its own loopback. */
    CU_ASSERT(says("net-none", "wget -q -O - http://127.0.0.1:8080/", "hi\n"));
    const char *reachable[] = { egress_url, default_url };
    const char *ids[] = { "net-egress", "net-default" };
    for (int i = 0; i < 2; i++) {
        CU_ASSERT(strncmp(reachable[i], "http://127.0.0.1:", 17) == 0);
        CU_ASSERT(sbx_test_http_get(reachable[i], 30000, NULL) == 200);
        r = sh(ids[i], INTERFACES);
        CU_ASSERT(strstr(r->stdout_data, "eth0") != NULL);
        CU_ASSERT(strcmp(strchr(r->stdout_data, '\n'), "\n0\n") != 0);
        sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    }
    /* Listed with its records, without an address. */
    sbx_sandbox_record *records = NULL;
    size_t n = 0;
    sbx_error err;
    CU_ASSERT_FATAL(sbx_backend_list_records(sbx_test_docker.backend, &records, &n, &err) ==
                    SBX_OK);
    int listed = 0;
    for (const sbx_sandbox_record *rec = records; rec != NULL; rec = rec->next)
        listed |= strcmp(rec->sandbox.sandbox_id, "net-none") == 0 &&
                  rec->sandbox.sandbox_url[0] == '\0';
    CU_ASSERT(listed);
    sbx_backend_free_records(sbx_test_docker.backend, records);
    /* Another network is another spec: refused, left as it is. */
    char url[256];
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "net-none";
    req.network = SBX_NETWORK_EGRESS;
    sbx_sandbox *sb = NULL;
    CU_ASSERT_EQUAL(sbx_backend_create(sbx_test_docker.backend, &req, &sb, &err), SBX_ERR_REFUSED);
    CU_ASSERT(create_with("net-none", SBX_NETWORK_NONE, SBX_LIMIT_NONE, url, sizeof url) ==
              SBX_OK);
    sbx_test_destroy_all(sbx_test_docker.backend);
}

/* The exec's oom_killed, asserting the result holds it. */
static int oom_of(const sbx_exec_result *r)
{
    CU_ASSERT_FATAL(SBX_EXEC_RESULT_HAS(r, oom_killed));
    return r->oom_killed;
}

static void test_an_exec_killed_for_memory_says_so(void)
{
    char url[256];
    CU_ASSERT_FATAL(create_with("net-oom", SBX_NETWORK_DEFAULT, INT64_C(32) * 1024 * 1024, url,
                                sizeof url) == SBX_OK);
    /* A command that fits, and a kill that is not the memory limit's:
     * first, so that no OOM of the container precedes them. */
    sbx_exec_result *r =
        sh("net-oom", "dd if=/dev/zero of=/dev/null bs=1M count=1 2>/dev/null; echo fits");
    CU_ASSERT(r->outcome == SBX_EXEC_EXITED && r->exit_code == 0 && !oom_of(r));
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    r = sh("net-oom", "kill -KILL $$");
    CU_ASSERT(r->outcome == SBX_EXEC_SIGNALED && r->term_signal == 9);
    CU_ASSERT(!oom_of(r));
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    r = sh("net-oom", "dd if=/dev/zero of=/dev/null bs=96M count=1");
    CU_ASSERT(r->outcome == SBX_EXEC_SIGNALED && r->term_signal == 9);
    CU_ASSERT(oom_of(r));
    sbx_backend_free_exec_result(sbx_test_docker.backend, r);
    sbx_test_destroy_all(sbx_test_docker.backend);
}

void sbx_test_register(void)
{
    sbx_test_docker_engine(&sbx_test_docker.socket, &sbx_test_docker.image);
    static const CU_TestInfo tests[] = {
        {"network none: only the loopback, no address; egress: the engine's network",
         test_none_has_only_its_loopback_egress_the_engine_network},
        {"an exec killed by the memory limit says oom_killed, another kill does not",
         test_an_exec_killed_for_memory_says_so},
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("docker network and oom", sbx_test_docker_suite_init,
                       sbx_test_docker_suite_clean, tests);
}
