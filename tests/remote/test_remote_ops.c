/* The remote backend's sandbox operations (ABI 1.3) over real HTTP: the
 * provisioner emulator with --aio serves each sandbox's AIO API at its
 * sandbox_url, on a local sandbox (docs/emulator.md).  Each class of
 * helpers/OPS.md the AIO wire allows: exit codes and signals, argv and env
 * that a shell would split, output over the cap, NUL bytes, timeouts,
 * stdin refused, exact file bytes, offsets and caps, write flags, listings,
 * removal of files, trees and links, relative paths, the sandbox gone (also
 * behind the backend's back), an id that moves to another address, the AIO
 * key, and many execs at once on one sandbox and on many. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/remote/remote_fixture.h"
#include "tests/support/cunit_main.h"
#include "tests/support/subprocess.h"

#define AIO_KEY "aio-key-7c1e9a3f5b2d8e4a6c0f"
#define SB "ops-sb"

static char state_dir[64];

/* Start an --aio emulator (its sandboxes under a fresh state directory)
 * and a backend sending `aio_key` as sandbox_api_key, and create SB. */
static int start(sbx_rt *rt, const char *aio_key)
{
    snprintf(state_dir, sizeof state_dir, "/tmp/sbx-remote-ops.XXXXXX");
    CU_ASSERT_FATAL(mkdtemp(state_dir) != NULL);
    const char *args[] = { "--aio", "--aio-api-key", AIO_KEY, "--state-dir", state_dir, NULL };
    /* A generous bound on the provisioner's answers: the many-thread cases
     * queue dozens of requests on a loaded (or sanitized) emulator. */
    sbx_option extra[] = { { "sandbox_api_key", aio_key }, { "get_timeout_ms", "60000" } };
    if (!sbx_rt_start(rt, args, NULL, extra, 2))
        return 0;
    sbx_create_request req = sbx_rt_create_request(SB, NULL, NULL);
    sbx_error err;
    sbx_sandbox *sb = sbx_rt_create_ok(rt, &req, &err);
    if (sb == NULL) {
        sbx_rt_stop(rt);
        return 0;
    }
    sbx_backend_free_sandboxes(rt->backend, sb, 1);
    return 1;
}

static void stop(sbx_rt *rt)
{
    sbx_rt_stop(rt);
    const char *argv[] = { "rm", "-rf", "--", state_dir, NULL };
    sbx_test_run_program(argv, 30000, NULL, 0);
}

/* What a test runs in SB: argv, or shell text when argv is NULL, with an
 * environment and bounds (0: the backend's defaults). */
typedef struct command {
    const char *const *argv;
    const char *shell;
    const sbx_env_var *env;
    size_t env_count;
    int64_t timeout_ms;
    size_t cap;
} command;

static sbx_status run(sbx_rt *rt, const command *c, sbx_exec_result **out, sbx_error *err)
{
    sbx_exec_request rq = SBX_EXEC_REQUEST_INIT;
    rq.argv = c->argv;
    rq.shell_command = c->shell;
    rq.env = c->env;
    rq.env_count = c->env_count;
    rq.timeout_ms = c->timeout_ms;
    rq.max_output_bytes = c->cap;
    sbx_error_clear(err);
    return sbx_backend_exec(rt->backend, SB, &rq, out, err);
}

static sbx_exec_result *sh_ok(sbx_rt *rt, const char *shell)
{
    sbx_exec_result *r = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(run(rt, &(command){ .shell = shell }, &r, &err), SBX_OK);
    if (r == NULL)
        fprintf(stderr, "exec failed: %s\n", err.message);
    return r;
}

