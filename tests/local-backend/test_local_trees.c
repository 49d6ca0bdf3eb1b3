/*
 * Trees a sandbox makes that a host must still list and remove: a chain
 * of thousands of nested directories (listed with a large depth, removed
 * with remove_path and by destroy, without the walk's recursion
 * overflowing the host's stack), and a tree without write or search
 * permission (chmod -R a-w, directories of mode 0500 and 0000, as a Go
 * module cache has), which an unprivileged host must remove at destroy
 * and through remove_path, leaving nothing of the sandbox and touching
 * nothing outside it.
 */
#include <config.h>

#include "tests/local-backend/local_fixture.h"
#include "tests/local-backend/local_unprivileged.h"
#include "tests/support/backend_calls.h"
#include "tests/support/cunit_main.h"
#include "tests/support/scratch_dir.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Deeper than a listing recursing on an 8 MiB stack survives. */
#define DEEP_LEVELS 3000

/* The deepest of the chain's directories listed: each level adds "/d",
 * and a listed path is shorter than PATH_MAX. */
#define LISTED_LEVELS (PATH_MAX / 2)

/* A chain of `levels` directories named "d" in `dir`, made through open
 * directories (the whole path is longer than PATH_MAX).  0 on success. */
static int make_chain(const char *dir, int levels)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (int i = 0; fd >= 0 && i < levels; i++) {
        int next = mkdirat(fd, "d", 0755) == 0
                       ? openat(fd, "d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
        close(fd);
        fd = next;
    }
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* The listing of `path` down to any depth is the chain's first
 * LISTED_LEVELS directories, in order, and says it is incomplete. */
static void expect_chain_listed(sbx_backend *b, const char *id, const char *path)
{
    sbx_dir_listing *l = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_list_dir(b, id, path, 100000, 100000, &l, &err);
    if (st != SBX_OK)
        fprintf(stderr, "list_dir of a deep tree: %s\n", err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
    CU_ASSERT(l->count == LISTED_LEVELS);
    CU_ASSERT(l->truncated);
    size_t level = 0, wrong = 0;
    for (const sbx_dir_entry *e = l->entries; e != NULL; e = e->next) {
        level++;
        size_t len = strlen(e->path);
        wrong += e->type != SBX_FILE_DIRECTORY || len != 2 * level - 1 ||
                 strspn(e->path, "d/") != len || e->path[len - 1] != 'd';
    }
    CU_ASSERT(wrong == 0);
    sbx_backend_free_listing(b, l);
    /* A bounded depth stops there, complete. */
    CU_ASSERT_FATAL(sbx_backend_list_dir(b, id, path, 100, 100000, &l, &err) == SBX_OK);
    CU_ASSERT(l->count == 100 && !l->truncated);
    sbx_backend_free_listing(b, l);
}

static void test_deep_tree_is_listed_removed_and_destroyed(void)
{
    char state_dir[PATH_MAX], dir[PATH_MAX + 16], chain[PATH_MAX + 32];
    sbx_local_test_make_dir(state_dir, sizeof state_dir, "deep tree");
    sbx_host *host = NULL;
    sbx_backend *b = sbx_local_test_open_with_sandbox(state_dir, "deep", &host);
    sbx_error err;
    snprintf(dir, sizeof dir, "%s/deep", state_dir);
    snprintf(chain, sizeof chain, "%s/d", dir);
    CU_ASSERT_FATAL(make_chain(dir, DEEP_LEVELS) == 0);
    expect_chain_listed(b, "deep", ".");
    CU_ASSERT(sbx_backend_remove_path(b, "deep", "d", SBX_REMOVE_RECURSIVE, &err) == SBX_OK);
    CU_ASSERT(!sbx_local_test_path_exists(chain));
    /* Made again, and left to destroy. */
    CU_ASSERT_FATAL(make_chain(dir, DEEP_LEVELS) == 0);
    CU_ASSERT(sbx_backend_destroy(b, "deep", &err) == SBX_OK);
    CU_ASSERT(sbx_local_test_count_entries(state_dir) == 0);
    sbx_backend_close(b);
    sbx_host_free(host);
    sbx_test_remove_tree(state_dir);
}

/* What the unprivileged part works on. */
typedef struct read_only_case {
    char state_dir[PATH_MAX];
    char outside[PATH_MAX];
} read_only_case;

/* A read-only tree, as a command would leave it, in sandbox "ro":
 * directories of mode 0500 with files of mode 0400, a directory of mode
 * 0000, everything made read-only with chmod -R a-w (the sandbox
 * directory too), and a link to a read-only directory outside. */
static int make_read_only_tree(sbx_backend *b, const read_only_case *c,
                               sbx_local_test_verdict *v)
{
    char text[2 * PATH_MAX];
    snprintf(text, sizeof text,
             "mkdir -p go/mod/a/b keep/sub closed/in && echo x > go/mod/a/b/f && "
             "echo y > keep/sub/g && ln -s '%s' out && chmod -R a-w . && "
             "chmod 0400 go/mod/a/b/f keep/sub/g && chmod 0500 go/mod/a/b go/mod/a . && "
             "chmod 0000 closed/in closed", c->outside);
    sbx_exec_result *r = NULL;
    sbx_error err;
    sbx_status st = sbx_test_shell(b, "ro", &(sbx_test_command){ .text = text }, &r, &err);
    int ok = sbx_local_test_check(v, st == SBX_OK, "exec: %s", err.message) &&
             sbx_local_test_check(v, r->outcome == SBX_EXEC_EXITED && r->exit_code == 0,
                                  "making the read-only tree failed: %.*s", 300,
                                  r->stderr_data != NULL ? r->stderr_data : "");
    if (r != NULL)
        sbx_backend_free_exec_result(b, r);
    return ok;
}

static void read_only_part(sbx_local_test_verdict *v, void *ctx)
{
    read_only_case *c = ctx;
    char secret[PATH_MAX + 16], dir[PATH_MAX + 16], go[PATH_MAX + 32];
    if (!sbx_local_test_check(v, sbx_test_scratch_dir(c->state_dir, sizeof c->state_dir,
                                                      "read-only state") == 0 &&
                                  sbx_test_scratch_dir(c->outside, sizeof c->outside,
                                                       "read-only outside") == 0,
                              "no scratch directory"))
        return;
    snprintf(secret, sizeof secret, "%s/secret", c->outside);
    snprintf(dir, sizeof dir, "%s/ro", c->state_dir);
    FILE *fp = fopen(secret, "w");
    sbx_local_test_check(v, fp != NULL && fputs("outside\n", fp) >= 0 && fclose(fp) == 0 &&
                                chmod(c->outside, 0500) == 0, "cannot make %s", secret);
    sbx_host_services services = { sizeof services, NULL, NULL };
    sbx_host *host = NULL;
    sbx_backend *b = NULL;
    sbx_error err;
    sbx_option opts[2] = { { "state_dir", c->state_dir }, { "isolation", "none" } };
    if (sbx_local_test_check(v, sbx_host_new(&services, &host, &err) == SBX_OK &&
                                    sbx_backend_open(host, "local", opts, 2, &b, &err) == SBX_OK,
                             "open: %s", err.message)) {
        for (int round = 0; round < 2 && v->why[0] == '\0'; round++) {
            sbx_sandbox *sb = sbx_test_create(b, "ro", NULL, NULL, &err);
            if (!sbx_local_test_check(v, sb != NULL, "create (round %d): %s", round,
                                      err.message))
                break;
            sbx_backend_free_sandboxes(b, sb, 1);
            if (!make_read_only_tree(b, c, v))
                break;
            if (round == 0) {
                sbx_status st = sbx_backend_remove_path(b, "ro", "go", SBX_REMOVE_RECURSIVE,
                                                        &err);
                snprintf(go, sizeof go, "%s/go/mod/a/b/f", dir);
                sbx_local_test_check(v, st == SBX_ERR_PERMISSION && sbx_local_test_path_exists(go),
                                     "remove_path in a read-only directory: %d (%s)", (int)st,
                                     err.message);
                chmod(dir, 0700);
                st = sbx_backend_remove_path(b, "ro", "go", SBX_REMOVE_RECURSIVE, &err);
                snprintf(go, sizeof go, "%s/go", dir);
                sbx_local_test_check(v, st == SBX_OK && !sbx_local_test_path_exists(go),
                                     "remove_path of a read-only tree: %s", err.message);
            }
            sbx_local_test_check(v, sbx_backend_destroy(b, "ro", &err) == SBX_OK,
                                 "destroy of a read-only tree (round %d): %s", round,
                                 err.message);
            sbx_local_test_check(v, sbx_local_test_count_entries(c->state_dir) == 0,
                                 "destroy left %d entries in the state directory",
                                 sbx_local_test_count_entries(c->state_dir));
        }
        sbx_backend_close(b);
    }
    sbx_host_free(host);
    struct stat sb;
    sbx_local_test_check(v, stat(c->outside, &sb) == 0 && (sb.st_mode & 07777) == 0500 &&
                                sbx_local_test_path_exists(secret),
                         "the directory outside the sandbox was changed");
    chmod(c->outside, 0700);
    sbx_test_remove_tree(c->state_dir);
    sbx_test_remove_tree(c->outside);
}

static void test_read_only_tree_is_removed_by_an_unprivileged_host(void)
{
    read_only_case c;
    sbx_local_test_verdict v;
    memset(&c, 0, sizeof c);
    sbx_local_test_run_unprivileged(read_only_part, &c, &v);
    if (v.why[0] != '\0')
        fprintf(stderr, "read-only tree: %s\n", v.why);
    CU_ASSERT_STRING_EQUAL(v.why, "");
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "a chain of 3000 directories is listed, removed and destroyed",
          test_deep_tree_is_listed_removed_and_destroyed },
        { "a read-only tree is removed by an unprivileged host",
          test_read_only_tree_is_removed_by_an_unprivileged_host },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("local backend trees", NULL, NULL, tests);
}
