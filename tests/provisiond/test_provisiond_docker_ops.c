/* The remote backend's sandbox operations through sbx-provisiond over the
 * docker backend, on the private engine docker-suite.sh starts (podman or
 * dockerd, the same expectations on both): the deployment of
 * docs/provisiond.md "A sandbox from a plain image", where the containers
 * run a plain image with nothing serving in them and the daemon's sandbox
 * API (remote -> sbx-provisiond -> docker) is the only way in.  Exec exit
 * codes, streams, env and signals; a timeout that ends the command and
 * its children; binary files byte-exact both ways; path errors, a gone
 * sandbox and a bad env name as the errors a user of the docker backend
 * directly sees. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/docker_engine.h"
#include "tests/support/remote_helpers.h"

#define SANDBOX "plain"
/* Far beyond what any call takes on a loaded machine; the expected path
 * takes well under a second. */
#define DEADLINE_MS 60000L

static const char *engine_socket;
static const char *engine_image;
static provd_local daemon_dir;
static sbx_host *host;
static sbx_backend *backend;

/* The daemon over the engine, the remote backend on it, and the sandbox
 * the tests share, created as the docs' client creates it: made by the
 * first test that runs (its failures are CUnit's), kept for the others.
 * Returns whether they are there. */
static int ready(void)
{
    static int tried, made;
    if (tried)
        return made;
    tried = 1;
    if (!provd_docker_start_plain(&daemon_dir, engine_socket, engine_image, NULL))
        return 0;
    sbx_error err;
    /* A create on a loaded engine may take longer than the remote
     * backend's default 30 s. */
    const sbx_option patient[] = {{"timeout_ms", "180000"}};
    backend = sbx_test_open_remote(&host, provd_url(daemon_dir.proc), NULL, patient, 1, &err);
    if (backend == NULL) {
        fprintf(stderr, "open remote: %s\n", err.message);
        CU_FAIL("cannot open the remote backend");
        return 0;
    }
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = SANDBOX;
    req.user_id = "alice";
    req.thread_id = "t1";
    sbx_sandbox *sb = NULL;
    sbx_status st = sbx_backend_create(backend, &req, &sb, &err);
    CU_ASSERT_EQUAL(st, SBX_OK);
    if (st != SBX_OK) {
        fprintf(stderr, "create: %s\n", err.message);
        return 0;
    }
    /* Its URL is the daemon's sandbox API, the only way into it. */
    made = strncmp(sb->sandbox_url, provd_url(daemon_dir.proc),
                   strlen(provd_url(daemon_dir.proc))) == 0 &&
           strstr(sb->sandbox_url, "/s/") != NULL;
    CU_ASSERT_TRUE(made);
    sbx_backend_free_sandboxes(backend, sb, 1);
    return made;
}

/* Destroy the sandbox, stop the daemon: it must exit 0.  Also the
 * suite's cleanup (a daemon left by a failed test goes too). */
static void test_the_sandbox_goes_and_the_daemon_exits_0(void)
{
    sbx_error err;
    if (backend != NULL)
        CU_ASSERT_EQUAL(sbx_backend_destroy(backend, SANDBOX, &err), SBX_OK);
    sbx_backend_close(backend);
    sbx_host_free(host);
    backend = NULL;
    host = NULL;
    if (daemon_dir.proc != NULL)
        CU_ASSERT_EQUAL(provd_local_stop(&daemon_dir, 0), 0);
}

static int suite_clean(void)
{
    sbx_backend_close(backend);
    sbx_host_free(host);
    if (daemon_dir.proc != NULL)
        provd_local_stop(&daemon_dir, 0);
    return 0;
}

/* Run shell text `command` in `id` with `env` and `timeout_ms`; *st is
 * the call's status, the result NULL unless it is SBX_OK. */