static void test_exit_codes_and_signals(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    static const char *const texts[] = { "exit 0", "exit 1", "exit 255" };
    static const int codes[] = { 0, 1, 255 };
    for (size_t i = 0; i < 3; i++) {
        sbx_exec_result *r = sh_ok(&rt, texts[i]);
        if (r != NULL) {
            CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_EXITED);
            CU_ASSERT_EQUAL(r->exit_code, codes[i]);
        }
        sbx_backend_free_exec_result(rt.backend, r);
    }
    sbx_exec_result *r = sh_ok(&rt, "kill -KILL $$");
    if (r != NULL) {
        CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_SIGNALED);
        CU_ASSERT_EQUAL(r->term_signal, 9);
    }
    sbx_backend_free_exec_result(rt.backend, r);
    const char *missing[] = { "sbx-no-such-program", NULL };
    sbx_error err;
    CU_ASSERT_EQUAL(run(&rt, &(command){ .argv = missing }, &r, &err), SBX_OK);
    if (r != NULL)
        CU_ASSERT_EQUAL(r->exit_code, 127);
    sbx_backend_free_exec_result(rt.backend, r);
    stop(&rt);
}

/* Arguments and environment values a shell would split or expand arrive
 * exactly; an invalid name is refused before anything runs. */
static void test_argv_and_env_arrive_exactly(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    const char *argv[] = { "printf", "<%s>", "a b", "it's", "$HOME", "`id`", "x\ny", "\\",
                           "", "*", NULL };
    sbx_exec_result *r = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(run(&rt, &(command){ .argv = argv }, &r, &err), SBX_OK);
    if (r != NULL)
        CU_ASSERT_STRING_EQUAL(r->stdout_data, "<a b><it's><$HOME><`id`><x\ny><\\><><*>");
    sbx_backend_free_exec_result(rt.backend, r);
    const sbx_env_var env[] = { { "V1", "it's $(id) `x` \"q\"" }, { "V2", "" } };
    const char *show[] = { "sh", "-c", "printf '<%s><%s>' \"$V1\" \"${V2-unset}\"", NULL };
    CU_ASSERT_EQUAL(run(&rt, &(command){ .argv = show, .env = env, .env_count = 2 }, &r, &err),
                    SBX_OK);
    if (r != NULL)
        CU_ASSERT_STRING_EQUAL(r->stdout_data, "<it's $(id) `x` \"q\"><>");
    sbx_backend_free_exec_result(rt.backend, r);
    static const char *const bad[] = { "1A", "A-B", "A=B", "", "A B", "$A" };
    for (size_t i = 0; i < 6; i++) {
        const sbx_env_var one[] = { { bad[i], "v" } };
        r = NULL;
        CU_ASSERT_EQUAL(run(&rt, &(command){ .argv = show, .env = one, .env_count = 1 }, &r,
                            &err), SBX_ERR_USAGE);
        CU_ASSERT_PTR_NULL(r);
    }
    stop(&rt);
}

/* Output over the cap: the first bytes exact, truncated set; NUL bytes
 * kept with their length. */
static void test_output_cap_and_nul_bytes(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    sbx_exec_result *r = NULL;
    sbx_error err;
    command c = { .shell = "i=0; while [ $i -lt 2000 ]; do printf '%05d' $i; "
                           "i=$((i+1)); done; echo tail >&2",
                  .cap = 1000 };
    CU_ASSERT_EQUAL(run(&rt, &c, &r, &err), SBX_OK);
    if (r != NULL) {
        CU_ASSERT_EQUAL(r->stdout_length, 1000);
        CU_ASSERT(r->stdout_truncated);
        CU_ASSERT_EQUAL(strncmp(r->stdout_data, "000000000100002", 15), 0);
        CU_ASSERT_EQUAL(strncmp(r->stdout_data + 995, "00199", 5), 0);
        CU_ASSERT_STRING_EQUAL(r->stderr_data, "tail\n");
        CU_ASSERT(!r->stderr_truncated);
    }
    sbx_backend_free_exec_result(rt.backend, r);
    r = sh_ok(&rt, "printf 'a\\000b\\000'");
    if (r != NULL) {
        CU_ASSERT_EQUAL(r->stdout_length, 4);
        CU_ASSERT_EQUAL(memcmp(r->stdout_data, "a\0b\0", 4), 0);
    }
    sbx_backend_free_exec_result(rt.backend, r);
    stop(&rt);
}

