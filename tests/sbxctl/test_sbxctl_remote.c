/* sbxctl end to end: `--backend remote` against the provisioner emulator
 * (a real process on 127.0.0.1), every command as a user runs it. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/sbxctl/run_sbxctl.h"
#include "tests/sbxctl/sbxctl_checks.h"
#include "tests/support/cunit_main.h"
#include "tests/support/emulator.h"

#define ARGS SBX_TEST_ARGS

/* The id derived from thread "th-1" of the default user and of "alice"
 * (sbxctl(1), SANDBOX IDS; computed independently). */
#define TH1_DEFAULT_ID "0b415aece4ed938c"
#define TH1_ALICE_ID "06ee6a9723b9e3f3"

#define RIGHT_KEY "emu-key-7f3a9c2e51"
#define WRONG_KEY "wrong-key-04d8b6e1aa"

/* Run sbxctl --backend remote --set provisioner_url=<emu> [extra...] ARGS. */
static void run_remote(sbx_test_run *run, sbx_test_emu *emu, const char *const *extra,
                       const char *const *args)
{
    sbx_test_sbxctl_remote(run, sbx_test_emu_url(emu), extra, args);
}

static sbx_test_emu *start_emu(const char *const *args)
{
    static const char *const no_args[] = {NULL};
    sbx_test_emu *emu = sbx_test_emu_start(args != NULL ? args : no_args);
    CU_ASSERT_PTR_NOT_NULL(emu);
    return emu;
}

/* Run a --json command expected to succeed; returns its object (caller puts). */
static json_object *run_json(sbx_test_emu *emu, const char *const *args, int exit_code)
{
    sbx_test_run run;
    run_remote(&run, emu, ARGS("--json"), args);
    CU_ASSERT_EQUAL(run.exit_code, exit_code);
    if (run.exit_code != exit_code)
        fprintf(stderr, "exit %d, stderr [%s]\n", run.exit_code, run.err);
    json_object *object = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL(object);
    sbx_test_run_clear(&run);
    return object;
}

/* A record of create, discover or list: the five members of a sandbox,
 * its status, the members of ABI 1.2, which the provisioner's answers
 * do not carry (null), and the labels and expiry of ABI 1.5. */
static void assert_sandbox_shape(json_object *sandbox, const char *sandbox_id);
static void assert_record_shape(json_object *record, const char *sandbox_id)
{
    CU_ASSERT_TRUE_FATAL(json_object_is_type(record, json_type_object));
    CU_ASSERT_EQUAL(json_object_object_length(record), 16);
    /* ABI 1.5's labels: none set, an empty object */
    json_object *labels = NULL;
    CU_ASSERT(json_object_object_get_ex(record, "labels", &labels) &&
              json_object_is_type(labels, json_type_object) &&
              json_object_object_length(labels) == 0);
    CU_ASSERT_PTR_NOT_NULL(sbx_test_json_string(record, "status"));
    static const char *const unknown[] = {"created_at", "incarnation_id", "container_id",
                                          "container_name", "engine", "engine_version",
                                          "directory", "pid", "expires_at"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        CU_ASSERT_TRUE(sbx_test_json_is_null(record, unknown[i]));
        if (!sbx_test_json_is_null(record, unknown[i]))
            fprintf(stderr, "member %s is not null\n", unknown[i]);
    }
    json_object *sandbox = json_object_new_object();
    json_object_object_foreach(record, key, value) {
        static const char *const base[] = {"sandbox_id", "sandbox_url", "user_id",
                                           "thread_id", "mount_contract_version"};
        for (size_t i = 0; i < sizeof base / sizeof base[0]; i++)
            if (strcmp(key, base[i]) == 0)
                json_object_object_add(sandbox, key, json_object_get(value));
    }
    assert_sandbox_shape(sandbox, sandbox_id);
    json_object_put(sandbox);
}

/* A sandbox object (reconcile's) with exactly the five members sbxctl(1)
 * documents. */
static void assert_sandbox_shape(json_object *sandbox, const char *sandbox_id)
{
    CU_ASSERT_TRUE_FATAL(json_object_is_type(sandbox, json_type_object));
    CU_ASSERT_EQUAL(json_object_object_length(sandbox), 5);
    sbx_test_assert_json_string(sandbox, "sandbox_id", sandbox_id);
    const char *url = sbx_test_json_string(sandbox, "sandbox_url");
    CU_ASSERT_TRUE(url != NULL && strncmp(url, "http", 4) == 0);
    static const char *const optional[] = {"user_id", "thread_id", "mount_contract_version"};
    for (size_t i = 0; i < 3; i++) {
        json_object *value = NULL;
        CU_ASSERT_TRUE(json_object_object_get_ex(sandbox, optional[i], &value));
    }
}

/* The body of the last POST /api/sandboxes the emulator received (caller puts). */
static json_object *last_create_body(sbx_test_emu *emu)
{
    json_object *log = sbx_test_emu_requests(emu);
    json_object *requests = log != NULL ? json_object_object_get(log, "requests") : NULL;
    json_object *body = NULL;
    for (size_t i = 0; requests != NULL && i < json_object_array_length(requests); i++) {
        json_object *request = json_object_array_get_idx(requests, i);
        const char *method = sbx_test_json_string(request, "method");
        const char *path = sbx_test_json_string(request, "path");
        const char *text = sbx_test_json_string(request, "body");
        if (method != NULL && path != NULL && text != NULL && strcmp(method, "POST") == 0 &&
            strcmp(path, "/api/sandboxes") == 0) {
            json_object_put(body);
            body = json_tokener_parse(text);
        }
    }
    json_object_put(log);
    return body;
}

