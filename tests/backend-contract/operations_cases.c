/*
 * The sandbox operations (ABI 1.3) as a host sees them, the same cases
 * against every backend: commands (exit codes, signals, timeouts, output
 * caps, bytes, stdin, environment, working directory), files (bytes in and
 * out, offsets, flags, listings, removal), the error kinds a host acts on,
 * and many threads at once.  What a backend's operations_info says it
 * cannot do is skipped, and the skip is printed.  Path confinement differs
 * by backend (a container's whole tree is the sandbox's) and is in each
 * backend's own suite.
 */
#include <config.h>

#include "tests/backend-contract/contract_fixture.h"
#include "tests/support/backend_calls.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Run `text` with /bin/sh -c under request `r` (NULL: defaults). */
static sbx_exec_result *run_shell(contract_case *c, const char *text, sbx_exec_request *r,
                                  sbx_status *status, sbx_error *err)
{
    sbx_exec_request defaults = SBX_EXEC_REQUEST_INIT;
    if (r == NULL)
        r = &defaults;
    r->shell_command = text;
    sbx_exec_result *result = NULL;
    *status = sbx_backend_exec(c->f.backend, c->id, r, &result, err);
    return result;
}

/* Run `text` and expect it to exit with `code` and print `out` exactly. */
static void expect_exit(contract_case *c, const char *text, int code, const char *out)
{
    sbx_status st;
    sbx_error err;
    sbx_exec_result *r = run_shell(c, text, NULL, &st, &err);
    if (st != SBX_OK)
        fprintf(stderr, "exec '%s': %s\n", text, err.message);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(r->exit_code, code);
    if (out != NULL) {
        CU_ASSERT_EQUAL(r->stdout_length, strlen(out));
        CU_ASSERT_STRING_EQUAL(r->stdout_data, out);
    }
    CU_ASSERT_FALSE(r->stdout_truncated);
    sbx_backend_free_exec_result(c->f.backend, r);
}

/* An argv command; stdout and stderr kept apart; exit codes 0, 1, 255 are
 * results, not errors; a missing program exits 127. */
static void test_commands_answer_their_exit_codes(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-exit", SBX_OP_EXEC, "run commands"));
    static const char *const echo[] = {"echo", "hello", "two words", NULL};
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.argv = echo;
    sbx_exec_result *result = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_exec(c.f.backend, c.id, &r, &result, &err), SBX_OK);
    CU_ASSERT_EQUAL(result->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(result->exit_code, 0);
    CU_ASSERT_STRING_EQUAL(result->stdout_data, "hello two words\n");
    CU_ASSERT_EQUAL(result->stderr_length, 0);
    CU_ASSERT(result->duration_ms >= 0);
    sbx_backend_free_exec_result(c.f.backend, result);

    expect_exit(&c, "exit 0", 0, "");
    expect_exit(&c, "echo out; echo err >&2; exit 1", 1, "out\n");
    expect_exit(&c, "exit 255", 255, "");
    expect_exit(&c, "no-such-program-here-xyz", 127, "");

    static const char *const missing[] = {"/no/such/program", NULL};
    r.argv = missing;
    result = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_exec(c.f.backend, c.id, &r, &result, &err), SBX_OK);
    CU_ASSERT_EQUAL(result->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(result->exit_code, 127);
    sbx_backend_free_exec_result(c.f.backend, result);
    contract_case_finish(&c);
}

/* A command a signal ends is SIGNALED, not an error and not timed out. */
static void test_a_signal_ends_a_command(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-signal", SBX_OP_EXEC, "run commands"));
    sbx_status st;
    sbx_error err;
    sbx_exec_result *r = run_shell(&c, "echo before; kill -KILL $$", NULL, &st, &err);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_SIGNALED);
    CU_ASSERT(r->term_signal == SIGKILL || r->term_signal == 0);
    CU_ASSERT_EQUAL(r->exit_code, -1);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "before\n");
    sbx_backend_free_exec_result(c.f.backend, r);
    contract_case_finish(&c);
}

/* Milliseconds on a monotonic clock. */
static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A tiny timeout ends a long command long before it would end; 0 means the
 * backend's default (a quick command runs to its end); a timeout above the
 * backend's largest is refused. */