/* A tiny timeout ends a long command as TIMED_OUT, long before it would
 * have; stdin is refused and not claimed. */
static void test_timeout_and_stdin(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    sbx_exec_result *r = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(run(&rt, &(command){ .shell = "sleep 60", .timeout_ms = 300 }, &r, &err),
                    SBX_OK);
    if (r != NULL) {
        CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_TIMED_OUT);
        CU_ASSERT(r->duration_ms < 50000);
    }
    sbx_backend_free_exec_result(rt.backend, r);
    sbx_exec_request rq = SBX_EXEC_REQUEST_INIT;
    rq.shell_command = "cat";
    rq.stdin_data = "x";
    rq.stdin_length = 1;
    r = NULL;
    CU_ASSERT_EQUAL(sbx_backend_exec(rt.backend, SB, &rq, &r, &err), SBX_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NULL(r);
    sbx_operations_info info = { .struct_size = sizeof info };
    CU_ASSERT_EQUAL(sbx_backend_operations_info(rt.backend, &info, &err), SBX_OK);
    CU_ASSERT_EQUAL(info.operations & SBX_OP_EXEC_STDIN, 0);
    CU_ASSERT_NOT_EQUAL(info.operations & SBX_OP_EXEC, 0);
    CU_ASSERT_NOT_EQUAL(info.operations & SBX_OP_REMOVE_PATH, 0);
    stop(&rt);
}

/* Every byte value is written and read back exactly; offsets and caps cut
 * where asked, with truncated exact. */
static void test_file_bytes_offsets_and_caps(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    unsigned char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (unsigned char)i;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_write_file(rt.backend, SB, "bytes.bin", all, sizeof all, 0, 0,
                                           &err), SBX_OK);
    sbx_file_content *c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(rt.backend, SB, "bytes.bin", 0, 1000, &c, &err),
                    SBX_OK);
    if (c != NULL) {
        CU_ASSERT_EQUAL(c->length, 256);
        CU_ASSERT_EQUAL(memcmp(c->data, all, 256), 0);
        CU_ASSERT(!c->truncated);
    }
    sbx_backend_free_file_content(rt.backend, c);
    c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(rt.backend, SB, "bytes.bin", 10, 20, &c, &err), SBX_OK);
    if (c != NULL) {
        CU_ASSERT_EQUAL(c->length, 20);
        CU_ASSERT_EQUAL(memcmp(c->data, all + 10, 20), 0);
        CU_ASSERT(c->truncated);
    }
    sbx_backend_free_file_content(rt.backend, c);
    c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(rt.backend, SB, "bytes.bin", 236, 20, &c, &err),
                    SBX_OK);
    if (c != NULL) {
        CU_ASSERT_EQUAL(c->length, 20);
        CU_ASSERT(!c->truncated); /* ends exactly at the end */
    }
    sbx_backend_free_file_content(rt.backend, c);
    c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(rt.backend, SB, "bytes.bin", 999, 20, &c, &err),
                    SBX_OK);
    if (c != NULL)
        CU_ASSERT_EQUAL(c->length, 0);
    sbx_backend_free_file_content(rt.backend, c);
    c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(rt.backend, SB, "no-such-file", 0, 10, &c, &err),
                    SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_PTR_NULL(c);
    sbx_exec_result *r = sh_ok(&rt, "mkdir d");
    sbx_backend_free_exec_result(rt.backend, r);
    CU_ASSERT_EQUAL(sbx_backend_read_file(rt.backend, SB, "d", 0, 10, &c, &err),
                    SBX_ERR_IS_A_DIRECTORY);
    stop(&rt);
}

