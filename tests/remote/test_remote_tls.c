/* The remote backend against an https provisioner emulator: TLS peers are
 * verified by default (system CAs), ca_file names the CA to trust instead,
 * and neither an unknown issuer nor a certificate for another host name is
 * ever accepted (docs/remote.md "Safety").  The certificates are made at
 * test time (tls_certs.h); without the openssl command the suite is
 * skipped (exit 77). */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/remote/remote_fixture.h"
#include "tests/remote/tls_certs.h"
#include "tests/support/cunit_main.h"

/* What libcurl says when a chain does not lead to a trusted CA ("...:
 * self-signed certificate", "...: unable to get local issuer certificate"). */
#define CHAIN_PROBLEM "SSL certificate problem"

/* ... when that chain is one certificate, its own issuer ("self-signed
 * certificate"; "self signed" before OpenSSL 3). */
#define SELF_SIGNED_PROBLEM "signed certificate"

/* What libcurl says when the certificate is for another host name. */
#define NAME_PROBLEM "certificate subject name"

static sbx_tls_certs certs;

static int make_certs(void)
{
    char why[1024];
    if (!sbx_tls_certs_make(&certs, why, sizeof why)) {
        fprintf(stderr, "cannot make the test certificates: %s\n", why);
        return 1;
    }
    return 0;
}

static int remove_certs(void)
{
    sbx_tls_certs_remove(&certs);
    return 0;
}

/* Start an https emulator presenting `cert`/`key`; its control calls trust
 * `control_ca`.  No backend is opened yet.  Returns 1, or 0 after a CUnit
 * failure (everything released). */
static int start_https_emulator(sbx_rt *rt, const char *cert, const char *key,
                                const char *control_ca)
{
    memset(rt, 0, sizeof *rt);
    const char *args[] = {"--contract", "2", "--tls-cert", cert, "--tls-key", key, NULL};
    rt->emu = sbx_test_emu_start_trusting(args, control_ca);
    rt->log = sbx_test_log_capture_new();
    CU_ASSERT_PTR_NOT_NULL(rt->emu);
    CU_ASSERT_PTR_NOT_NULL(rt->log);
    if (rt->emu == NULL || rt->log == NULL) {
        sbx_rt_stop(rt);
        return 0;
    }
    CU_ASSERT_NSTRING_EQUAL(sbx_test_emu_url(rt->emu), "https://127.0.0.1:", 18);
    return 1;
}

/* Open the backend with ca_file=`ca_file` (NULL: the option is not given,
 * so the system store is used).  Returns 1 when it opened. */
static int open_backend(sbx_rt *rt, const char *ca_file)
{
    sbx_option option = {"ca_file", ca_file};
    sbx_error err;
    sbx_status st = sbx_rt_open(rt, "tls-test-key", &option, ca_file != NULL ? 1 : 0, &err);
    CU_ASSERT_EQUAL(st, SBX_OK);
    if (st != SBX_OK)
        fprintf(stderr, "open remote: %s: %s\n", sbx_status_name(err.kind), err.message);
    return st == SBX_OK;
}

/* Every kind of call fails as a transport error whose message names
 * `problem`, and not one request reaches the emulator's routes: the
 * handshake failed before any HTTP was sent (the API key never left). */
static void expect_peer_refused(sbx_rt *rt, const char *problem)
{
    sbx_error err;
    int alive = -1;
    CU_ASSERT_EQUAL(sbx_backend_is_alive(rt->backend, "tls-1", &alive, &err),
                    SBX_ERR_TRANSPORT);
    CU_ASSERT(sbx_rt_contains(err.message, problem));
    if (!sbx_rt_contains(err.message, problem))
        fprintf(stderr, "is_alive error: %s\n", err.message);

    sbx_sandbox *sandboxes = NULL;
    size_t count = 0;
    CU_ASSERT_EQUAL(sbx_backend_list_running(rt->backend, &sandboxes, &count, &err),
                    SBX_ERR_TRANSPORT);
    CU_ASSERT(sbx_rt_contains(err.message, problem));
    CU_ASSERT_EQUAL(count, 0);
    sbx_backend_free_sandboxes(rt->backend, sandboxes, count);

    /* The default user: a create for another would be refused before any
     * request, because the failed probe left the contract unverified. */
    sbx_create_request request = sbx_rt_create_request("tls-1", "t1", NULL);
    sbx_status st = sbx_rt_create_discarding(rt, &request, &err);
    CU_ASSERT_EQUAL(st, SBX_ERR_TRANSPORT);
    CU_ASSERT(sbx_rt_contains(err.message, problem));
    if (st != SBX_ERR_TRANSPORT || !sbx_rt_contains(err.message, problem))
        fprintf(stderr, "create: %s: %s\n", sbx_status_name(st), err.message);

    CU_ASSERT_EQUAL(sbx_rt_total_requests(rt), 0);
}

/* Without ca_file a self-signed provisioner certificate is refused. */
static void test_self_signed_refused_without_ca_file(void)
{
    sbx_rt rt;
    if (!start_https_emulator(&rt, certs.self_signed_cert, certs.self_signed_key,
                              certs.self_signed_cert))
        return;
    if (open_backend(&rt, NULL))
        expect_peer_refused(&rt, SELF_SIGNED_PROBLEM);
    sbx_rt_stop(&rt);
}

/* Without ca_file a certificate from a CA outside the system store is
 * refused, although it is valid for 127.0.0.1. */
static void test_private_ca_refused_without_ca_file(void)
{
    sbx_rt rt;
    if (!start_https_emulator(&rt, certs.server_cert, certs.server_key, certs.ca_cert))
        return;
    if (open_backend(&rt, NULL))
        expect_peer_refused(&rt, CHAIN_PROBLEM);
    sbx_rt_stop(&rt);
}

