/* The host library's session cases (<sbx/session.h>) on one backend's
 * sandbox, shared by the suites that run them: tests/host/test_sessions.c
 * on local, tests/remote/test_remote_sessions.c on remote (emulator),
 * tests/docker/test_docker_sessions.c on docker. */
#ifndef SBX_TESTS_SESSION_CASES_H
#define SBX_TESTS_SESSION_CASES_H

#include <stdint.h>
#include <sbx/host.h>

/* Where the cases run.  The suite owns it and its backend. */
typedef struct session_cases_target {
    /* Called by each case before it starts: opens the backend and its
     * sandbox the first time (inside a test, whose checks are assertions)
     * and sets backend and sandbox_id. */
    void (*need)(struct session_cases_target *target);
    sbx_backend *backend;
    const char *sandbox_id;
    /* 0 when bytes that are not UTF-8 reach the host as U+FFFD cut to the
     * bytes they stand for (the AIO wire's JSON text: remote). */
    int keeps_invalid_utf8;
    /* The sessions' interrupt_grace_ms where a case sets none (0: the
     * library's).  Remote closes a shell after it (the wire cannot close
     * stdin), so its suite takes a shorter one. */
    int64_t interrupt_grace_ms;
    /* The commands of "many commands", and the threads of "many sessions
     * on many threads" (at most 6) with the commands each runs (0: 200, 6
     * and 15).  A backend whose every process call is an engine's exec
     * takes fewer. */
    int many_commands, threads, thread_runs;
} session_cases_target;

/* Add the cases as CUnit suite `name` on `target` (borrowed for the
 * program's life; one target per program), `cleanup` run after them. */
void session_cases_add_suite(const char *name, session_cases_target *target,
                             int (*cleanup)(void));

#endif