/* MKDIRS, EXCLUSIVE, APPEND and the mode of a new file. */
static void test_write_flags(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_write_file(rt.backend, SB, "a/b/c.txt", "x", 1, 0, 0, &err),
                    SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_EQUAL(sbx_backend_write_file(rt.backend, SB, "a/b/c.txt", "one", 3,
                                           SBX_WRITE_MKDIRS, 0600, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_write_file(rt.backend, SB, "a/b/c.txt", "two", 3,
                                           SBX_WRITE_EXCLUSIVE, 0, &err), SBX_ERR_EXISTS);
    CU_ASSERT_EQUAL(sbx_backend_write_file(rt.backend, SB, "a/b/c.txt", "+", 1,
                                           SBX_WRITE_APPEND, 0, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_write_file(rt.backend, SB, "a/b", "x", 1, 0, 0, &err),
                    SBX_ERR_IS_A_DIRECTORY);
    sbx_file_content *c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(rt.backend, SB, "a/b/c.txt", 0, 100, &c, &err),
                    SBX_OK);
    if (c != NULL)
        CU_ASSERT_STRING_EQUAL(c->data, "one+");
    sbx_backend_free_file_content(rt.backend, c);
    sbx_exec_result *r = sh_ok(&rt, "stat -c %a a/b/c.txt");
    if (r != NULL)
        CU_ASSERT_STRING_EQUAL(r->stdout_data, "600\n");
    sbx_backend_free_exec_result(rt.backend, r);
    stop(&rt);
}

/* A listing is depth first, sorted, cut at the cap; a file or a missing
 * path is not a directory. */
static void test_list_dir(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    sbx_exec_result *r = sh_ok(&rt, "mkdir -p t/d && printf 12345 > t/f && : > t/d/inner && "
                                    "chmod 640 t/f");
    sbx_backend_free_exec_result(rt.backend, r);
    sbx_dir_listing *l = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_list_dir(rt.backend, SB, "t", 2, 100, &l, &err), SBX_OK);
    if (l != NULL) {
        CU_ASSERT_EQUAL(l->count, 3);
        sbx_dir_entry *e = l->entries;
        CU_ASSERT_FATAL(e != NULL && e->next != NULL && e->next->next != NULL);
        CU_ASSERT_STRING_EQUAL(e->path, "d");
        CU_ASSERT_EQUAL(e->type, SBX_FILE_DIRECTORY);
        CU_ASSERT_STRING_EQUAL(e->next->path, "d/inner");
        CU_ASSERT_STRING_EQUAL(e->next->next->path, "f");
        CU_ASSERT_EQUAL(e->next->next->size, 5);
        CU_ASSERT_EQUAL(e->next->next->mode, 0640);
        CU_ASSERT(e->next->next->mtime > 0);
        CU_ASSERT(!l->truncated);
    }
    sbx_backend_free_listing(rt.backend, l);
    l = NULL;
    CU_ASSERT_EQUAL(sbx_backend_list_dir(rt.backend, SB, "t", 1, 1, &l, &err), SBX_OK);
    if (l != NULL) {
        CU_ASSERT_EQUAL(l->count, 1);
        CU_ASSERT(l->truncated);
    }
    sbx_backend_free_listing(rt.backend, l);
    l = NULL;
    CU_ASSERT_EQUAL(sbx_backend_list_dir(rt.backend, SB, "t/f", 1, 10, &l, &err),
                    SBX_ERR_NOT_A_DIRECTORY);
    CU_ASSERT_EQUAL(sbx_backend_list_dir(rt.backend, SB, "nothing", 1, 10, &l, &err),
                    SBX_ERR_NO_SUCH_PATH);
    stop(&rt);
}

/* Files, trees (only with the flag), missing paths, and a link to a
 * directory (the link goes, what it points to stays). */