static sbx_exec_result *run_in(const char *id, const char *command, const sbx_env_var *env,
                               size_t env_count, int64_t timeout_ms, sbx_status *st)
{
    sbx_exec_result *r;
    sbx_error err;
    sbx_test_command shell = { command, env, env_count, timeout_ms };
    *st = sbx_test_shell(backend, id, &shell, &r, &err);
    if (*st != SBX_OK && *st != SBX_ERR_NOT_FOUND && *st != SBX_ERR_USAGE)
        fprintf(stderr, "exec '%s': %s: %s\n", command, sbx_status_name(*st), err.message);
    return r;
}

/* Run `command` in the shared sandbox, which must answer. */
static sbx_exec_result *run(const char *command, int64_t timeout_ms)
{
    sbx_status st;
    sbx_exec_result *r = run_in(SANDBOX, command, NULL, 0, timeout_ms, &st);
    CU_ASSERT_EQUAL(st, SBX_OK);
    return r;
}

/* How many processes in the sandbox have `pattern` (a shell case pattern)
 * in their command line, counted by a command in the sandbox; -1 when
 * that command does not answer. */
static int processes_with(const char *pattern)
{
    char command[512];
    snprintf(command, sizeof command,
             "n=0; for p in /proc/[0-9]*; do read -r l < $p/cmdline 2>/dev/null || continue; "
             "case \"$l\" in *%s*) n=$((n+1));; esac; done; echo $n",
             pattern);
    sbx_exec_result *r = run(command, 0);
    int n = r != NULL && r->outcome == SBX_EXEC_EXITED ? atoi(r->stdout_data) : -1;
    sbx_backend_free_exec_result(backend, r);
    return n;
}

static void test_a_plain_image_runs_commands_with_their_exits_streams_and_env(void)
{
    if (!ready())
        return;
    static const struct {
        const char *command;
        sbx_exec_outcome outcome;
        int code;
    } exits[] = {{"true", SBX_EXEC_EXITED, 0},
                 {"exit 1", SBX_EXEC_EXITED, 1},
                 {"exit 255", SBX_EXEC_EXITED, 255},
                 {"no-such-program-x", SBX_EXEC_EXITED, 127},
                 {"kill -9 $$", SBX_EXEC_SIGNALED, -1}};
    for (size_t i = 0; i < sizeof exits / sizeof exits[0]; i++) {
        sbx_exec_result *r = run(exits[i].command, 0);
        CU_ASSERT(r != NULL && r->outcome == exits[i].outcome);
        if (r != NULL && exits[i].outcome == SBX_EXEC_EXITED)
            CU_ASSERT_EQUAL(r->exit_code, exits[i].code);
        if (r != NULL && exits[i].outcome == SBX_EXEC_SIGNALED)
            CU_ASSERT_EQUAL(r->term_signal, 9);
        sbx_backend_free_exec_result(backend, r);
    }
    /* The docs' example: a command of the image's own, in the container. */
    sbx_exec_result *r = run("echo out; echo err >&2; exit 3", 0);
    CU_ASSERT(r != NULL && r->exit_code == 3 && strcmp(r->stdout_data, "out\n") == 0 &&
              strcmp(r->stderr_data, "err\n") == 0);
    sbx_backend_free_exec_result(backend, r);
    /* Env values reach the command verbatim: nothing is spliced. */
    const sbx_env_var env[] = {{"GREETING", "a b;$(echo no)'\"\n`x`"}, {"EMPTY", ""}};
    sbx_status st;
    r = run_in(SANDBOX, "printf '%s|%s' \"$GREETING\" \"${EMPTY-unset}\"", env, 2, 0, &st);
    CU_ASSERT_EQUAL(st, SBX_OK);
    CU_ASSERT(r != NULL && strcmp(r->stdout_data, "a b;$(echo no)'\"\n`x`|") == 0);
    sbx_backend_free_exec_result(backend, r);
    /* A name the environment cannot hold is the caller's error. */
    const sbx_env_var bad[] = {{"NO-DASH", "x"}};
    r = run_in(SANDBOX, "true", bad, 1, 0, &st);
    CU_ASSERT_EQUAL(st, SBX_ERR_USAGE);
    CU_ASSERT_PTR_NULL(r);
    sbx_backend_free_exec_result(backend, r);
}

