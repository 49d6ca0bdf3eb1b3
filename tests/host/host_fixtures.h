/* What the suites of the host's module checks share: where the fixture
 * modules of tests/host/fixtures are built, a host that finds them, a
 * fixture opened on it, and the expectations on the errors they answer. */
#ifndef SBX_TESTS_HOST_FIXTURES_H
#define SBX_TESTS_HOST_FIXTURES_H

#include <sbx/host.h>

/* A host that finds the fixture modules, and one fixture opened on it. */
typedef struct host_fixture {
    sbx_host *host;
    sbx_backend *backend;
} host_fixture;

/* Find the fixtures under $SBX_TEST_BUILDDIR (else "."), and ignore
 * $SBX_MODULE_PATH.  Call once, from sbx_test_register. */
void host_fixtures_locate(void);

/* The directory of the built fixture modules (static storage). */
const char *host_fixtures_dir(void);

/* A new host whose module path is the fixtures' directory (fatal assert on
 * failure); free with sbx_host_free. */
sbx_host *host_fixtures_new_host(void);

/* Open fixture module `name` on a new host (fatal assert on failure). */
void host_fixture_open(host_fixture *f, const char *name);

/* Close the fixture and free its host. */
void host_fixture_close(host_fixture *f);

/* Assert that `st` and err->kind are `kind` and the message holds `text`
 * (printed when it does not). */
void expect_error(sbx_status st, const sbx_error *err, sbx_status kind,
                                const char *text);

/* Assert that `st` is SBX_ERR_UNSUPPORTED naming backend `name` and `op`. */
void expect_unsupported(sbx_status st, const sbx_error *err, const char *name,
                                      const char *op);

#endif