static void test_remove_path(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    sbx_exec_result *r = sh_ok(&rt, "mkdir -p \"q'd/sub\" && : > \"q'd/sub/f\" && "
                                    "ln -s \"q'd\" link");
    sbx_backend_free_exec_result(rt.backend, r);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_remove_path(rt.backend, SB, "link", 0, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_remove_path(rt.backend, SB, "q'd", 0, &err),
                    SBX_ERR_IS_A_DIRECTORY);
    CU_ASSERT_EQUAL(sbx_backend_remove_path(rt.backend, SB, "q'd/sub/f", 0, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_remove_path(rt.backend, SB, "q'd/sub/f", 0, &err),
                    SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_EQUAL(sbx_backend_remove_path(rt.backend, SB, "q'd", SBX_REMOVE_RECURSIVE, &err),
                    SBX_OK);
    r = sh_ok(&rt, "ls -A");
    if (r != NULL)
        CU_ASSERT_STRING_EQUAL(r->stdout_data, "");
    sbx_backend_free_exec_result(rt.backend, r);
    stop(&rt);
}

/* A destroyed or unknown sandbox is not_found for every operation; a wrong
 * AIO key is unauthorized and never shown. */
static void test_gone_sandbox_and_wrong_key(void)
{
    sbx_rt rt;
    if (!start(&rt, "wrong-key-5e2a9c7b1d3f"))
        return;
    sbx_exec_result *r = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(run(&rt, &(command){ .shell = "true" }, &r, &err), SBX_ERR_UNAUTHORIZED);
    CU_ASSERT(!sbx_rt_contains(err.message, "wrong-key-5e2a9c7b1d3f"));
    CU_ASSERT(!sbx_rt_contains(err.message, AIO_KEY));
    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, SB, &err), SBX_OK);
    CU_ASSERT_EQUAL(run(&rt, &(command){ .shell = "true" }, &r, &err), SBX_ERR_NOT_FOUND);
    sbx_file_content *c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(rt.backend, SB, "x", 0, 1, &c, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_backend_write_file(rt.backend, "no-such-sb", "x", "x", 1, 0, 0, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_backend_remove_path(rt.backend, "no-such-sb", "x", 0, &err),
                    SBX_ERR_NOT_FOUND);
    stop(&rt);
}

/* An id destroyed and made again is reached at its new address: what the
 * first one held is gone. */
static void test_recreated_id_reaches_the_new_sandbox(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_write_file(rt.backend, SB, "mark", "old", 3, 0, 0, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, SB, &err), SBX_OK);
    sbx_create_request req = sbx_rt_create_request(SB, NULL, NULL);
    sbx_sandbox *sb = sbx_rt_create_ok(&rt, &req, &err);
    sbx_backend_free_sandboxes(rt.backend, sb, 1);
    sbx_file_content *c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(rt.backend, SB, "mark", 0, 10, &c, &err),
                    SBX_ERR_NO_SUCH_PATH);
    sbx_backend_free_file_content(rt.backend, c);
    stop(&rt);
}

/* Create `id` (in the fixture's emulator) with `mark` written to "mark" in
 * its home; its sandbox_url into url (NULL: not wanted).  1 on success. */
static int make_marked(sbx_rt *rt, const char *id, const char *mark, char *url, size_t url_size)
{
    sbx_create_request req = sbx_rt_create_request(id, NULL, NULL);
    sbx_error err;
    sbx_sandbox *sb = sbx_rt_create_ok(rt, &req, &err);
    if (sb == NULL)
        return 0;
    if (url != NULL)
        snprintf(url, url_size, "%s", sb->sandbox_url != NULL ? sb->sandbox_url : "");
    sbx_backend_free_sandboxes(rt->backend, sb, 1);
    sbx_status st = sbx_backend_write_file(rt->backend, id, "mark", mark, strlen(mark), 0, 0,
                                           &err);
    CU_ASSERT_EQUAL(st, SBX_OK);
    return st == SBX_OK;
}

/* What `cat mark` prints in sandbox `id` (read_file must agree when
 * `also_read`), into out; the status of the exec. */
static sbx_status read_mark_by(sbx_rt *rt, const char *id, int also_read, char *out,
                               size_t out_size)
{
    const char *argv[] = { "cat", "mark", NULL };
    sbx_exec_request rq = SBX_EXEC_REQUEST_INIT;
    rq.argv = argv;
    sbx_exec_result *r = NULL;
    sbx_error err;
    out[0] = '\0';
    sbx_status st = sbx_backend_exec(rt->backend, id, &rq, &r, &err);
    if (st == SBX_OK) {
        snprintf(out, out_size, "%s", r->stdout_data);
        sbx_backend_free_exec_result(rt->backend, r);
    }
    if (st == SBX_OK && also_read) {
        sbx_file_content *c = NULL;
        CU_ASSERT_EQUAL(sbx_backend_read_file(rt->backend, id, "mark", 0, 64, &c, &err), SBX_OK);
        CU_ASSERT(c != NULL && strcmp(c->data, out) == 0);
        sbx_backend_free_file_content(rt->backend, c);
    }
    return st;
}