static void test_timeouts_end_commands(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-timeout", SBX_OP_EXEC, "run commands"));
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.timeout_ms = 300;
    sbx_status st;
    sbx_error err;
    int64_t began = now_ms();
    sbx_exec_result *res = run_shell(&c, "echo started; sleep 60; echo never", &r, &st, &err);
    int64_t took = now_ms() - began;
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    CU_ASSERT_EQUAL(res->outcome, SBX_EXEC_TIMED_OUT);
    CU_ASSERT_EQUAL(res->exit_code, -1);
    CU_ASSERT_EQUAL(res->term_signal, 0);
    CU_ASSERT(took < 50000); /* 60 s if the timeout were not enforced */
    CU_ASSERT(strstr(res->stdout_data, "never") == NULL);
    sbx_backend_free_exec_result(c.f.backend, res);

    r.timeout_ms = 0;
    res = run_shell(&c, "echo quick", &r, &st, &err);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    CU_ASSERT_EQUAL(res->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_STRING_EQUAL(res->stdout_data, "quick\n");
    sbx_backend_free_exec_result(c.f.backend, res);

    if (c.info.max_timeout_ms > 0) {
        r.timeout_ms = c.info.max_timeout_ms;
        res = run_shell(&c, "exit 3", &r, &st, &err);
        CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
        CU_ASSERT_EQUAL(res->exit_code, 3);
        sbx_backend_free_exec_result(c.f.backend, res);
        r.timeout_ms = c.info.max_timeout_ms + 1;
        res = run_shell(&c, "exit 3", &r, &st, &err);
        CU_ASSERT_EQUAL(st, SBX_ERR_USAGE);
        CU_ASSERT_PTR_NULL(res);
    }
    contract_case_finish(&c);
}

/* Output past the cap is read and dropped: the result holds the cap's
 * bytes and says it was cut; a stream under the cap is whole. */
static void test_output_past_the_cap_is_cut(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-cap", SBX_OP_EXEC, "run commands"));
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.max_output_bytes = 1000;
    sbx_status st;
    sbx_error err;
    sbx_exec_result *res = run_shell(
        &c, "i=0; while [ $i -lt 2000 ]; do echo 0123456789abcdefghij; i=$((i+1)); done; "
            "echo small >&2", &r, &st, &err);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    CU_ASSERT_EQUAL(res->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(res->stdout_length, 1000);
    CU_ASSERT_TRUE(res->stdout_truncated);
    CU_ASSERT_EQUAL(strncmp(res->stdout_data, "0123456789abcdefghij\n0123", 25), 0);
    CU_ASSERT_STRING_EQUAL(res->stderr_data, "small\n");
    CU_ASSERT_FALSE(res->stderr_truncated);
    sbx_backend_free_exec_result(c.f.backend, res);
    contract_case_finish(&c);
}

/* NUL bytes in output are kept and counted. */
static void test_output_bytes_are_kept(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-bytes", SBX_OP_EXEC, "run commands"));
    sbx_status st;
    sbx_error err;
    sbx_exec_result *res = run_shell(&c, "printf 'a\\000b\\000\\n'", NULL, &st, &err);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    CU_ASSERT_EQUAL(res->stdout_length, 5);
    CU_ASSERT_EQUAL(memcmp(res->stdout_data, "a\0b\0\n", 5), 0);
    sbx_backend_free_exec_result(c.f.backend, res);
    contract_case_finish(&c);
}

/* Stdin bytes reach the command, then end of file. */
static void test_stdin_reaches_the_command(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-stdin", SBX_OP_EXEC, "run commands"));
    if (contract_case_has(&c, SBX_OP_EXEC_STDIN, "pass stdin")) {
        static const char *const cat[] = {"cat", NULL};
        static const char input[] = "line one\nbin\0ary\n";
        sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
        r.argv = cat;
        r.stdin_data = input;
        r.stdin_length = sizeof input - 1;
        sbx_exec_result *res = NULL;
        sbx_error err;
        CU_ASSERT_EQUAL_FATAL(sbx_backend_exec(c.f.backend, c.id, &r, &res, &err), SBX_OK);
        CU_ASSERT_EQUAL(res->exit_code, 0);
        CU_ASSERT_EQUAL(res->stdout_length, sizeof input - 1);
        CU_ASSERT_EQUAL(memcmp(res->stdout_data, input, sizeof input - 1), 0);
        sbx_backend_free_exec_result(c.f.backend, res);
    }
    contract_case_finish(&c);
}

/* Environment values arrive exactly, never read as shell text; invalid
 * names are refused before anything runs. */
static void test_environment_is_passed_not_spliced(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-env", SBX_OP_EXEC, "run commands"));
    sbx_env_var env[] = {{"SBX_VALUE", "a b'$(echo injected)\"; exit 9"}, {"_under", "u"}};
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.env = env;
    r.env_count = 2;
    sbx_status st;
    sbx_error err;
    sbx_exec_result *res = run_shell(&c, "printf '%s|%s' \"$SBX_VALUE\" \"$_under\"", &r, &st,
                                     &err);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    CU_ASSERT_EQUAL(res->exit_code, 0);
    CU_ASSERT_STRING_EQUAL(res->stdout_data, "a b'$(echo injected)\"; exit 9|u");
    sbx_backend_free_exec_result(c.f.backend, res);

    static const char *const bad[] = {"1BAD", "A-B", "", "A=B", "A B", "x;y", "\xc3\xa9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sbx_env_var one = {bad[i], "v"};
        r.env = &one;
        r.env_count = 1;
        res = run_shell(&c, "echo ran", &r, &st, &err);
        CU_ASSERT_EQUAL(st, SBX_ERR_USAGE);
        CU_ASSERT_PTR_NULL(res);
    }
    contract_case_finish(&c);
}

/* A working directory given relative to the sandbox's is where the command
 * starts; files written there are read back by the same relative path. */
static void test_working_directory_and_relative_paths_agree(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-workdir", SBX_OP_EXEC, "run commands"));
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_write_file(c.f.backend, c.id, "wd/sub/file.txt", "x", 1,
                                                 SBX_WRITE_MKDIRS, 0, &err),
                          SBX_OK);
    sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
    r.working_dir = "wd/sub";
    sbx_status st;
    sbx_exec_result *res = run_shell(&c, "cat file.txt; echo made > here.txt", &r, &st, &err);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    CU_ASSERT_EQUAL(res->exit_code, 0);
    CU_ASSERT_STRING_EQUAL(res->stdout_data, "x");
    sbx_backend_free_exec_result(c.f.backend, res);
    sbx_file_content *content = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_read_file(c.f.backend, c.id, "wd/sub/here.txt", 0, 100,
                                                &content, &err),
                          SBX_OK);
    CU_ASSERT_STRING_EQUAL(content->data, "made\n");
    sbx_backend_free_file_content(c.f.backend, content);
    contract_case_finish(&c);
}