/* With ca_file naming the CA that signed it, everything works over https
 * and the key arrives. */
static void test_ca_file_trusts_the_provisioner(void)
{
    sbx_rt rt;
    if (!start_https_emulator(&rt, certs.server_cert, certs.server_key, certs.ca_cert))
        return;
    if (!open_backend(&rt, certs.ca_cert)) {
        sbx_rt_stop(&rt);
        return;
    }
    sbx_error err;
    sbx_create_request request = sbx_rt_create_request("tls-1", "t1", "alice");
    sbx_sandbox *sandbox = sbx_rt_create_ok(&rt, &request, &err);
    if (sandbox != NULL)
        SBX_RT_ASSERT_STR(sandbox->sandbox_id, "tls-1");
    sbx_backend_free_sandboxes(rt.backend, sandbox, sandbox != NULL ? 1 : 0);

    int alive = -1;
    CU_ASSERT_EQUAL(sbx_backend_is_alive(rt.backend, "tls-1", &alive, &err), SBX_OK);
    CU_ASSERT_EQUAL(alive, 1);

    sbx_sandbox *sandboxes = NULL;
    size_t count = 0;
    CU_ASSERT_EQUAL(sbx_backend_list_running(rt.backend, &sandboxes, &count, &err), SBX_OK);
    CU_ASSERT_EQUAL(count, 1);
    if (count == 1)
        SBX_RT_ASSERT_STR(sandboxes[0].sandbox_id, "tls-1");
    sbx_backend_free_sandboxes(rt.backend, sandboxes, count);

    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "POST", "/api/sandboxes"), 1);
    json_object *create = sbx_rt_last_request(&rt, "POST", "/api/sandboxes");
    CU_ASSERT(sbx_rt_json_string_is(create, "api_key", "tls-test-key"));
    json_object_put(create);
    sbx_rt_stop(&rt);
}

/* A CA that did not sign the provisioner's certificate does not vouch for it. */
static void test_unrelated_ca_file_refused(void)
{
    sbx_rt rt;
    if (!start_https_emulator(&rt, certs.server_cert, certs.server_key, certs.ca_cert))
        return;
    if (open_backend(&rt, certs.other_ca_cert))
        expect_peer_refused(&rt, CHAIN_PROBLEM);
    sbx_rt_stop(&rt);
}

/* A certificate from the trusted CA but for another host name
 * (example.invalid) fails host name verification for 127.0.0.1. */
static void test_certificate_for_another_name_refused(void)
{
    sbx_rt rt;
    if (!start_https_emulator(&rt, certs.wrong_name_cert, certs.wrong_name_key,
                              certs.ca_cert))
        return;
    if (open_backend(&rt, certs.ca_cert))
        expect_peer_refused(&rt, NAME_PROBLEM);
    sbx_rt_stop(&rt);
}

/* A ca_file that does not exist is refused when the backend opens (not at
 * the first call): a config error naming the file; nothing is sent. */
static void test_missing_ca_file_refused_at_open(void)
{
    sbx_rt rt;
    if (!start_https_emulator(&rt, certs.server_cert, certs.server_key, certs.ca_cert))
        return;
    char missing[SBX_TLS_PATH_MAX + 32];
    snprintf(missing, sizeof missing, "%s/no-such-ca.pem", certs.dir);
    sbx_option option = {"ca_file", missing};
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_open(&rt, NULL, &option, 1, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NULL(rt.backend);
    CU_ASSERT(sbx_rt_contains(err.message, "ca_file"));
    CU_ASSERT(sbx_rt_contains(err.message, missing));
    CU_ASSERT_EQUAL(sbx_rt_total_requests(&rt), 0);
    sbx_rt_stop(&rt);
}

/* A ca_file that exists but holds no certificate passes the open (it is
 * readable) and fails the first call: a transport error naming the file. */
static void test_unusable_ca_file_fails_first_call(void)
{
    sbx_rt rt;
    if (!start_https_emulator(&rt, certs.server_cert, certs.server_key, certs.ca_cert))
        return;
    char bogus[SBX_TLS_PATH_MAX + 32];
    snprintf(bogus, sizeof bogus, "%s/not-a-certificate.pem", certs.dir);
    FILE *f = fopen(bogus, "w");
    CU_ASSERT_PTR_NOT_NULL(f);
    if (f != NULL) {
        fputs("this is not PEM\n", f);
        fclose(f);
    }
    if (f != NULL && open_backend(&rt, bogus))
        expect_peer_refused(&rt, bogus);
    sbx_rt_stop(&rt);
}

void sbx_test_register(void)
{
    if (!sbx_tls_openssl_available()) {
        printf("SKIP test_remote_tls: the openssl command is not installed "
               "(Debian package openssl); it makes the test certificates\n");
        exit(77);
    }
    static const CU_TestInfo tests[] = {
        {"self-signed certificate refused without ca_file",
         test_self_signed_refused_without_ca_file},
        {"private CA refused without ca_file", test_private_ca_refused_without_ca_file},
        {"ca_file trusts the provisioner's CA", test_ca_file_trusts_the_provisioner},
        {"unrelated ca_file refused", test_unrelated_ca_file_refused},
        {"certificate for another host name refused",
         test_certificate_for_another_name_refused},
        {"missing ca_file refused at open", test_missing_ca_file_refused_at_open},
        {"unusable ca_file fails the first call", test_unusable_ca_file_fails_first_call},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote backend over TLS", make_certs, remove_certs, tests);
}
