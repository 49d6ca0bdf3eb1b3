/* sbx-provisiond over HTTPS (--tls-cert/--tls-key, libmicrohttpd's TLS)
 * against the remote backend with ca_file: the CA that signed the
 * daemon's certificate makes everything work (a file's download sent
 * from the file included), with the API key; another CA
 * fails as transport, before any request reaches the daemon's backend.
 * Certificates are made at test time by the openssl CLI (tests/remote/
 * tls_certs.*); without it the suite is skipped (exit 77). */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/provisiond/provd_process.h"
#include "tests/remote/tls_certs.h"
#include "tests/support/cunit_main.h"
#include "tests/support/remote_helpers.h"

#define KEY "tls-test-key"

static sbx_tls_certs certs;

static int make_certs(void)
{
    char why[1024];
    if (!sbx_tls_certs_make(&certs, why, sizeof why)) {
        fprintf(stderr, "cannot make test certificates: %s\n", why);
        return 1;
    }
    return 0;
}

static int remove_certs(void)
{
    sbx_tls_certs_remove(&certs);
    return 0;
}

/* A daemon over the local backend serving HTTPS with `cert` and `key`. */
static int start_https(provd_local *d, const char *cert, const char *key)
{
    const char *args[] = {"--tls-cert", cert, "--tls-key", key, "--api-key", KEY, NULL};
    if (!provd_local_start(d, 0, args))
        return 0;
    CU_ASSERT(strncmp(provd_url(d->proc), "https://127.0.0.1:", 18) == 0);
    return 1;
}

/* Write 300 000 bytes to sandbox tls1 and read them back: the read is a
 * download, sent from the file over TLS (libmicrohttpd reads it in its
 * poll loop; no sendfile under TLS).  The status of the first call that
 * fails. */
static sbx_status file_round_trip(sbx_backend *backend, sbx_error *err)
{
    enum { SIZE = 300000 };
    char *bytes = malloc(SIZE);
    if (bytes == NULL)
        return SBX_ERR_INTERNAL;
    for (size_t i = 0; i < SIZE; i++)
        bytes[i] = (char)(i * 7 % 251);
    sbx_status st = sbx_backend_write_file(backend, "tls1", "f.bin", bytes, SIZE, 0, 0, err);
    sbx_file_content *c = NULL;
    if (st == SBX_OK)
        st = sbx_backend_read_file(backend, "tls1", "f.bin", 0, SIZE + 1, &c, err);
    if (st == SBX_OK) {
        CU_ASSERT_EQUAL(c->length, SIZE);
        CU_ASSERT(c->length == SIZE && memcmp(c->data, bytes, SIZE) == 0);
        sbx_backend_free_file_content(backend, c);
    }
    free(bytes);
    return st;
}

/* List, create, a file written and read, list and destroy through the
 * remote backend trusting `ca_file`; returns the status of the first call that fails (SBX_OK:
 * none).  The list comes first: a create whose capability probe fails
 * is refused for the isolation rule before it could report the cause. */
static sbx_status lifecycle(const provd_local *d, const char *ca_file, sbx_error *err)
{
    sbx_host *host = NULL;
    sbx_option option = {"ca_file", ca_file};
    sbx_backend *backend = sbx_test_open_remote(&host, provd_url(d->proc), KEY, &option, 1, err);
    sbx_status st = backend != NULL ? SBX_OK : err->kind;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "tls1";
    req.user_id = "alice";
    req.thread_id = "t1";
    sbx_sandbox *s = NULL, *list = NULL;
    size_t count = 0;
    if (st == SBX_OK)
        st = sbx_backend_list_running(backend, &list, &count, err);
    if (st == SBX_OK) {
        CU_ASSERT_EQUAL(count, 0);
        sbx_backend_free_sandboxes(backend, list, count);
        st = sbx_backend_create(backend, &req, &s, err);
    }
    if (st == SBX_OK) {
        CU_ASSERT_STRING_EQUAL(s->user_id, "alice");
        sbx_backend_free_sandboxes(backend, s, 1);
        st = file_round_trip(backend, err);
    }
    if (st == SBX_OK) {
        st = sbx_backend_list_running(backend, &list, &count, err);
    }
    if (st == SBX_OK) {
        CU_ASSERT_EQUAL(count, 1);
        sbx_backend_free_sandboxes(backend, list, count);
        st = sbx_backend_destroy(backend, "tls1", err);
    }
    if (st != SBX_OK)
        fprintf(stderr, "over https: %s: %s\n", sbx_status_name(st), err->message);
    sbx_backend_close(backend);
    sbx_host_free(host);
    return st;
}

static void test_ca_file_trusts_the_daemon(void)
{
    provd_local d;
    if (!start_https(&d, certs.server_cert, certs.server_key))
        return;
    sbx_error err;
    CU_ASSERT_EQUAL(lifecycle(&d, certs.ca_cert, &err), SBX_OK);
    char *ids = provd_local_ids(&d);
    CU_ASSERT_STRING_EQUAL(ids != NULL ? ids : "(error)", "");
    free(ids);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

static void test_another_ca_fails_as_transport(void)
{
    provd_local d;
    if (!start_https(&d, certs.server_cert, certs.server_key))
        return;
    sbx_error err;
    CU_ASSERT_EQUAL(lifecycle(&d, certs.other_ca_cert, &err), SBX_ERR_TRANSPORT);
    char *ids = provd_local_ids(&d);
    CU_ASSERT_STRING_EQUAL(ids != NULL ? ids : "(error)", "");
    free(ids);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* A certificate and a key that are not a pair: it refuses to start. */
static void test_mismatched_pair_refused(void)
{
    const char *args[] = {"--tls-cert", certs.server_cert, "--tls-key", certs.self_signed_key,
                          "--listen", "127.0.0.1:0", NULL};
    char output[2048];
    CU_ASSERT_EQUAL(provd_run_refused(args, output, sizeof output), 1);
    CU_ASSERT(strstr(output, "HTTPS") != NULL);
}

void sbx_test_register(void)
{
    if (!sbx_tls_openssl_available()) {
        printf("SKIP test_provisiond_tls: the openssl command is not installed "
               "(Debian package openssl); it makes the test certificates\n");
        exit(77);
    }
    static const CU_TestInfo tests[] = {
        {"ca_file_trusts_the_daemon", test_ca_file_trusts_the_daemon},
        {"another_ca_fails_as_transport", test_another_ca_fails_as_transport},
        {"mismatched_pair_refused", test_mismatched_pair_refused},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("provisiond_tls", make_certs, remove_certs, tests);
}