/* Every byte value in and out exactly, by offset and in pieces. */
static void test_files_keep_every_byte(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-files", SBX_OP_EXEC, "run commands"));
    enum { SIZE = 70000 };
    char *data = malloc(SIZE);
    CU_ASSERT_PTR_NOT_NULL_FATAL(data);
    for (size_t i = 0; i < SIZE; i++)
        data[i] = (char)(i * 7 + i / 256);
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_write_file(c.f.backend, c.id, "bin.dat", data, SIZE, 0, 0,
                                                 &err),
                          SBX_OK);
    sbx_file_content *whole = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_read_file(c.f.backend, c.id, "bin.dat", 0, SIZE + 10,
                                                &whole, &err),
                          SBX_OK);
    CU_ASSERT_EQUAL(whole->length, SIZE);
    CU_ASSERT_FALSE(whole->truncated);
    CU_ASSERT_EQUAL(memcmp(whole->data, data, SIZE), 0);
    sbx_backend_free_file_content(c.f.backend, whole);

    sbx_file_content *part = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_read_file(c.f.backend, c.id, "bin.dat", 1000, 5000, &part,
                                                &err),
                          SBX_OK);
    CU_ASSERT_EQUAL(part->length, 5000);
    CU_ASSERT_TRUE(part->truncated);
    CU_ASSERT_EQUAL(memcmp(part->data, data + 1000, 5000), 0);
    sbx_backend_free_file_content(c.f.backend, part);

    CU_ASSERT_EQUAL_FATAL(sbx_backend_read_file(c.f.backend, c.id, "bin.dat", SIZE + 5, 10,
                                                &part, &err),
                          SBX_OK);
    CU_ASSERT_EQUAL(part->length, 0);
    CU_ASSERT_FALSE(part->truncated);
    sbx_backend_free_file_content(c.f.backend, part);

    /* Replaced whole, then appended to. */
    CU_ASSERT_EQUAL(sbx_backend_write_file(c.f.backend, c.id, "bin.dat", "ab", 2, 0, 0, &err),
                    SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_write_file(c.f.backend, c.id, "bin.dat", "\0c", 2,
                                           SBX_WRITE_APPEND, 0, &err),
                    SBX_OK);
    CU_ASSERT_EQUAL_FATAL(sbx_backend_read_file(c.f.backend, c.id, "bin.dat", 0, 100, &part,
                                                &err),
                          SBX_OK);
    CU_ASSERT_EQUAL(part->length, 4);
    CU_ASSERT_EQUAL(memcmp(part->data, "ab\0c", 4), 0);
    sbx_backend_free_file_content(c.f.backend, part);
    /* An empty file is a file. */
    CU_ASSERT_EQUAL(sbx_backend_write_file(c.f.backend, c.id, "empty", NULL, 0, 0, 0, &err),
                    SBX_OK);
    CU_ASSERT_EQUAL_FATAL(sbx_backend_read_file(c.f.backend, c.id, "empty", 0, 10, &part, &err),
                          SBX_OK);
    CU_ASSERT_EQUAL(part->length, 0);
    sbx_backend_free_file_content(c.f.backend, part);
    free(data);
    contract_case_finish(&c);
}