/* ------------------------------------------------------------ create */

static void test_create_derives_a_stable_id(void)
{
    sbx_test_emu *emu = start_emu(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);

    json_object *first = run_json(emu, ARGS("create", "--thread", "th-1"), 0);
    json_object *second = run_json(emu, ARGS("create", "--thread", "th-1"), 0);
    if (first != NULL && second != NULL) {
        assert_record_shape(first, TH1_DEFAULT_ID);
        assert_record_shape(second, TH1_DEFAULT_ID);
        const char *url1 = sbx_test_json_string(first, "sandbox_url");
        const char *url2 = sbx_test_json_string(second, "sandbox_url");
        CU_ASSERT_STRING_EQUAL(url1 != NULL ? url1 : "", url2 != NULL ? url2 : "-");
    }
    json_object_put(first);
    json_object_put(second);

    /* The same thread maps to the same sandbox: one in the list. */
    json_object *list = run_json(emu, ARGS("list"), 0);
    CU_ASSERT_EQUAL(sbx_test_json_int(list, "count", -1), 1);
    json_object_put(list);

    json_object *body = last_create_body(emu);
    CU_ASSERT_PTR_NOT_NULL(body);
    sbx_test_assert_json_string(body, "sandbox_id", TH1_DEFAULT_ID);
    sbx_test_assert_json_string(body, "thread_id", "th-1");
    json_object_put(body);
    sbx_test_emu_stop(emu);
}

/* Contract 2 isolates a thread's data: a named user with a thread is
 * served, and the echo checked.  (Contract 1 refuses it: see
 * test_contract_1_refuses_a_named_user_with_a_thread.) */
