/* Interoperability: the remote backend, through the C API and through
 * sbxctl, against the real DeerFlow provisioner (mount contract 2,
 * capabilities, reconciliation, its 409s, 401s and Kubernetes faults), as a
 * user deploying sbx in front of it would see.  One provisioner serves the
 * whole suite; its control API injects faults, delays and Pod phases.
 * Skips (exit 77, with the reason) where the provisioner cannot run. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/interop/deerflow_provisioner.h"
#include "tests/sbxctl/sbxctl_checks.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/remote_helpers.h"

#define KEY "interop-key-5c1e9a7d"

static sbx_test_deerflow provisioner;
static sbx_host *host;
static sbx_backend *backend;

static int suite_init(void)
{
    if (!sbx_test_deerflow_start(&provisioner, KEY))
        return 1;
    sbx_error err;
    backend = sbx_test_open_remote(&host, provisioner.url, KEY, NULL, 0, &err);
    if (backend == NULL) {
        fprintf(stderr, "open remote: %s\n", err.message);
        return 1;
    }
    return 0;
}

static int suite_cleanup(void)
{
    sbx_backend_close(backend);
    sbx_host_free(host);
    sbx_test_deerflow_stop(&provisioner);
    return 0;
}

/* Run sbxctl --backend remote against the provisioner with `key` (NULL:
 * the right one) and `args`. */
static void sbxctl(sbx_test_run *run, const char *key, const char *const *args)
{
    char key_setting[96];
    snprintf(key_setting, sizeof key_setting, "api_key=%s", key != NULL ? key : KEY);
    sbx_test_sbxctl_remote(run, provisioner.url, SBX_TEST_ARGS("--set", key_setting), args);
}

/* Run sbxctl with the right key and expect `exit_code` and, when not NULL,
 * each of the NULL-terminated `lines` in its stdout. */
static void sbxctl_expect(const char *const *args, int exit_code, const char *const *lines)
{
    sbx_test_run run;
    sbxctl(&run, NULL, args);
    CU_ASSERT_EQUAL(run.exit_code, exit_code);
    for (size_t i = 0; lines != NULL && lines[i] != NULL; i++)
        CU_ASSERT_PTR_NOT_NULL(strstr(run.out, lines[i]));
    sbx_test_run_clear(&run);
}

/* Create `id` for `user` (NULL: default) and `thread` through the C API. */
static sbx_status create(const char *id, const char *user, const char *thread,
                         sbx_sandbox **out, sbx_error *err)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.user_id = user;
    req.thread_id = thread;
    return sbx_backend_create(backend, &req, out, err);
}

/* The sandbox of `list` whose id is `id`, or NULL. */
static const sbx_sandbox *find(const sbx_sandbox *list, size_t count, const char *id)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(list[i].sandbox_id, id) == 0)
            return &list[i];
    return NULL;
}

static void test_capabilities(void)
{
    sbx_capabilities caps;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_capabilities(backend, &caps, &err), SBX_OK);
    CU_ASSERT_EQUAL(caps.known, 1);
    CU_ASSERT_EQUAL(caps.mount_contract_version, 2);
    sbxctl_expect(SBX_TEST_ARGS("capabilities"), 0, SBX_TEST_ARGS("mount_contract_version: 2\n"));
}

/* Create as the default user and as alice, then everything a host asks of
 * them: alive, discover (with the identity), list (every one, with its
 * URL), reconcile (found, then absent after destroy). */