/* The error kinds a host acts on, by what the path is. */
static void test_path_errors_are_told_apart(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-errors", SBX_OP_EXEC, "run commands"));
    sbx_error err;
    sbx_file_content *content = NULL;
    CU_ASSERT_EQUAL(sbx_backend_write_file(c.f.backend, c.id, "dir/f", "1", 1, SBX_WRITE_MKDIRS,
                                           0, &err),
                    SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_read_file(c.f.backend, c.id, "absent.txt", 0, 10, &content, &err),
                    SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_PTR_NULL(content);
    CU_ASSERT_EQUAL(sbx_backend_read_file(c.f.backend, c.id, "dir", 0, 10, &content, &err),
                    SBX_ERR_IS_A_DIRECTORY);
    CU_ASSERT_EQUAL(sbx_backend_write_file(c.f.backend, c.id, "nodir/f", "1", 1, 0, 0, &err),
                    SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_EQUAL(sbx_backend_write_file(c.f.backend, c.id, "dir/f", "2", 1,
                                           SBX_WRITE_EXCLUSIVE, 0, &err),
                    SBX_ERR_EXISTS);
    CU_ASSERT_EQUAL(sbx_backend_write_file(c.f.backend, c.id, "dir", "2", 1, 0, 0, &err),
                    SBX_ERR_IS_A_DIRECTORY);
    sbx_status st = sbx_backend_write_file(c.f.backend, c.id, "dir/f/under", "2", 1, 0, 0, &err);
    CU_ASSERT(st == SBX_ERR_NOT_A_DIRECTORY || st == SBX_ERR_NO_SUCH_PATH);
    sbx_dir_listing *listing = NULL;
    CU_ASSERT_EQUAL(sbx_backend_list_dir(c.f.backend, c.id, "dir/f", 1, 10, &listing, &err),
                    SBX_ERR_NOT_A_DIRECTORY);
    CU_ASSERT_EQUAL(sbx_backend_list_dir(c.f.backend, c.id, "absent", 1, 10, &listing, &err),
                    SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_PTR_NULL(listing);
    /* What EXCLUSIVE refused is unchanged. */
    CU_ASSERT_EQUAL_FATAL(sbx_backend_read_file(c.f.backend, c.id, "dir/f", 0, 10, &content, &err),
                          SBX_OK);
    CU_ASSERT_STRING_EQUAL(content->data, "1");
    sbx_backend_free_file_content(c.f.backend, content);
    contract_case_finish(&c);
}

/* Find `path` in a listing. */
static const sbx_dir_entry *entry(const sbx_dir_listing *l, const char *path)
{
    for (const sbx_dir_entry *e = l->entries; e != NULL; e = e->next)
        if (strcmp(e->path, path) == 0)
            return e;
    return NULL;
}

/* Listings: names sorted, types and sizes, deeper levels on request, the
 * entry cap; removal of files and (recursively) trees. */
static void test_listings_and_removal(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-list", SBX_OP_EXEC, "run commands"));
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_write_file(c.f.backend, c.id, "tree/b.txt", "bb", 2,
                                                 SBX_WRITE_MKDIRS, 0, &err),
                          SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_write_file(c.f.backend, c.id, "tree/a.txt", "a", 1, 0, 0600, &err),
                    SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_write_file(c.f.backend, c.id, "tree/sub/deep.txt", "deep", 4,
                                           SBX_WRITE_MKDIRS, 0, &err),
                    SBX_OK);
    sbx_dir_listing *l = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_list_dir(c.f.backend, c.id, "tree", 1, 100, &l, &err),
                          SBX_OK);
    CU_ASSERT_EQUAL(l->count, 3);
    CU_ASSERT_FALSE(l->truncated);
    if (l->count == 3) {
        CU_ASSERT_STRING_EQUAL(l->entries->path, "a.txt");
        CU_ASSERT_STRING_EQUAL(l->entries->next->path, "b.txt");
        CU_ASSERT_STRING_EQUAL(l->entries->next->next->path, "sub");
    }
    const sbx_dir_entry *b = entry(l, "b.txt"), *sub = entry(l, "sub");
    CU_ASSERT(b != NULL && b->type == SBX_FILE_REGULAR && b->size == 2);
    CU_ASSERT(sub != NULL && sub->type == SBX_FILE_DIRECTORY);
    const sbx_dir_entry *a = entry(l, "a.txt");
    CU_ASSERT(a != NULL && (a->mode == 0600 || a->mode == 0));
    sbx_backend_free_listing(c.f.backend, l);

    CU_ASSERT_EQUAL_FATAL(sbx_backend_list_dir(c.f.backend, c.id, "tree", 2, 100, &l, &err),
                          SBX_OK);
    CU_ASSERT_EQUAL(l->count, 4);
    CU_ASSERT_PTR_NOT_NULL(entry(l, "sub/deep.txt"));
    sbx_backend_free_listing(c.f.backend, l);
    CU_ASSERT_EQUAL_FATAL(sbx_backend_list_dir(c.f.backend, c.id, "tree", 2, 2, &l, &err), SBX_OK);
    CU_ASSERT_EQUAL(l->count, 2);
    CU_ASSERT_TRUE(l->truncated);
    sbx_backend_free_listing(c.f.backend, l);

    if (contract_case_has(&c, SBX_OP_REMOVE_PATH, "remove paths")) {
        CU_ASSERT_EQUAL(sbx_backend_remove_path(c.f.backend, c.id, "tree/a.txt", 0, &err), SBX_OK);
        CU_ASSERT_EQUAL(sbx_backend_remove_path(c.f.backend, c.id, "tree/a.txt", 0, &err),
                        SBX_ERR_NO_SUCH_PATH);
        CU_ASSERT_EQUAL(sbx_backend_remove_path(c.f.backend, c.id, "tree/sub", 0, &err),
                        SBX_ERR_IS_A_DIRECTORY);
        CU_ASSERT_EQUAL(sbx_backend_remove_path(c.f.backend, c.id, "tree", SBX_REMOVE_RECURSIVE,
                                                &err),
                        SBX_OK);
        CU_ASSERT_EQUAL(sbx_backend_list_dir(c.f.backend, c.id, "tree", 1, 10, &l, &err),
                        SBX_ERR_NO_SUCH_PATH);
    }
    contract_case_finish(&c);
}

/* A sandbox that is gone answers NOT_FOUND to every operation. */
static void test_a_gone_sandbox_is_not_found(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-gone", SBX_OP_EXEC, "run commands"));
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(c.f.backend, c.id, &err), SBX_OK);
    sbx_status st;
    sbx_exec_result *res = run_shell(&c, "echo hi", NULL, &st, &err);
    CU_ASSERT_EQUAL(st, SBX_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NULL(res);
    sbx_file_content *content = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(c.f.backend, c.id, "x", 0, 1, &content, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_backend_write_file(c.f.backend, c.id, "x", "1", 1, 0, 0, &err),
                    SBX_ERR_NOT_FOUND);
    sbx_dir_listing *l = NULL;
    CU_ASSERT_EQUAL(sbx_backend_list_dir(c.f.backend, c.id, ".", 1, 1, &l, &err),
                    SBX_ERR_NOT_FOUND);
    snprintf(c.id, sizeof c.id, "op-never-made");
    res = run_shell(&c, "echo hi", NULL, &st, &err);
    CU_ASSERT_EQUAL(st, SBX_ERR_NOT_FOUND);
    contract_case_finish(&c); /* destroying an absent sandbox succeeds */
}

#define OP_THREADS 8
#define OP_ROUNDS 4

typedef struct op_worker {
    sbx_backend *backend;
    const char *id;
    int index;
    int wrong;
} op_worker;

static void *exec_many(void *arg)
{
    op_worker *w = arg;
    for (int round = 0; round < OP_ROUNDS; round++) {
        char text[64], want[64];
        snprintf(text, sizeof text, "echo w%d-r%d", w->index, round);
        snprintf(want, sizeof want, "w%d-r%d\n", w->index, round);
        sbx_exec_request r = SBX_EXEC_REQUEST_INIT;
        r.shell_command = text;
        sbx_exec_result *res = NULL;
        sbx_error err;
        if (sbx_backend_exec(w->backend, w->id, &r, &res, &err) != SBX_OK ||
            res->exit_code != 0 || strcmp(res->stdout_data, want) != 0)
            w->wrong++;
        sbx_backend_free_exec_result(w->backend, res);
    }
    return NULL;
}

/* Many threads running commands in one sandbox and in several: each gets
 * its own command's output. */
static void test_concurrent_commands_keep_their_output(void)
{
    contract_case c;
    CU_ASSERT_FATAL(contract_case_start(&c, "op-many", SBX_OP_EXEC, "run commands"));
    sbx_error err;
    sbx_sandbox *other = sbx_test_create(c.f.backend, "op-many-2", NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(other);
    sbx_backend_free_sandboxes(c.f.backend, other, 1);
    op_worker workers[OP_THREADS];
    pthread_t threads[OP_THREADS];
    for (int i = 0; i < OP_THREADS; i++) {
        workers[i] = (op_worker){c.f.backend, i % 2 == 0 ? c.id : "op-many-2", i, 0};
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, exec_many, &workers[i]) == 0);
    }
    for (int i = 0; i < OP_THREADS; i++) {
        pthread_join(threads[i], NULL);
        CU_ASSERT_EQUAL(workers[i].wrong, 0);
    }
    CU_ASSERT_EQUAL(sbx_backend_destroy(c.f.backend, "op-many-2", &err), SBX_OK);
    contract_case_finish(&c);
}

const CU_TestInfo operations_contract_cases[] = {
    {"commands answer their exit codes; a missing program exits 127",
     test_commands_answer_their_exit_codes},
    {"a signal ends a command: signaled, not an error", test_a_signal_ends_a_command},
    {"timeouts end commands; 0 is the default; above the largest is refused",
     test_timeouts_end_commands},
    {"output past the cap is cut and flagged", test_output_past_the_cap_is_cut},
    {"NUL bytes in output are kept", test_output_bytes_are_kept},
    {"stdin reaches the command", test_stdin_reaches_the_command},
    {"environment values are passed, never spliced; bad names refused",
     test_environment_is_passed_not_spliced},
    {"working directory and relative paths agree", test_working_directory_and_relative_paths_agree},
    {"files keep every byte, by offset and in pieces", test_files_keep_every_byte},
    {"path errors are told apart", test_path_errors_are_told_apart},
    {"listings and removal", test_listings_and_removal},
    {"a gone sandbox is not found by any operation", test_a_gone_sandbox_is_not_found},
    {"concurrent commands keep their own output", test_concurrent_commands_keep_their_output},
    CU_TEST_INFO_NULL,
};
