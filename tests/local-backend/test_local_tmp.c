/*
 * The file operations see the sandbox's /tmp as its commands do: with
 * isolation=namespaces a file a command wrote to /tmp (the holder's
 * private tmpfs) is read, listed, written and removed at /tmp/..., with
 * the confinement of the sandbox directory (links leading out refused);
 * by a root host and by an unprivileged one.  With isolation=none the
 * commands use the host's /tmp, which stays out of reach.
 */
#include <config.h>

#include "tests/local-backend/local_fixture.h"
#include "tests/local-backend/local_unprivileged.h"
#include "tests/support/backend_calls.h"
#include "tests/support/cunit_main.h"
#include "tests/support/scratch_dir.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shell text in sandbox "tmp": 1 when it exits 0 (a failure recorded). */
static int shell_ok(sbx_backend *b, const char *text, sbx_local_test_verdict *v)
{
    sbx_exec_result *r = NULL;
    sbx_error err;
    sbx_status st = sbx_test_shell(b, "tmp", &(sbx_test_command){ .text = text }, &r, &err);
    int ok = sbx_local_test_check(v, st == SBX_OK, "exec of %s: %s", text, err.message) &&
             sbx_local_test_check(v, r->outcome == SBX_EXEC_EXITED && r->exit_code == 0,
                                  "%s failed: %.300s", text,
                                  r->stderr_data != NULL ? r->stderr_data : "");
    if (r != NULL)
        sbx_backend_free_exec_result(b, r);
    return ok;
}

/* read_file of `path` is `want` (NULL: fails with `kind`). */
static void expect_read(sbx_backend *b, const char *path, const char *want, sbx_status kind,
                        sbx_local_test_verdict *v)
{
    sbx_file_content *c = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_read_file(b, "tmp", path, 0, 100, &c, &err);
    if (want != NULL)
        sbx_local_test_check(v, st == SBX_OK && c->length == strlen(want) &&
                                    memcmp(c->data, want, c->length) == 0,
                             "read_file of %s: %d (%s)", path, (int)st,
                             st == SBX_OK ? "other bytes" : err.message);
    else
        sbx_local_test_check(v, st == kind, "read_file of %s: %d, not %d (%s)", path, (int)st,
                             (int)kind, st == SBX_OK ? "read" : err.message);
    if (st == SBX_OK)
        sbx_backend_free_file_content(b, c);
}

/* list_dir of /tmp lists what the command made there, in order (TMPDIR
 * is /tmp for the unprivileged part, and may be for this one). */
static void expect_listed(sbx_backend *b, sbx_local_test_verdict *v)
{
    static const char *const want[] = { "d", "d/y", "link", "out.txt", "up" };
    sbx_dir_listing *l = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_list_dir(b, "tmp", "/tmp", 2, 100, &l, &err);
    if (!sbx_local_test_check(v, st == SBX_OK, "list_dir of /tmp: %s", err.message))
        return;
    size_t i = 0;
    for (const sbx_dir_entry *e = l->entries; e != NULL; e = e->next) {
        /* The way to a state directory under /tmp is made again there. */
        if (strncmp(e->path, "sbx-", 4) == 0)
            continue;
        sbx_local_test_check(v, i < 5 && strcmp(e->path, want[i]) == 0,
                             "list_dir of /tmp: entry %zu is %s", i, e->path);
        i++;
    }
    sbx_local_test_check(v, i == 5, "list_dir of /tmp: %zu entries", i);
    sbx_backend_free_listing(b, l);
}