static void test_lifecycle_through_the_c_api(void)
{
    sbx_sandbox *anon = NULL, *alice = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(create("c-default-1", NULL, NULL, &anon, &err), SBX_OK);
    CU_ASSERT_EQUAL_FATAL(create("c-alice-1", "alice", "thread-a", &alice, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(anon->user_id, "default");
    CU_ASSERT_EQUAL(anon->mount_contract_version, 2);
    CU_ASSERT_STRING_EQUAL(alice->user_id, "alice");
    CU_ASSERT_STRING_EQUAL(alice->thread_id, "thread-a");
    CU_ASSERT_EQUAL(strncmp(alice->sandbox_url, "http://127.0.0.1:", 17), 0);

    int alive = -1;
    CU_ASSERT_EQUAL(sbx_backend_is_alive(backend, "c-alice-1", &alive, &err), SBX_OK);
    CU_ASSERT_EQUAL(alive, 1);

    sbx_sandbox *found = NULL;
    CU_ASSERT_EQUAL(sbx_backend_discover(backend, "c-alice-1", &found, &err), SBX_OK);
    if (found != NULL) {
        CU_ASSERT_STRING_EQUAL(found->user_id, "alice");
        CU_ASSERT_STRING_EQUAL(found->thread_id, "thread-a");
        CU_ASSERT_STRING_EQUAL(found->sandbox_url, alice->sandbox_url);
        CU_ASSERT_EQUAL(found->mount_contract_version, 2);
    }
    sbx_backend_free_sandboxes(backend, found, found != NULL);

    /* The real list sends the identity as null: every entry still counts. */
    sbx_sandbox *list = NULL;
    size_t count = 0;
    CU_ASSERT_EQUAL(sbx_backend_list_running(backend, &list, &count, &err), SBX_OK);
    const sbx_sandbox *a = find(list, count, "c-default-1"), *b = find(list, count, "c-alice-1");
    CU_ASSERT_PTR_NOT_NULL(a);
    CU_ASSERT_PTR_NOT_NULL(b);
    if (a != NULL && b != NULL) {
        CU_ASSERT_STRING_EQUAL(a->sandbox_url, anon->sandbox_url);
        CU_ASSERT_STRING_EQUAL(b->sandbox_url, alice->sandbox_url);
        CU_ASSERT_STRING_EQUAL(b->status, "Running");
        CU_ASSERT_PTR_NULL(b->user_id);
        CU_ASSERT_EQUAL(b->mount_contract_version, SBX_CONTRACT_NONE);
    }
    sbx_backend_free_sandboxes(backend, list, count);

    sbx_reconciliation r;
    CU_ASSERT_EQUAL(sbx_backend_reconcile(backend, "c-alice-1", &r, &err), SBX_OK);
    CU_ASSERT_EQUAL(r.status, SBX_RECONCILE_FOUND);
    CU_ASSERT_PTR_NOT_NULL(r.backend_namespace);
    CU_ASSERT_PTR_NOT_NULL(r.incarnation_id);
    CU_ASSERT_PTR_NOT_NULL(r.sandbox);
    if (r.sandbox != NULL) {
        CU_ASSERT_STRING_EQUAL(r.sandbox->user_id, "alice");
        CU_ASSERT_STRING_EQUAL(r.sandbox->sandbox_url, alice->sandbox_url);
    }
    char namespace_uid[128] = "";
    if (r.backend_namespace != NULL)
        snprintf(namespace_uid, sizeof namespace_uid, "%s", r.backend_namespace);
    sbx_backend_clear_reconciliation(backend, &r);

    CU_ASSERT_EQUAL(sbx_backend_destroy(backend, "c-alice-1", &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_reconcile(backend, "c-alice-1", &r, &err), SBX_OK);
    CU_ASSERT_EQUAL(r.status, SBX_RECONCILE_ABSENT);
    if (r.backend_namespace != NULL)
        CU_ASSERT_STRING_EQUAL(r.backend_namespace, namespace_uid);
    sbx_backend_clear_reconciliation(backend, &r);
    CU_ASSERT_EQUAL(sbx_backend_discover(backend, "c-alice-1", &found, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(sbx_backend_is_alive(backend, "c-alice-1", &alive, &err), SBX_OK);
    CU_ASSERT_EQUAL(alive, 0);
    CU_ASSERT_EQUAL(sbx_backend_destroy(backend, "c-default-1", &err), SBX_OK);

    sbx_backend_free_sandboxes(backend, anon, 1);
    sbx_backend_free_sandboxes(backend, alice, 1);
}

/* The same through sbxctl, as a script would drive it. */
static void test_lifecycle_through_sbxctl(void)
{
    sbx_test_run run;
    sbxctl(&run, NULL, SBX_TEST_ARGS("--json", "create", "--id", "s-alice-1", "--user", "alice",
                                     "--thread", "thread-s"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    json_object *created = sbx_test_run_json(&run);
    sbx_test_run_clear(&run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(created);
    sbx_test_assert_json_string(created, "user_id", "alice");
    sbx_test_assert_json_string(created, "thread_id", "thread-s");
    const char *url = sbx_test_json_string(created, "sandbox_url");

    sbxctl_expect(SBX_TEST_ARGS("alive", "s-alice-1"), 0, NULL);
    sbxctl_expect(SBX_TEST_ARGS("discover", "s-alice-1"), 0,
                  SBX_TEST_ARGS("user_id: alice\n", "thread_id: thread-s\n"));

    sbxctl(&run, NULL, SBX_TEST_ARGS("--json", "list"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    json_object *list = sbx_test_run_json(&run);
    sbx_test_run_clear(&run);
    json_object *items = NULL;
    int listed = 0;
    if (list != NULL && json_object_object_get_ex(list, "sandboxes", &items))
        for (size_t i = 0; i < json_object_array_length(items); i++) {
            json_object *entry = json_object_array_get_idx(items, i);
            const char *id = sbx_test_json_string(entry, "sandbox_id");
            if (id != NULL && strcmp(id, "s-alice-1") == 0 && url != NULL) {
                listed = 1;
                sbx_test_assert_json_string(entry, "sandbox_url", url);
            }
        }
    CU_ASSERT_TRUE(listed);
    json_object_put(list);

    sbxctl(&run, NULL, SBX_TEST_ARGS("--json", "reconcile", "s-alice-1"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    json_object *r = sbx_test_run_json(&run);
    sbx_test_run_clear(&run);
    sbx_test_assert_json_string(r, "status", "found");
    CU_ASSERT_PTR_NOT_NULL(sbx_test_json_string(r, "backend_namespace"));
    CU_ASSERT_PTR_NOT_NULL(sbx_test_json_string(r, "incarnation_id"));
    json_object_put(r);

    /* Another user asking for alice's sandbox: the provisioner's 409 is a
     * refusal (exit 6) naming its detail, never a server fault. */
    sbxctl(&run, NULL, SBX_TEST_ARGS("create", "--id", "s-alice-1", "--user", "bob",
                                     "--thread", "thread-s"));
    sbx_test_assert_failure(&run, 6, "refused", "belongs to another user");
    sbx_test_run_clear(&run);

    sbxctl_expect(SBX_TEST_ARGS("destroy", "s-alice-1"), 0, NULL);
    sbxctl_expect(SBX_TEST_ARGS("reconcile", "s-alice-1"), 1,
                  SBX_TEST_ARGS("reconciliation: absent\n"));
    sbxctl(&run, NULL, SBX_TEST_ARGS("discover", "s-alice-1"));
    sbx_test_assert_failure(&run, 1, "not_found", "s-alice-1");
    sbx_test_run_clear(&run);
    json_object_put(created);
}

/* The C API sees the same refusal. */
static void test_another_users_sandbox_is_refused(void)
{
    sbx_sandbox *mine = NULL, *theirs = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(create("c-owned-1", "alice", "t-owned", &mine, &err), SBX_OK);
    CU_ASSERT_EQUAL(create("c-owned-1", "mallory", "t-owned", &theirs, &err), SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NULL(theirs);
    CU_ASSERT_EQUAL(err.http_status, 409);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "belongs to another user"));
    CU_ASSERT_EQUAL(create("c-owned-1", "alice", "t-other", &theirs, &err), SBX_ERR_REFUSED);
    CU_ASSERT_EQUAL(sbx_backend_destroy(backend, "c-owned-1", &err), SBX_OK);
    sbx_backend_free_sandboxes(backend, mine, 1);
}

static void test_wrong_key_is_unauthorized(void)
{
    sbx_test_run run;
    sbxctl(&run, "not-the-key-0000", SBX_TEST_ARGS("list"));
    sbx_test_assert_failure(&run, 7, "unauthorized", "401");
    CU_ASSERT_TRUE(sbx_test_run_hides(&run, "not-the-key-0000"));
    sbx_test_run_clear(&run);
}

static void test_pending_pod_is_not_alive(void)
{
    CU_ASSERT_FATAL(sbx_test_deerflow_control(&provisioner, "/phase", "{\"phase\":\"Pending\"}"));
    sbx_sandbox *sb = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(create("c-pending-1", NULL, NULL, &sb, &err), SBX_OK);
    int alive = -1;
    CU_ASSERT_EQUAL(sbx_backend_is_alive(backend, "c-pending-1", &alive, &err), SBX_OK);
    CU_ASSERT_EQUAL(alive, 0);
    sbxctl_expect(SBX_TEST_ARGS("alive", "c-pending-1"), 1, NULL);
    CU_ASSERT(sbx_test_deerflow_control(&provisioner, "/phase", "{\"phase\":\"Running\"}"));
    CU_ASSERT_EQUAL(sbx_backend_is_alive(backend, "c-pending-1", &alive, &err), SBX_OK);
    CU_ASSERT_EQUAL(alive, 1);
    CU_ASSERT_EQUAL(sbx_backend_destroy(backend, "c-pending-1", &err), SBX_OK);
    sbx_backend_free_sandboxes(backend, sb, sb != NULL);
}

static void test_kubernetes_fault_is_a_provisioner_error(void)
{
    CU_ASSERT_FATAL(sbx_test_deerflow_control(
        &provisioner, "/faults", "{\"op\":\"create_pod\",\"status\":500,\"count\":2}"));
    sbx_sandbox *sb = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(create("c-fault-1", NULL, NULL, &sb, &err), SBX_ERR_PROVISIONER);
    CU_ASSERT_EQUAL(err.http_status, 500);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "Pod creation failed"));
    sbx_test_run run;
    sbxctl(&run, NULL, SBX_TEST_ARGS("create", "--id", "c-fault-1"));
    sbx_test_assert_failure(&run, 9, "provisioner", "Pod creation failed");
    sbx_test_run_clear(&run);
    CU_ASSERT(sbx_test_deerflow_control(&provisioner, "/faults", NULL));
}

/* A provisioner slower than our timeout: the call fails as transport
 * within the bound, not whenever the peer answers. */
static void test_slow_provisioner_is_bounded(void)
{
    sbx_sandbox *sb = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(create("c-slow-1", NULL, NULL, &sb, &err), SBX_OK);
    CU_ASSERT_FATAL(sbx_test_deerflow_control(&provisioner, "/delays",
                                              "{\"op\":\"read_pod\",\"seconds\":5}"));
    CU_ASSERT_FATAL(sbx_test_deerflow_control(&provisioner, "/delays",
                                              "{\"op\":\"read_service\",\"seconds\":5}"));
    sbx_test_run run;
    long start = sbx_test_now_ms();
    sbxctl(&run, NULL, SBX_TEST_ARGS("--set", "timeout_ms=500", "alive", "c-slow-1"));
    long took = sbx_test_now_ms() - start;
    sbx_test_assert_failure(&run, 3, "transport", "timed out");
    CU_ASSERT(took < 4000);
    sbx_test_run_clear(&run);
    CU_ASSERT(sbx_test_deerflow_control(&provisioner, "/delays",
                                        "{\"op\":\"read_pod\",\"seconds\":0}"));
    CU_ASSERT(sbx_test_deerflow_control(&provisioner, "/delays",
                                        "{\"op\":\"read_service\",\"seconds\":0}"));
    CU_ASSERT_EQUAL(sbx_backend_destroy(backend, "c-slow-1", &err), SBX_OK);
    sbx_backend_free_sandboxes(backend, sb, sb != NULL);
}

/* A Pod whose Service is gone: found, without an address, so that it can
 * still be adopted or removed by its incarnation. */
static void test_half_deleted_sandbox_is_found_without_address(void)
{
    sbx_sandbox *sb = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(create("c-half-1", NULL, NULL, &sb, &err), SBX_OK);
    CU_ASSERT_FATAL(sbx_test_deerflow_control(&provisioner, "/faults",
                                              "{\"op\":\"read_service\",\"status\":404}"));
    sbx_reconciliation r;
    CU_ASSERT_EQUAL(sbx_backend_reconcile(backend, "c-half-1", &r, &err), SBX_OK);
    CU_ASSERT_EQUAL(r.status, SBX_RECONCILE_FOUND);
    CU_ASSERT_PTR_NULL(r.sandbox);
    CU_ASSERT_PTR_NOT_NULL(r.incarnation_id);
    sbx_backend_clear_reconciliation(backend, &r);
    sbxctl_expect(SBX_TEST_ARGS("reconcile", "c-half-1"), 0,
                  SBX_TEST_ARGS("reconciliation: found\n"));
    CU_ASSERT(sbx_test_deerflow_control(&provisioner, "/faults", NULL));
    CU_ASSERT_EQUAL(sbx_backend_destroy(backend, "c-half-1", &err), SBX_OK);
    sbx_backend_free_sandboxes(backend, sb, sb != NULL);
}

/* The mount contract as the real peer checks it: a thread's read-only
 * upload conversions beside its uploads are forwarded and accepted; a
 * mount at a path the provisioner refuses (config/locks) is dropped, not
 * sent to fail the whole create; a writable conversions mount is refused
 * here, before anything is sent. */
static void test_mounts_the_real_provisioner_accepts(void)
{
    char uploads[4200], conversions[4200], locks[4200];
    snprintf(uploads, sizeof uploads, "%s/users/alice/threads/t-up/user-data/uploads",
             provisioner.state_dir);
    snprintf(conversions, sizeof conversions,
             "%s/users/alice/threads/t-up/user-data/.upload-conversions", provisioner.state_dir);
    snprintf(locks, sizeof locks, "%s/users/alice/lark/locks", provisioner.state_dir);
    sbx_mount mounts[] = {
        { uploads, "/mnt/user-data/uploads", 0 },
        { conversions, "/mnt/user-data/.upload-conversions", 1 },
        { locks, "/mnt/integrations/lark-cli/config/locks", 0 },
    };
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "c-mounts-1";
    req.user_id = "alice";
    req.thread_id = "t-up";
    req.extra_mounts = mounts;
    req.extra_mount_count = 3;
    sbx_sandbox *sb = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_create(backend, &req, &sb, &err), SBX_OK);
    if (sb == NULL)
        fprintf(stderr, "create with mounts: %s\n", err.message);
    sbx_backend_free_sandboxes(backend, sb, sb != NULL);
    /* The Pod has the overlay, read-only: the folder is not writable through
     * the provisioner's own /mnt/user-data mount. */
    char *state = sbx_test_deerflow_state(&provisioner), wanted[4400];
    snprintf(wanted, sizeof wanted, "sandbox:/mnt/user-data/.upload-conversions <- hostPath:%s "
                                    "(Directory) ro", conversions);
    CU_ASSERT_PTR_NOT_NULL(state != NULL ? strstr(state, wanted) : NULL);
    CU_ASSERT_PTR_NULL(state != NULL ? strstr(state, "lark-cli/config/locks") : NULL);
    free(state);
    CU_ASSERT_EQUAL(sbx_backend_destroy(backend, "c-mounts-1", &err), SBX_OK);

    mounts[1].read_only = 0;
    req.sandbox_id = "c-mounts-2";
    CU_ASSERT_EQUAL(sbx_backend_create(backend, &req, &sb, &err), SBX_ERR_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "must be read-only"));
    CU_ASSERT_EQUAL(sbx_backend_discover(backend, "c-mounts-2", &sb, &err), SBX_ERR_NOT_FOUND);
}

/* A member of ABI 1.5 that DeerFlow's provisioner does not advertise:
 * refused naming it before anything is sent, so no sandbox exists; the
 * same request without it is today's wire, which the provisioner takes. */
static void test_new_create_members_are_refused_before_sending(void)
{
    static const sbx_label labels[] = { { "team", "red" } };
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "c-spec-1";
    req.labels = labels;
    req.label_count = 1;
    sbx_sandbox *sb = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_create(backend, &req, &sb, &err), SBX_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "create request member 'labels'"));
    req.labels = NULL;
    req.label_count = 0;
    req.memory_bytes = INT64_C(512) * 1024 * 1024;
    CU_ASSERT_EQUAL(sbx_backend_create(backend, &req, &sb, &err), SBX_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'memory_bytes'"));
    CU_ASSERT_EQUAL(sbx_backend_discover(backend, "c-spec-1", &sb, &err), SBX_ERR_NOT_FOUND);
    req.memory_bytes = SBX_LIMIT_NONE;
    CU_ASSERT_EQUAL(sbx_backend_create(backend, &req, &sb, &err), SBX_OK);
    sbx_backend_free_sandboxes(backend, sb, sb != NULL);
    CU_ASSERT_EQUAL(sbx_backend_destroy(backend, "c-spec-1", &err), SBX_OK);
}

void sbx_test_register(void)
{
    const char *why = sbx_test_deerflow_unavailable();
    if (why != NULL) {
        printf("SKIP: the real DeerFlow provisioner cannot run: %s\n", why);
        exit(77);
    }
    static const CU_TestInfo tests[] = {
        { "capabilities", test_capabilities },
        { "lifecycle through the C API", test_lifecycle_through_the_c_api },
        { "lifecycle through sbxctl", test_lifecycle_through_sbxctl },
        { "another user's sandbox is refused", test_another_users_sandbox_is_refused },
        { "wrong key is unauthorized", test_wrong_key_is_unauthorized },
        { "mounts the real provisioner accepts", test_mounts_the_real_provisioner_accepts },
        { "pending pod is not alive", test_pending_pod_is_not_alive },
        { "kubernetes fault is a provisioner error", test_kubernetes_fault_is_a_provisioner_error },
        { "slow provisioner is bounded", test_slow_provisioner_is_bounded },
        { "half-deleted sandbox is found without address",
          test_half_deleted_sandbox_is_found_without_address },
        { "ABI 1.5 members are refused before sending",
          test_new_create_members_are_refused_before_sending },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("remote against the real DeerFlow provisioner", suite_init, suite_cleanup,
                       tests);
}
