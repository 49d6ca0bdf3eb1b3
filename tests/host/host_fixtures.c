/* What the suites of the host's module checks share (host_fixtures.h). */
#include <config.h>

#include "tests/host/host_fixtures.h"

#include <CUnit/CUnit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char fixtures_dir[4096];

void host_fixtures_locate(void)
{
    const char *build = getenv("SBX_TEST_BUILDDIR");
    snprintf(fixtures_dir, sizeof fixtures_dir, "%s/tests/host/fixtures/.libs",
             build != NULL ? build : ".");
    unsetenv("SBX_MODULE_PATH");
}

const char *host_fixtures_dir(void)
{
    return fixtures_dir;
}

sbx_host *host_fixtures_new_host(void)
{
    sbx_host *host = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_host_new(NULL, &host, &err), SBX_OK);
    const char *dirs[] = {fixtures_dir};
    CU_ASSERT_EQUAL_FATAL(sbx_host_set_module_path(host, dirs, 1, &err), SBX_OK);
    return host;
}

void host_fixture_open(host_fixture *f, const char *name)
{
    sbx_error err;
    f->host = host_fixtures_new_host();
    CU_ASSERT_EQUAL_FATAL(sbx_backend_open(f->host, name, NULL, 0, &f->backend, &err), SBX_OK);
}

void host_fixture_close(host_fixture *f)
{
    sbx_backend_close(f->backend);
    sbx_host_free(f->host);
}

void expect_error(sbx_status st, const sbx_error *err, sbx_status kind,
                                const char *text)
{
    CU_ASSERT_EQUAL(st, kind);
    CU_ASSERT_EQUAL(err->kind, kind);
    if (strstr(err->message, text) == NULL)
        fprintf(stderr, "\nexpected '%s' in: %s\n", text, err->message);
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, text));
}

void expect_unsupported(sbx_status st, const sbx_error *err, const char *name,
                                      const char *op)
{
    expect_error(st, err, SBX_ERR_UNSUPPORTED, name);
    CU_ASSERT_PTR_NOT_NULL(strstr(err->message, op));
}