/* The file operations on the /tmp of an isolated sandbox. */
static void isolated_tmp_part(sbx_local_test_verdict *v, void *ctx)
{
    (void)ctx;
    char state_dir[PATH_MAX];
    if (!sbx_local_test_check(v, sbx_test_scratch_dir(state_dir, sizeof state_dir,
                                                      "sandbox tmp") == 0,
                              "no scratch directory"))
        return;
    sbx_host_services services = { sizeof services, NULL, NULL };
    sbx_host *host = NULL;
    sbx_backend *b = NULL;
    sbx_error err;
    sbx_option opts[2] = { { "state_dir", state_dir }, { "isolation", "namespaces" } };
    sbx_sandbox *sb = NULL;
    if (sbx_local_test_check(v, sbx_host_new(&services, &host, &err) == SBX_OK &&
                                    sbx_backend_open(host, "local", opts, 2, &b, &err) == SBX_OK,
                             "open: %s", err.message))
        sb = sbx_test_create(b, "tmp", NULL, NULL, &err);
    if (b != NULL && sb == NULL)
        sbx_local_test_check(v, 0, "create: %s", err.message);
    if (sb != NULL) {
        sbx_backend_free_sandboxes(b, sb, 1);
        if (shell_ok(b, "echo hi > /tmp/out.txt && mkdir /tmp/d && echo x > /tmp/d/y && "
                        "ln -s /etc/passwd /tmp/link && ln -s ../../../etc /tmp/up", v)) {
            expect_read(b, "/tmp/out.txt", "hi\n", SBX_OK, v);
            expect_read(b, "/tmp/d/y", "x\n", SBX_OK, v);
            expect_listed(b, v);
            expect_read(b, "/tmp/link", NULL, SBX_ERR_REFUSED, v);
            expect_read(b, "/tmp/up/passwd", NULL, SBX_ERR_REFUSED, v);
            expect_read(b, "/tmp/../etc/passwd", NULL, SBX_ERR_REFUSED, v);
            expect_read(b, "/tmpx", NULL, SBX_ERR_REFUSED, v);
            sbx_local_test_check(v, sbx_backend_write_file(b, "tmp", "/tmp/in.txt", "host\n", 5,
                                                           0, 0, &err) == SBX_OK,
                                 "write_file of /tmp/in.txt: %s", err.message);
            shell_ok(b, "test \"$(cat /tmp/in.txt)\" = host", v);
            sbx_local_test_check(v, sbx_backend_write_file(b, "tmp", "/tmp/link", "x", 1, 0, 0,
                                                           &err) == SBX_ERR_REFUSED,
                                 "write_file through /tmp/link was not refused");
            sbx_local_test_check(v, sbx_backend_remove_path(b, "tmp", "/tmp/d",
                                                            SBX_REMOVE_RECURSIVE, &err) == SBX_OK,
                                 "remove_path of /tmp/d: %s", err.message);
            shell_ok(b, "test ! -e /tmp/d && test -e /tmp/out.txt", v);
            sbx_local_test_check(v, sbx_backend_remove_path(b, "tmp", "/tmp",
                                                            SBX_REMOVE_RECURSIVE, &err) ==
                                        SBX_ERR_REFUSED, "remove_path of /tmp was not refused");
        }
        sbx_local_test_check(v, sbx_backend_destroy(b, "tmp", &err) == SBX_OK, "destroy: %s",
                             err.message);
    }
    if (b != NULL)
        sbx_backend_close(b);
    sbx_host_free(host);
    sbx_test_remove_tree(state_dir);
}

static void expect_passed(const char *who, const sbx_local_test_verdict *v)
{
    if (v->why[0] != '\0')
        fprintf(stderr, "sandbox /tmp (%s): %s\n", who, v->why);
    CU_ASSERT_STRING_EQUAL(v->why, "");
}

static void test_file_ops_see_the_sandbox_tmp(void)
{
    sbx_local_test_verdict v;
    memset(&v, 0, sizeof v);
    isolated_tmp_part(&v, NULL);
    expect_passed("this user", &v);
}

static void test_file_ops_see_the_sandbox_tmp_unprivileged(void)
{
    sbx_local_test_verdict v;
    sbx_local_test_run_unprivileged(isolated_tmp_part, NULL, &v);
    expect_passed("unprivileged", &v);
}

static void test_without_isolation_tmp_stays_out_of_reach(void)
{
    char state_dir[PATH_MAX];
    sbx_local_test_make_dir(state_dir, sizeof state_dir, "none tmp");
    sbx_host *host = NULL;
    sbx_backend *b = sbx_local_test_open_with_sandbox(state_dir, "tmp", &host);
    sbx_error err;
    sbx_file_content *c = NULL;
    CU_ASSERT(sbx_backend_read_file(b, "tmp", "/tmp", 0, 10, &c, &err) == SBX_ERR_REFUSED);
    CU_ASSERT(strstr(err.message, "outside the sandbox directory") != NULL);
    CU_ASSERT(sbx_backend_write_file(b, "tmp", "/tmp/sbx-none-x", "x", 1, 0, 0, &err) ==
              SBX_ERR_REFUSED);
    CU_ASSERT(sbx_backend_destroy(b, "tmp", &err) == SBX_OK);
    sbx_backend_close(b);
    sbx_host_free(host);
    sbx_test_remove_tree(state_dir);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "namespaces: file ops reach the sandbox's /tmp, confined",
          test_file_ops_see_the_sandbox_tmp },
        { "namespaces: the same for an unprivileged host",
          test_file_ops_see_the_sandbox_tmp_unprivileged },
        { "none: the host's /tmp stays out of reach", test_without_isolation_tmp_stays_out_of_reach },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("local backend sandbox /tmp", NULL, NULL, tests);
}