static void test_create_with_identity_echo(void)
{
    sbx_test_emu *emu = start_emu(ARGS("--contract", "2"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);

    json_object *sandbox =
        run_json(emu, ARGS("create", "--thread", "th-1", "--user", "alice"), 0);
    if (sandbox != NULL) {
        assert_record_shape(sandbox, TH1_ALICE_ID);
        sbx_test_assert_json_string(sandbox, "user_id", "alice");
        sbx_test_assert_json_string(sandbox, "thread_id", "th-1");
        CU_ASSERT_EQUAL(sbx_test_json_int(sandbox, "mount_contract_version", -1), 2);
    }
    json_object_put(sandbox);

    /* Human output: key: value lines. */
    sbx_test_run run;
    run_remote(&run, emu, NULL, ARGS("create", "--thread", "th-1", "--user", "alice"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "sandbox_id: " TH1_ALICE_ID "\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "user_id: alice\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "thread_id: th-1\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "mount_contract_version: 2\n"));
    CU_ASSERT_EQUAL(run.err_len, 0);
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

/* Contract 1 isolates a user's mounts but not a thread's data: a named user
 * with a thread is refused before anything is sent (exit 6), naming the
 * contract; without a thread the same user is served. */
static void test_contract_1_refuses_a_named_user_with_a_thread(void)
{
    sbx_test_emu *emu = start_emu(ARGS("--contract", "1"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    sbx_test_run run;
    run_remote(&run, emu, NULL, ARGS("create", "--thread", "th-1", "--user", "alice"));
    CU_ASSERT_EQUAL(run.exit_code, 6);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "cannot isolate user 'alice'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "version 1"));
    sbx_test_run_clear(&run);
    CU_ASSERT_EQUAL(sbx_test_emu_received(emu, "create"), 0);
    run_remote(&run, emu, NULL, ARGS("create", "--id", "solo-1", "--user", "alice"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "user_id: alice\n"));
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

static void test_anonymous_create_sends_null_thread(void)
{
    sbx_test_emu *emu = start_emu(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);

    json_object *sandbox = run_json(emu, ARGS("create", "--id", "anon-1"), 0);
    if (sandbox != NULL) {
        assert_record_shape(sandbox, "anon-1");
        CU_ASSERT_TRUE(sbx_test_json_is_null(sandbox, "thread_id"));
    }
    json_object_put(sandbox);

    json_object *body = last_create_body(emu);
    CU_ASSERT_PTR_NOT_NULL(body);
    CU_ASSERT_TRUE(body != NULL && sbx_test_json_is_null(body, "thread_id"));
    json_object_put(body);
    sbx_test_emu_stop(emu);
}

static void test_create_flags_and_mounts_are_sent(void)
{
    sbx_test_emu *emu = start_emu(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);

    sbx_test_run run;
    run_remote(&run, emu, NULL,
               ARGS("create", "--id", "flags-1", "--legacy-skills", "--lark-broker",
                    "--mount", "/state/ws:/mnt/acp-workspace:ro", "--mount",
                    "/state/a:b:/mnt/skills/integrations:rw"));
    sbx_test_run_clear(&run);

    json_object *body = last_create_body(emu);
    CU_ASSERT_PTR_NOT_NULL_FATAL(body);
    CU_ASSERT_TRUE(sbx_test_json_true(body, "include_legacy_skills"));
    CU_ASSERT_TRUE(sbx_test_json_true(body, "provision_lark_cli_broker"));
    CU_ASSERT_FALSE(sbx_test_json_true(body, "provision_lark_cli_runtime"));
    json_object *mounts = json_object_object_get(body, "extra_mounts");
    CU_ASSERT_TRUE(json_object_is_type(mounts, json_type_array) &&
                   json_object_array_length(mounts) == 2);
    if (json_object_is_type(mounts, json_type_array) && json_object_array_length(mounts) == 2) {
        json_object *mount = json_object_array_get_idx(mounts, 0);
        sbx_test_assert_json_string(mount, "host_path", "/state/ws");
        sbx_test_assert_json_string(mount, "container_path", "/mnt/acp-workspace");
        CU_ASSERT_TRUE(sbx_test_json_true(mount, "read_only"));
        /* The container path is the last field: the host path keeps its ':'. */
        mount = json_object_array_get_idx(mounts, 1);
        sbx_test_assert_json_string(mount, "host_path", "/state/a:b");
        sbx_test_assert_json_string(mount, "container_path", "/mnt/skills/integrations");
        CU_ASSERT_FALSE(sbx_test_json_true(mount, "read_only"));
    }
    json_object_put(body);
    sbx_test_emu_stop(emu);
}

/* Isolation (docs/remote.md rule 2): refused before anything is sent. */
static void test_create_for_another_user_on_legacy_is_refused(void)
{
    sbx_test_emu *emu = start_emu(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    sbx_test_run run;
    run_remote(&run, emu, ARGS("--json"), ARGS("create", "--thread", "th-1", "--user", "alice"));
    sbx_test_assert_failure(&run, 6, "refused", "alice");
    json_object *failure = sbx_test_assert_json_failure(&run, "refused");
    if (failure != NULL) /* the provisioner said version 0: do not retry */
        CU_ASSERT_EQUAL(sbx_test_json_int(json_object_object_get(failure, "error"), "actual",
                                          -1), 0);
    json_object_put(failure);
    CU_ASSERT_EQUAL(sbx_test_emu_received(emu, "create"), 0);
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

/* Isolation when the contract cannot be verified: still refused (fail
 * closed), but the error carries the probe's cause (here a wrong key) and
 * "actual": null, so that a script tells it from a legacy provisioner. */
static void test_unverified_refusal_names_the_probe_failure(void)
{
    sbx_test_emu *emu = start_emu(ARGS("--contract", "2", "--api-key", "right-key-1234"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    sbx_test_run run;
    run_remote(&run, emu, ARGS("--json", "--set", "api_key=wrong-key-5678"),
               ARGS("create", "--thread", "th-1", "--user", "alice"));
    sbx_test_assert_failure(&run, 6, "refused", "alice");
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "unverified"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "unauthorized"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "HTTP 401"));
    json_object *failure = sbx_test_assert_json_failure(&run, "refused");
    if (failure != NULL)
        CU_ASSERT_TRUE(sbx_test_json_is_null(json_object_object_get(failure, "error"),
                                             "actual"));
    json_object_put(failure);
    CU_ASSERT_EQUAL(sbx_test_emu_received(emu, "create"), 0);
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

static void test_required_contract_mismatch_exits_5(void)
{
    sbx_test_emu *emu = start_emu(ARGS("--contract", "1"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    sbx_test_run run;
    run_remote(&run, emu, ARGS("--json"),
               ARGS("create", "--thread", "th-1", "--user", "alice", "--require-contract", "2"));
    sbx_test_assert_failure(&run, 5, "contract_changed", "");
    json_object *failure = sbx_test_assert_json_failure(&run, "contract_changed");
    if (failure != NULL) {
        json_object *error = json_object_object_get(failure, "error");
        CU_ASSERT_EQUAL(sbx_test_json_int(error, "expected", -1), 2);
        CU_ASSERT_EQUAL(sbx_test_json_int(error, "actual", -1), 1);
        CU_ASSERT_TRUE(sbx_test_json_is_null(error, "http_status"));
    }
    json_object_put(failure);
    CU_ASSERT_EQUAL(sbx_test_emu_received(emu, "create"), 0);
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

static void test_provisioner_error_exits_9(void)
{
    sbx_test_emu *emu = start_emu(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    int answer = sbx_test_emu_fault(emu, "{\"route\":\"create\",\"action\":\"respond\","
                                         "\"status\":500,\"body\":"
                                         "\"{\\\"detail\\\":\\\"Pod creation failed: quota\\\"}\"}");
    CU_ASSERT_TRUE(answer >= 200 && answer < 300);
    sbx_test_run run;
    run_remote(&run, emu, ARGS("--json"), ARGS("create", "--thread", "th-1"));
    sbx_test_assert_failure(&run, 9, "provisioner", "Pod creation failed: quota");
    json_object *failure = sbx_test_assert_json_failure(&run, "provisioner");
    if (failure != NULL)
        CU_ASSERT_EQUAL(sbx_test_json_int(json_object_object_get(failure, "error"), "http_status", -1),
                        500);
    json_object_put(failure);
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

static void test_garbage_answer_exits_4(void)
{
    sbx_test_emu *emu = start_emu(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    int answer = sbx_test_emu_fault(emu, "{\"route\":\"get\",\"action\":\"garbage\"}");
    CU_ASSERT_TRUE(answer >= 200 && answer < 300);
    sbx_test_run run;
    run_remote(&run, emu, NULL, ARGS("discover", "sb-1"));
    sbx_test_assert_failure(&run, 4, "protocol", "");
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

/* ------------------------------------------------------------ queries */

static void test_alive_answers_by_exit_code(void)
{
    sbx_test_emu *emu = start_emu(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    json_object_put(run_json(emu, ARGS("create", "--id", "live-1"), 0));

    json_object *alive = run_json(emu, ARGS("alive", "live-1"), 0);
    CU_ASSERT_EQUAL(json_object_object_length(alive), 2);
    sbx_test_assert_json_string(alive, "sandbox_id", "live-1");
    CU_ASSERT_TRUE(sbx_test_json_true(alive, "alive"));
    json_object_put(alive);

    json_object *gone = run_json(emu, ARGS("alive", "never-made"), 1);
    CU_ASSERT_PTR_NOT_NULL(gone);
    CU_ASSERT_FALSE(sbx_test_json_true(gone, "alive"));
    json_object_put(gone);

    sbx_test_run run;
    run_remote(&run, emu, NULL, ARGS("alive", "never-made"));
    CU_ASSERT_EQUAL(run.exit_code, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "alive: no\n"));
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

static void test_discover_found_and_not_found(void)
{
    sbx_test_emu *emu = start_emu(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    json_object_put(run_json(emu, ARGS("create", "--thread", "th-1"), 0));

    json_object *sandbox = run_json(emu, ARGS("discover", TH1_DEFAULT_ID), 0);
    if (sandbox != NULL)
        assert_record_shape(sandbox, TH1_DEFAULT_ID);
    json_object_put(sandbox);

    sbx_test_run run;
    run_remote(&run, emu, ARGS("--json"), ARGS("discover", "never-made"));
    sbx_test_assert_failure(&run, 1, "not_found", "never-made");
    json_object_put(sbx_test_assert_json_failure(&run, "not_found"));
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

static void test_list_human_and_json(void)
{
    sbx_test_emu *emu = start_emu(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    json_object_put(run_json(emu, ARGS("create", "--thread", "th-1"), 0));
    json_object_put(run_json(emu, ARGS("create", "--id", "second-sandbox-with-a-long-id"), 0));

    sbx_test_run run;
    run_remote(&run, emu, NULL, ARGS("list"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_EQUAL(sbx_test_count_lines(run.out), 3);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, TH1_DEFAULT_ID " "));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "second-sandbox-with-a-long-id "));
    sbx_test_assert_list_table(run.out);
    sbx_test_run_clear(&run);

    json_object *list = run_json(emu, ARGS("list"), 0);
    CU_ASSERT_EQUAL(json_object_object_length(list), 2);
    CU_ASSERT_EQUAL(sbx_test_json_int(list, "count", -1), 2);
    json_object *sandboxes = json_object_object_get(list, "sandboxes");
    CU_ASSERT_TRUE(json_object_is_type(sandboxes, json_type_array) &&
                   json_object_array_length(sandboxes) == 2);
    for (size_t i = 0; i < json_object_array_length(sandboxes); i++) {
        json_object *entry = json_object_array_get_idx(sandboxes, i);
        assert_record_shape(entry, sbx_test_json_string(entry, "sandbox_id"));
    }
    json_object_put(list);
    sbx_test_emu_stop(emu);
}

static void test_capabilities(void)
{
    sbx_test_emu *emu = start_emu(ARGS("--contract", "2"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    json_object *caps = run_json(emu, ARGS("capabilities"), 0);
    CU_ASSERT_EQUAL(json_object_object_length(caps), 2);
    CU_ASSERT_EQUAL(sbx_test_json_int(caps, "mount_contract_version", -1), 2);
    CU_ASSERT_TRUE(sbx_test_json_true(caps, "known"));
    json_object_put(caps);

    sbx_test_run run;
    run_remote(&run, emu, NULL, ARGS("capabilities"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "mount_contract_version: 2\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "known: yes\n"));
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

static void test_reconcile_found_absent_unknown(void)
{
    sbx_test_emu *emu = start_emu(ARGS("--contract", "1"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    json_object_put(run_json(emu, ARGS("create", "--thread", "th-1"), 0));

    json_object *found = run_json(emu, ARGS("reconcile", TH1_DEFAULT_ID), 0);
    if (found != NULL) {
        CU_ASSERT_EQUAL(json_object_object_length(found), 4);
        sbx_test_assert_json_string(found, "status", "found");
        assert_sandbox_shape(json_object_object_get(found, "sandbox"), TH1_DEFAULT_ID);
        CU_ASSERT_PTR_NOT_NULL(sbx_test_json_string(found, "backend_namespace"));
        CU_ASSERT_PTR_NOT_NULL(sbx_test_json_string(found, "incarnation_id"));
    }
    json_object_put(found);

    json_object *absent = run_json(emu, ARGS("reconcile", "never-made"), 1);
    if (absent != NULL) {
        sbx_test_assert_json_string(absent, "status", "absent");
        CU_ASSERT_TRUE(sbx_test_json_is_null(absent, "sandbox"));
        CU_ASSERT_PTR_NOT_NULL(sbx_test_json_string(absent, "backend_namespace"));
        CU_ASSERT_TRUE(sbx_test_json_is_null(absent, "incarnation_id"));
    }
    json_object_put(absent);
    sbx_test_emu_stop(emu);

    /* A provisioner without the route: nothing authoritative. */
    emu = start_emu(ARGS("--no-reconciliation"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    json_object *unknown = run_json(emu, ARGS("reconcile", "whatever"), 1);
    sbx_test_assert_json_string(unknown, "status", "unknown");
    CU_ASSERT_TRUE(sbx_test_json_is_null(unknown, "sandbox"));
    json_object_put(unknown);

    sbx_test_run run;
    run_remote(&run, emu, NULL, ARGS("reconcile", "whatever"));
    CU_ASSERT_EQUAL(run.exit_code, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "reconciliation: unknown\n"));
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

static void test_destroy(void)
{
    sbx_test_emu *emu = start_emu(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    json_object_put(run_json(emu, ARGS("create", "--id", "doomed-1"), 0));

    json_object *destroyed = run_json(emu, ARGS("destroy", "doomed-1"), 0);
    CU_ASSERT_EQUAL(json_object_object_length(destroyed), 2);
    sbx_test_assert_json_string(destroyed, "sandbox_id", "doomed-1");
    CU_ASSERT_TRUE(sbx_test_json_true(destroyed, "destroyed"));
    json_object_put(destroyed);

    json_object_put(run_json(emu, ARGS("alive", "doomed-1"), 1));

    /* Destroying what is gone succeeds. */
    sbx_test_run run;
    run_remote(&run, emu, NULL, ARGS("destroy", "doomed-1"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "destroyed: yes\n"));
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

/* Backend log lines: warnings always, the rest only with -v. */
static void test_log_lines_follow_verbosity(void)
{
    sbx_test_emu *emu = start_emu(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    /* A list entry without a sandbox_id: the backend skips it with a warning. */
    CU_ASSERT_EQUAL(sbx_test_emu_control(emu, "PUT", "/_emu/sandboxes/broken",
                                         "{\"status\":\"Running\"}", NULL),
                    200);

    sbx_test_run run;
    run_remote(&run, emu, NULL, ARGS("list"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "sbxctl: [remote] warn: "));
    CU_ASSERT_PTR_NULL(strstr(run.err, "] debug: "));
    CU_ASSERT_EQUAL(sbx_test_count_lines(run.out), 1);
    sbx_test_run_clear(&run);

    run_remote(&run, emu, ARGS("-v"), ARGS("list"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "sbxctl: [remote] warn: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "sbxctl: [remote] debug: "));
    sbx_test_run_clear(&run);

    /* A quiet success prints nothing on stderr. */
    run_remote(&run, emu, NULL, ARGS("create", "--thread", "th-1"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_EQUAL(run.err_len, 0);
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

/* ------------------------------------------------------------ the API key */

static void test_wrong_key_is_unauthorized_and_never_printed(void)
{
    sbx_test_emu *emu = start_emu(ARGS("--api-key", RIGHT_KEY));
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);

    sbx_test_run run;
    run_remote(&run, emu, ARGS("-v", "--json", "--set", "api_key=" WRONG_KEY), ARGS("list"));
    sbx_test_assert_failure(&run, 7, "unauthorized", "");
    json_object *failure = sbx_test_assert_json_failure(&run, "unauthorized");
    if (failure != NULL)
        CU_ASSERT_EQUAL(sbx_test_json_int(json_object_object_get(failure, "error"), "http_status", -1),
                        401);
    json_object_put(failure);
    CU_ASSERT_TRUE(sbx_test_run_hides(&run, WRONG_KEY));
    CU_ASSERT_TRUE(sbx_test_run_hides(&run, RIGHT_KEY));
    sbx_test_run_clear(&run);

    run_remote(&run, emu, ARGS("-v", "--set", "api_key=" WRONG_KEY),
               ARGS("create", "--thread", "th-1"));
    CU_ASSERT_EQUAL(run.exit_code, 7);
    CU_ASSERT_TRUE(sbx_test_run_hides(&run, WRONG_KEY));
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

static void test_right_key_works_and_is_never_printed(void)
{
    sbx_test_emu *emu = start_emu(ARGS("--api-key", RIGHT_KEY));
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);

    const char *const *const commands[] = {
        (const char *const[]){"create", "--thread", "th-1", NULL},
        (const char *const[]){"alive", TH1_DEFAULT_ID, NULL},
        (const char *const[]){"discover", TH1_DEFAULT_ID, NULL},
        (const char *const[]){"list", NULL},
        (const char *const[]){"capabilities", NULL},
        (const char *const[]){"reconcile", TH1_DEFAULT_ID, NULL},
        (const char *const[]){"destroy", TH1_DEFAULT_ID, NULL},
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        sbx_test_run run;
        run_remote(&run, emu, ARGS("-v", "--set", "api_key=" RIGHT_KEY), commands[i]);
        CU_ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1);
        CU_ASSERT_TRUE(sbx_test_run_hides(&run, RIGHT_KEY));
        sbx_test_run_clear(&run);
    }

    /* The key did reach the provisioner. */
    json_object *log = sbx_test_emu_requests(emu);
    json_object *requests = log != NULL ? json_object_object_get(log, "requests") : NULL;
    CU_ASSERT_TRUE(requests != NULL && json_object_array_length(requests) > 0);
    for (size_t i = 0; requests != NULL && i < json_object_array_length(requests); i++) {
        sbx_test_assert_json_string(json_object_array_get_idx(requests, i), "api_key",
                                    RIGHT_KEY);
    }
    json_object_put(log);
    sbx_test_emu_stop(emu);
}

/* --set api_key_file=FILE: the key of a file only its owner may open is
 * sent and never printed; one open to others is refused with the file's
 * name (not masked as a secret's value) and the fix. */
static void test_key_from_a_file_works_and_a_loose_file_is_named(void)
{
    sbx_test_emu *emu = start_emu(ARGS("--api-key", RIGHT_KEY));
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    char dir[] = "/tmp/sbx-ctl-key-XXXXXX", path[64], setting[80];
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/api.key", dir);
    snprintf(setting, sizeof setting, "api_key_file=%s", path);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(RIGHT_KEY "\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(chmod(path, 0600), 0);
    sbx_test_run run;
    run_remote(&run, emu, ARGS("-v", "--set", setting), ARGS("list"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_TRUE(sbx_test_run_hides(&run, RIGHT_KEY));
    sbx_test_run_clear(&run);
    CU_ASSERT_EQUAL(chmod(path, 0644), 0);
    run_remote(&run, emu, ARGS("-v", "--set", setting), ARGS("list"));
    CU_ASSERT_EQUAL(run.exit_code, 2);
    CU_ASSERT_PTR_NOT_NULL(run.err != NULL ? strstr(run.err, path) : NULL);
    CU_ASSERT_PTR_NOT_NULL(run.err != NULL ? strstr(run.err, "run chmod 600 on it") : NULL);
    CU_ASSERT_TRUE(sbx_test_run_hides(&run, RIGHT_KEY));
    sbx_test_run_clear(&run);
    unlink(path);
    rmdir(dir);
    sbx_test_emu_stop(emu);
}

/* ---------------------------------------- results are printed exactly */

/* The value of the line "KEY: VALUE" of plain output `out`, into buf[cap]
 * ("" when there is no such line). */
static const char *plain_value(const char *out, const char *key, char *buf, size_t cap)
{
    size_t key_len = strlen(key);
    buf[0] = '\0';
    for (const char *line = out; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        if (len > key_len + 1 && strncmp(line, key, key_len) == 0 && line[key_len] == ':' &&
            line[key_len + 1] == ' ') {
            snprintf(buf, cap, "%.*s", (int)(len - key_len - 2), line + key_len + 2);
            break;
        }
        line = end != NULL ? end + 1 : NULL;
    }
    return buf;
}

/* Assert the plain line "KEY: VALUE" of `run` is exactly `expected`. */
static void assert_plain(const sbx_test_run *run, const char *key, const char *expected)
{
    char value[256];
    plain_value(run->out, key, value, sizeof value);
    CU_ASSERT_STRING_EQUAL(value, expected);
    if (strcmp(value, expected) != 0)
        fprintf(stderr, "%s: [%s], expected [%s]\n", key, value, expected);
}

/* The cells of the row of sandbox `sandbox_id` in the plain `list` table
 * `out`, into cells[7] (SANDBOX_ID STATUS CREATED USER THREAD CONTRACT URL,
 * none of which holds a space here); the number found, 0 without the row. */
static size_t list_cells(const char *out, const char *sandbox_id, char cells[7][128])
{
    size_t id_len = strlen(sandbox_id);
    for (const char *line = out; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        if (strncmp(line, sandbox_id, id_len) == 0 && line[id_len] == ' ') {
            size_t n = 0;
            for (const char *at = line; at < end && n < 7;) {
                size_t len = strcspn(at, " \n");
                snprintf(cells[n++], sizeof cells[0], "%.*s", (int)len, at);
                at += len;
                at += strspn(at, " ");
            }
            return n;
        }
        line = end != NULL ? end + 1 : NULL;
    }
    return 0;
}

/* Non-zero when `word` stands in `text` as a whole word (no letter,
 * digit, '-' or '_' touching it): how a short secret is masked. */
static int holds_word(const char *text, const char *word)
{
    size_t len = strlen(word);
    for (const char *at = strstr(text, word); at != NULL; at = strstr(at + 1, word)) {
        unsigned char before = at > text ? (unsigned char)at[-1] : ' ';
        unsigned char after = (unsigned char)at[len];
        if (!isalnum(before) && before != '-' && before != '_' && !isalnum(after) &&
            after != '-' && after != '_')
            return 1;
    }
    return 0;
}

/* A sandbox whose printed fields share characters with the API key. */
typedef struct exact_case {
    const char *key;        /* the provisioner's and sbxctl's api_key */
    const char *node_host;  /* the host of its URL */
    const char *sandbox_id;
    const char *user_id;
    const char *thread_id;
} exact_case;

/* One sbxctl run of `args` with `c`'s key and -v, which must exit
 * `exit_code` and never show the key in free text: not on stderr, where
 * the log lines go, as a whole word (a key of 8 bytes or more: at all). */
static void run_with_key(sbx_test_run *run, sbx_test_emu *emu, const exact_case *c, int json,
                         const char *const *args, int exit_code)
{
    char setting[128];
    snprintf(setting, sizeof setting, "api_key=%s", c->key);
    if (json)
        run_remote(run, emu, ARGS("-v", "--json", "--set", setting), args);
    else
        run_remote(run, emu, ARGS("-v", "--set", setting), args);
    CU_ASSERT_EQUAL(run->exit_code, exit_code);
    int leaked = strlen(c->key) >= 8 ? strstr(run->err, c->key) != NULL
                                     : holds_word(run->err, c->key);
    CU_ASSERT_FALSE(leaked);
    if (run->exit_code != exit_code || leaked)
        fprintf(stderr, "exit %d, stdout [%s] stderr [%s]\n", run->exit_code, run->out,
                run->err);
}

/* run_with_key with --json: the object printed (caller puts), or NULL. */
static json_object *json_with_key(sbx_test_emu *emu, const exact_case *c,
                                  const char *const *args, int exit_code)
{
    sbx_test_run run;
    run_with_key(&run, emu, c, 1, args, exit_code);
    json_object *object = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL(object);
    sbx_test_run_clear(&run);
    return object;
}

/* Every command of `c`'s sandbox, JSON and plain, prints its fields as
 * the provisioner answered them. */
static void assert_commands_print_exactly(const exact_case *c)
{
    sbx_test_emu *emu = start_emu(ARGS("--api-key", c->key, "--contract", "2", "--node-host",
                                       c->node_host));
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    /* The URL is the emulator's: http://NODE_HOST:PORT. */
    char url[160];
    snprintf(url, sizeof url, "http://%s:", c->node_host);
    size_t url_prefix_len = strlen(url);
    /* create twice (the second finds it), then discover. */
    const char *const *const shown[] = {
        ARGS("create", "--id", c->sandbox_id, "--user", c->user_id, "--thread", c->thread_id),
        ARGS("create", "--id", c->sandbox_id, "--user", c->user_id, "--thread", c->thread_id),
        ARGS("discover", c->sandbox_id),
    };
    for (size_t i = 0; i < sizeof shown / sizeof shown[0]; i++) {
        json_object *object = json_with_key(emu, c, shown[i], 0);
        if (i == 0) {
            const char *printed = sbx_test_json_string(object, "sandbox_url");
            CU_ASSERT_TRUE(printed != NULL && strncmp(printed, url, url_prefix_len) == 0);
            snprintf(url, sizeof url, "%s", printed != NULL ? printed : "");
        }
        sbx_test_assert_json_string(object, "sandbox_id", c->sandbox_id);
        sbx_test_assert_json_string(object, "sandbox_url", url);
        sbx_test_assert_json_string(object, "user_id", c->user_id);
        sbx_test_assert_json_string(object, "thread_id", c->thread_id);
        sbx_test_assert_json_string(object, "status", "Running");
        json_object_put(object);

        sbx_test_run run;
        run_with_key(&run, emu, c, 0, shown[i], 0);
        assert_plain(&run, "sandbox_id", c->sandbox_id);
        assert_plain(&run, "sandbox_url", url);
        assert_plain(&run, "user_id", c->user_id);
        assert_plain(&run, "thread_id", c->thread_id);
        assert_plain(&run, "status", "Running");
        sbx_test_run_clear(&run);
    }

    /* list: the provisioner's entries carry no user or thread. */
    json_object *list = json_with_key(emu, c, ARGS("list"), 0);
    json_object *entry = json_object_array_get_idx(json_object_object_get(list, "sandboxes"), 0);
    sbx_test_assert_json_string(entry, "sandbox_id", c->sandbox_id);
    sbx_test_assert_json_string(entry, "sandbox_url", url);
    sbx_test_assert_json_string(entry, "status", "Running");
    json_object_put(list);
    sbx_test_run run;
    run_with_key(&run, emu, c, 0, ARGS("list"), 0);
    char cells[7][128];
    CU_ASSERT_EQUAL(list_cells(run.out, c->sandbox_id, cells), 7);
    CU_ASSERT_STRING_EQUAL(cells[0], c->sandbox_id);
    CU_ASSERT_STRING_EQUAL(cells[1], "Running");
    CU_ASSERT_STRING_EQUAL(cells[6], url);
    sbx_test_run_clear(&run);

    json_object *alive = json_with_key(emu, c, ARGS("alive", c->sandbox_id), 0);
    sbx_test_assert_json_string(alive, "sandbox_id", c->sandbox_id);
    json_object_put(alive);
    run_with_key(&run, emu, c, 0, ARGS("alive", c->sandbox_id), 0);
    assert_plain(&run, "sandbox_id", c->sandbox_id);
    sbx_test_run_clear(&run);

    /* destroy twice (the second finds it gone): both name it exactly. */
    json_object *destroyed = json_with_key(emu, c, ARGS("destroy", c->sandbox_id), 0);
    sbx_test_assert_json_string(destroyed, "sandbox_id", c->sandbox_id);
    json_object_put(destroyed);
    run_with_key(&run, emu, c, 0, ARGS("destroy", c->sandbox_id), 0);
    assert_plain(&run, "sandbox_id", c->sandbox_id);
    sbx_test_run_clear(&run);
    sbx_test_emu_stop(emu);
}

/* The class of issue 20: every run of min(4, key length) characters of the
 * key was masked in everything sbxctl printed, so "keep-me" printed as
 * "***eep-me" with the key "k", and "sb-real-1" as "sb-***-1" with
 * "realkey".  Ids, URLs, users, threads and statuses holding the key
 * whole, a piece of it, or sharing a piece with it now print exactly. */
static void test_fields_sharing_the_key_print_exactly(void)
{
    static const exact_case cases[] = {
        {"k", "k.example", "keep-me", "kim", "k"},
        {"realkey", "realkey.internal", "sb-real-1", "realkey-user", "th-realkey"},
        {"unni", "unni", "sb-unni-2", "gunnit", "th-unni"},   /* a piece of "Running" */
        {RIGHT_KEY, "emu-key.test", "emu-key-7f3a", "key-7f3a9c2e", "7f3a9c2e51"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_commands_print_exactly(&cases[i]);
}

/* A 64-hex key holding an 8-character piece of the derived ids of th-0 to
 * th-7 (of the default user), as a random key does for about 1.5% of
 * ids: those were printed mangled, and a script destroying the printed id
 * left the sandbox running. */
#define HEX_KEY "a215daea5aece4edc3fde62160f0405a38a9bde44aefbc67fcde4804ce8bf475"
#define HEX_THREADS 24
#define HEX_SEEDED 8   /* th-0 to th-7 share a piece with HEX_KEY */

/* Derived ids print exactly whatever they share with the key: create's id
 * is the one sent to the provisioner, list shows each, and destroying the
 * printed ids leaves none running. */
static void test_derived_ids_print_exactly_under_a_hex_key(void)
{
    const exact_case c = {HEX_KEY, "127.0.0.1", NULL, NULL, NULL};
    sbx_test_emu *emu = start_emu(ARGS("--api-key", HEX_KEY, "--contract", "2"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    char ids[HEX_THREADS][64];
    for (size_t i = 0; i < HEX_THREADS; i++) {
        char thread[16];
        snprintf(thread, sizeof thread, "th-%zu", i);
        json_object *record = json_with_key(emu, &c, ARGS("create", "--thread", thread), 0);
        const char *printed = sbx_test_json_string(record, "sandbox_id");
        snprintf(ids[i], sizeof ids[i], "%s", printed != NULL ? printed : "");
        json_object_put(record);
        json_object *body = last_create_body(emu);
        sbx_test_assert_json_string(body, "sandbox_id", ids[i]);
        json_object_put(body);
        if (i < HEX_SEEDED) {
            char piece[9];
            snprintf(piece, sizeof piece, "%.8s", ids[i] + 4);
            CU_ASSERT_PTR_NOT_NULL(strstr(HEX_KEY, piece));
        }
        sbx_test_run run;
        run_with_key(&run, emu, &c, 0, ARGS("discover", ids[i]), 0);
        assert_plain(&run, "sandbox_id", ids[i]);
        sbx_test_run_clear(&run);
    }

    sbx_test_run run;
    run_with_key(&run, emu, &c, 0, ARGS("list"), 0);
    CU_ASSERT_EQUAL(sbx_test_count_lines(run.out), HEX_THREADS + 1);
    for (size_t i = 0; i < HEX_THREADS; i++) {
        char cells[7][128];
        CU_ASSERT_EQUAL(list_cells(run.out, ids[i], cells), 7);
    }
    sbx_test_run_clear(&run);

    for (size_t i = 0; i < HEX_THREADS; i++) {
        json_object *destroyed = json_with_key(emu, &c, ARGS("destroy", ids[i]), 0);
        sbx_test_assert_json_string(destroyed, "sandbox_id", ids[i]);
        json_object_put(destroyed);
    }
    json_object *list = json_with_key(emu, &c, ARGS("list"), 0);
    CU_ASSERT_EQUAL(sbx_test_json_int(list, "count", -1), 0);
    json_object_put(list);
    sbx_test_emu_stop(emu);
}

void sbx_test_register(void)
{
    static const CU_TestInfo create_tests[] = {
        {"derived id stable across runs", test_create_derives_a_stable_id},
        {"identity echo (contract 2)", test_create_with_identity_echo},
        {"contract 1 refuses a named user with a thread",
         test_contract_1_refuses_a_named_user_with_a_thread},
        {"anonymous create sends null thread", test_anonymous_create_sends_null_thread},
        {"flags and mounts are sent", test_create_flags_and_mounts_are_sent},
        {"other user on legacy refused (6)", test_create_for_another_user_on_legacy_is_refused},
        {"unverified refusal names the probe failure",
         test_unverified_refusal_names_the_probe_failure},
        {"required contract mismatch (5)", test_required_contract_mismatch_exits_5},
        {"provisioner error (9)", test_provisioner_error_exits_9},
        {"garbage answer (4)", test_garbage_answer_exits_4},
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo query_tests[] = {
        {"alive exit 0 / 1", test_alive_answers_by_exit_code},
        {"discover found / not found", test_discover_found_and_not_found},
        {"list human and json", test_list_human_and_json},
        {"capabilities", test_capabilities},
        {"reconcile found / absent / unknown", test_reconcile_found_absent_unknown},
        {"destroy", test_destroy},
        {"log lines follow -v", test_log_lines_follow_verbosity},
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo key_tests[] = {
        {"wrong key: exit 7, never printed", test_wrong_key_is_unauthorized_and_never_printed},
        {"right key: never printed, sent", test_right_key_works_and_is_never_printed},
        {"key from a file; a loose file named",
         test_key_from_a_file_works_and_a_loose_file_is_named},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbxctl remote create", NULL, NULL, create_tests);
    sbx_test_add_suite("sbxctl remote queries", NULL, NULL, query_tests);
    static const CU_TestInfo exact_tests[] = {
        {"fields sharing the key print exactly", test_fields_sharing_the_key_print_exactly},
        {"derived ids print exactly under a hex key",
         test_derived_ids_print_exactly_under_a_hex_key},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbxctl remote API key", NULL, NULL, key_tests);
    sbx_test_add_suite("sbxctl remote results are exact", NULL, NULL, exact_tests);
}