static void test_a_timeout_ends_the_command_and_its_children(void)
{
    if (!ready())
        return;
    long start = sbx_test_now_ms();
    sbx_exec_result *r = run("sleep 4111 & sleep 4112; echo never", 3000);
    CU_ASSERT(r != NULL && r->outcome == SBX_EXEC_TIMED_OUT);
    CU_ASSERT(r != NULL && strstr(r->stdout_data, "never") == NULL);
    CU_ASSERT(sbx_test_now_ms() - start >= 3000 && sbx_test_now_ms() - start < DEADLINE_MS);
    sbx_backend_free_exec_result(backend, r);
    /* Nothing of it is left in the container (the backend kills before it
     * answers; the loop only guards against a slow /proc). */
    long deadline = sbx_test_now_ms() + DEADLINE_MS;
    int left;
    while ((left = processes_with("411[1-2]")) != 0 && sbx_test_now_ms() < deadline)
        ;
    CU_ASSERT_EQUAL(left, 0);
    /* The sandbox still answers at once. */
    r = run("echo after", 0);
    CU_ASSERT(r != NULL && strcmp(r->stdout_data, "after\n") == 0);
    sbx_backend_free_exec_result(backend, r);
}

static void test_binary_files_travel_byte_exact_both_ways(void)
{
    if (!ready())
        return;
    enum { SIZE = 256 * 1024 };
    unsigned char *bytes = malloc(SIZE);
    CU_ASSERT_FATAL(bytes != NULL);
    for (size_t i = 0; i < SIZE; i++)
        bytes[i] = (unsigned char)((i * 7 + i / 256) % 256);   /* every value, NUL too */
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_write_file(backend, SANDBOX, "/tmp/in/blob.bin", bytes, SIZE,
                                           SBX_WRITE_MKDIRS, 0600, &err),
                    SBX_OK);
    /* The container sees the bytes the client wrote. */
    sbx_exec_result *r = run("wc -c < /tmp/in/blob.bin; od -An -tx1 -N4 /tmp/in/blob.bin", 0);
    CU_ASSERT(r != NULL && strstr(r->stdout_data, "262144") != NULL &&
              strstr(r->stdout_data, "00 07 0e 15") != NULL);
    sbx_backend_free_exec_result(backend, r);
    sbx_file_content *c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(backend, SANDBOX, "/tmp/in/blob.bin", 0, SIZE, &c,
                                          &err),
                    SBX_OK);
    CU_ASSERT(c != NULL && c->length == SIZE && !c->truncated &&
              memcmp(c->data, bytes, SIZE) == 0);
    sbx_backend_free_file_content(backend, c);
    /* A range, and a cap below the size: truncated. */
    c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(backend, SANDBOX, "/tmp/in/blob.bin", 1000, 100, &c,
                                          &err),
                    SBX_OK);
    CU_ASSERT(c != NULL && c->length == 100 && c->truncated &&
              memcmp(c->data, bytes + 1000, 100) == 0);
    sbx_backend_free_file_content(backend, c);
    free(bytes);
    /* Bytes the container made (NULs and bytes that are not UTF-8) come
     * back as they are. */
    r = run("printf 'a\\000b\\377\\376\\n' > /tmp/made.bin", 0);
    sbx_backend_free_exec_result(backend, r);
    c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(backend, SANDBOX, "/tmp/made.bin", 0, 1 << 20, &c,
                                          &err),
                    SBX_OK);
    CU_ASSERT(c != NULL && c->length == 6 && memcmp(c->data, "a\0b\377\376\n", 6) == 0);
    sbx_backend_free_file_content(backend, c);
    sbx_dir_listing *l = NULL;
    CU_ASSERT_EQUAL(sbx_backend_list_dir(backend, SANDBOX, "/tmp/in", 1, 100, &l, &err), SBX_OK);
    int listed = 0;
    for (const sbx_dir_entry *e = l != NULL ? l->entries : NULL; e != NULL; e = e->next)
        listed += strstr(e->path, "blob.bin") != NULL && e->type == SBX_FILE_REGULAR &&
                  e->size == SIZE;
    CU_ASSERT_EQUAL(listed, 1);
    sbx_backend_free_listing(backend, l);
    CU_ASSERT_EQUAL(
        sbx_backend_remove_path(backend, SANDBOX, "/tmp/in", SBX_REMOVE_RECURSIVE, &err), SBX_OK);
    r = run("test -e /tmp/in", 0);
    CU_ASSERT(r != NULL && r->exit_code == 1);
    sbx_backend_free_exec_result(backend, r);
}