static sbx_status read_mark(sbx_rt *rt, const char *id, char *out, size_t out_size)
{
    return read_mark_by(rt, id, 1, out, out_size);
}

/* The provisioner moves an id to another address (destroyed and made
 * again elsewhere): the next operation goes to the new address, although
 * the backend holds live connections to the old one; moved again, the
 * same. */
static void test_an_id_moved_to_another_address_is_followed(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    char url_b[256] = "", url_c[256] = "", got[64], body[512];
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_write_file(rt.backend, SB, "mark", "first", 5, 0, 0, &err),
                    SBX_OK);
    if (!make_marked(&rt, "ops-second", "second", url_b, sizeof url_b) ||
        !make_marked(&rt, "ops-third", "third", url_c, sizeof url_c)) {
        stop(&rt);
        return;
    }
    CU_ASSERT_EQUAL(read_mark(&rt, SB, got, sizeof got), SBX_OK);
    CU_ASSERT_STRING_EQUAL(got, "first");
    const char *to[] = { url_b, url_c };
    const char *want[] = { "second", "third" };
    for (size_t i = 0; i < 2; i++) {
        snprintf(body, sizeof body,
                 "{\"sandbox_id\":\"" SB "\",\"sandbox_url\":\"%s\",\"status\":\"Running\"}",
                 to[i]);
        CU_ASSERT_FATAL(sbx_rt_put_sandbox(&rt, SB, body));
        for (int round = 0; round < 2; round++) {
            CU_ASSERT_EQUAL(read_mark(&rt, SB, got, sizeof got), SBX_OK);
            CU_ASSERT_STRING_EQUAL(got, want[i]);
        }
    }
    stop(&rt);
}

/* Destroyed behind this backend's back (another host's DELETE) while it
 * holds a live connection to the sandbox: every operation is not_found,
 * and the id made again answers as the new sandbox, never with the old
 * one's files. */
static void test_a_sandbox_destroyed_elsewhere_is_gone_at_once(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    char got[64];
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_write_file(rt.backend, SB, "mark", "old", 3, 0, 0, &err), SBX_OK);
    CU_ASSERT_EQUAL(read_mark(&rt, SB, got, sizeof got), SBX_OK);
    CU_ASSERT_STRING_EQUAL(got, "old");
    CU_ASSERT_EQUAL(sbx_test_emu_control(rt.emu, "DELETE", "/api/sandboxes/" SB, NULL, NULL), 200);
    CU_ASSERT_EQUAL(read_mark(&rt, SB, got, sizeof got), SBX_ERR_NOT_FOUND);
    sbx_file_content *c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(rt.backend, SB, "mark", 0, 10, &c, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_backend_write_file(rt.backend, SB, "mark", "x", 1, 0, 0, &err),
                    SBX_ERR_NOT_FOUND);
    sbx_dir_listing *l = NULL;
    CU_ASSERT_EQUAL(sbx_backend_list_dir(rt.backend, SB, ".", 1, 10, &l, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_backend_remove_path(rt.backend, SB, "mark", 0, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_test_emu_control(rt.emu, "POST", "/api/sandboxes",
                                         "{\"sandbox_id\":\"" SB "\"}", NULL), 200);
    CU_ASSERT_EQUAL(sbx_backend_read_file(rt.backend, SB, "mark", 0, 10, &c, &err),
                    SBX_ERR_NO_SUCH_PATH);
    sbx_backend_free_file_content(rt.backend, c);
    stop(&rt);
}

/* More sandboxes than the backend keeps clients for (16), each with
 * several threads at once: every answer comes from the sandbox asked. */
#define MANY_SANDBOXES 18
#define THREADS_EACH 2
#define CALLS_EACH 2

typedef struct marked_worker {
    sbx_rt *rt;
    char id[32];
    int ok;
} marked_worker;

static void *marked_worker_run(void *arg)
{
    marked_worker *w = arg;
    char got[64];
    w->ok = 1;
    for (int i = 0; i < CALLS_EACH; i++)
        w->ok = w->ok && read_mark_by(w->rt, w->id, 0, got, sizeof got) == SBX_OK &&
                strcmp(got, w->id) == 0;
    return NULL;
}

static void test_threads_on_many_sandboxes_get_their_own_answers(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    marked_worker workers[MANY_SANDBOXES * THREADS_EACH];
    pthread_t threads[MANY_SANDBOXES * THREADS_EACH];
    int made = 1;
    for (int s = 0; made && s < MANY_SANDBOXES; s++) {
        char id[32];
        snprintf(id, sizeof id, "ops-many-%d", s);
        made = make_marked(&rt, id, id, NULL, 0);
        for (int t = 0; t < THREADS_EACH; t++) {
            workers[s * THREADS_EACH + t] = (marked_worker){ .rt = &rt };
            snprintf(workers[s * THREADS_EACH + t].id, sizeof workers[0].id, "%s", id);
        }
    }
    size_t started = 0;
    for (size_t i = 0; made && i < MANY_SANDBOXES * THREADS_EACH; i++) {
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, marked_worker_run, &workers[i]) == 0);
        started++;
    }
    for (size_t i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        CU_ASSERT(workers[i].ok);
    }
    stop(&rt);
}

