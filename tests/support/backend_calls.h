/* Test support: the backend calls the backend suites (local, docker,
 * provisiond) make over and over, through the public host library
 * (<sbx/host.h>). */
#ifndef SBX_TEST_BACKEND_CALLS_H
#define SBX_TEST_BACKEND_CALLS_H

#include <stddef.h>
#include <stdint.h>
#include <sbx/host.h>

/* Create sandbox `id` for `thread` and `user` (NULL: absent), without
 * extra mounts.  Returns the sandbox (release with
 * sbx_backend_free_sandboxes(b, sb, 1)), or NULL with `err` filled. */
sbx_sandbox *sbx_test_create(sbx_backend *b, const char *id, const char *thread,
                             const char *user, sbx_error *err);

/* is_alive(`id`), asserting (non-fatally) that the call succeeds: its
 * answer, or -1 when the backend did not set one. */
int sbx_test_is_alive(sbx_backend *b, const char *id);

/* A shell command for sbx_test_shell: shell text with `env_count` `env`
 * (borrowed; NULL when none) and `timeout_ms` (0: the backend's default). */
typedef struct sbx_test_command {
    const char *text;
    const sbx_env_var *env;
    size_t env_count;
    int64_t timeout_ms;
} sbx_test_command;

/* Run `command` in sandbox `id`.  Returns the call's status; *result is
 * the result (release with sbx_backend_free_exec_result(b, ...)), NULL
 * unless SBX_OK, and `err` says why otherwise. */
sbx_status sbx_test_shell(sbx_backend *b, const char *id, const sbx_test_command *command,
                          sbx_exec_result **result, sbx_error *err);

/* Run shell text `text` in sandbox `id` with `timeout_ms` (0: the
 * backend's default): the result (release with
 * sbx_backend_free_exec_result(b, ...)).  Fatal (CU_ASSERT_FATAL, the
 * error on stderr) when the exec cannot run. */
sbx_exec_result *sbx_test_shell_ok(sbx_backend *b, const char *id, const char *text,
                                   int64_t timeout_ms);

/* Destroy every sandbox `b` lists (list_records), as a fixture does before
 * it removes its state directory: a sandbox left there keeps its holder
 * (isolation=namespaces) running until its directory goes.  Best effort:
 * a test that left a sandbox destroy refuses sees it in the program's
 * count of holders left (holders_left.h). */
void sbx_test_destroy_all(sbx_backend *b);

/* The same for the local backend's state directory `state_dir`, whose
 * sandboxes another process (sbxctl, sbx-provisiond) created. */
void sbx_test_destroy_local_sandboxes(const char *state_dir);

#endif