static void test_path_errors_and_a_gone_sandbox_are_the_callers_errors(void)
{
    if (!ready())
        return;
    sbx_error err;
    sbx_file_content *c = NULL;
    CU_ASSERT_EQUAL(sbx_backend_read_file(backend, SANDBOX, "/no/such/file", 0, 10, &c, &err),
                    SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_EQUAL(sbx_backend_read_file(backend, SANDBOX, "/etc", 0, 10, &c, &err),
                    SBX_ERR_IS_A_DIRECTORY);
    sbx_dir_listing *l = NULL;
    CU_ASSERT_EQUAL(sbx_backend_list_dir(backend, SANDBOX, "/etc/hostname", 1, 10, &l, &err),
                    SBX_ERR_NOT_A_DIRECTORY);
    CU_ASSERT_EQUAL(sbx_backend_write_file(backend, SANDBOX, "/etc/hostname", "x", 1,
                                           SBX_WRITE_EXCLUSIVE, 0644, &err),
                    SBX_ERR_EXISTS);
    CU_ASSERT_EQUAL(sbx_backend_write_file(backend, SANDBOX, "/no/such/dir/f", "x", 1, 0, 0644,
                                           &err),
                    SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NULL(l);
    /* A sandbox that never was, and one destroyed: not found, for exec
     * and files alike. */
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "plain-gone";
    req.user_id = "alice";
    sbx_sandbox *sb = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_create(backend, &req, &sb, &err), SBX_OK);
    sbx_backend_free_sandboxes(backend, sb, 1);
    CU_ASSERT_EQUAL(sbx_backend_destroy(backend, "plain-gone", &err), SBX_OK);
    const char *const gone[] = {"plain-gone", "plain-never"};
    for (size_t i = 0; i < 2; i++) {
        sbx_status st;
        sbx_exec_result *r = run_in(gone[i], "true", NULL, 0, 0, &st);
        CU_ASSERT_EQUAL(st, SBX_ERR_NOT_FOUND);
        CU_ASSERT_PTR_NULL(r);
        CU_ASSERT_EQUAL(sbx_backend_read_file(backend, gone[i], "/etc/hostname", 0, 10, &c,
                                              &err),
                        SBX_ERR_NOT_FOUND);
        CU_ASSERT_EQUAL(sbx_backend_write_file(backend, gone[i], "/tmp/x", "x", 1, 0, 0644,
                                               &err),
                        SBX_ERR_NOT_FOUND);
    }
}

void sbx_test_register(void)
{
    sbx_test_docker_engine(&engine_socket, &engine_image);
    static const CU_TestInfo tests[] = {
        {"a plain image runs commands with their exits, streams and env",
         test_a_plain_image_runs_commands_with_their_exits_streams_and_env},
        {"a timeout ends the command and its children",
         test_a_timeout_ends_the_command_and_its_children},
        {"binary files travel byte-exact both ways",
         test_binary_files_travel_byte_exact_both_ways},
        {"path errors and a gone sandbox are the caller's errors",
         test_path_errors_and_a_gone_sandbox_are_the_callers_errors},
        {"the sandbox goes and the daemon exits 0", test_the_sandbox_goes_and_the_daemon_exits_0},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote -> sbx-provisiond -> docker, a plain image", NULL,
                       suite_clean, tests);
}