#define WORKERS 8

typedef struct worker {
    sbx_rt *rt;
    int index;
    int ok;
} worker;

static void *exec_worker(void *arg)
{
    worker *w = arg;
    char text[64], want[32];
    snprintf(text, sizeof text, "printf %d", w->index);
    snprintf(want, sizeof want, "%d", w->index);
    sbx_exec_result *r = NULL;
    sbx_error err;
    w->ok = run(w->rt, &(command){ .shell = text }, &r, &err) == SBX_OK &&
            strcmp(r->stdout_data, want) == 0;
    sbx_backend_free_exec_result(w->rt->backend, r);
    return NULL;
}

/* Many execs at once on one sandbox each get their own answer. */
static void test_concurrent_execs(void)
{
    sbx_rt rt;
    if (!start(&rt, AIO_KEY))
        return;
    pthread_t threads[WORKERS];
    worker workers[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        workers[i] = (worker){ &rt, i, 0 };
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, exec_worker, &workers[i]) == 0);
    }
    for (int i = 0; i < WORKERS; i++) {
        pthread_join(threads[i], NULL);
        CU_ASSERT(workers[i].ok);
    }
    stop(&rt);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "exit_codes_and_signals", test_exit_codes_and_signals },
        { "argv_and_env_arrive_exactly", test_argv_and_env_arrive_exactly },
        { "output_cap_and_nul_bytes", test_output_cap_and_nul_bytes },
        { "timeout_and_stdin", test_timeout_and_stdin },
        { "file_bytes_offsets_and_caps", test_file_bytes_offsets_and_caps },
        { "write_flags", test_write_flags },
        { "list_dir", test_list_dir },
        { "remove_path", test_remove_path },
        { "gone_sandbox_and_wrong_key", test_gone_sandbox_and_wrong_key },
        { "recreated_id_reaches_the_new_sandbox", test_recreated_id_reaches_the_new_sandbox },
        { "concurrent_execs", test_concurrent_execs },
        { "an id moved to another address is followed", test_an_id_moved_to_another_address_is_followed },
        { "a sandbox destroyed elsewhere is gone at once",
          test_a_sandbox_destroyed_elsewhere_is_gone_at_once },
        { "threads on many sandboxes get their own answers",
          test_threads_on_many_sandboxes_get_their_own_answers },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote sandbox operations", NULL, NULL, tests);
}
