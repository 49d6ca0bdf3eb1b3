/* The create spec through sbx-provisiond over the local backend (one
 * daemon for the suite): its capabilities name the create fields the
 * backend honours and expires_at; the remote backend sends env and labels
 * to it, the command sees the env, records and the label filter see the
 * labels; a member the backend does not honour, or a malformed one, is
 * refused naming it and nothing is created or recorded; the daemon
 * destroys a sandbox past its expiry whatever its backend honours (its
 * reaper, a get, a list), also after a restart; the remote backend's
 * extend moves the expiry through the daemon's extend route, whose
 * refusals name the fault; and the remote backend sends nothing new (no
 * create field, no extend) to a provisioner that advertises none (the
 * emulator, as DeerFlow's). */
#include <config.h>

#include <CUnit/CUnit.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/emulator.h"
#include "tests/support/remote_helpers.h"

#define REQUEST_MS 30000L
/* How long a sandbox past its expiry may take to go: the reaper looks
 * every 500 ms; a destroy on a loaded 2-core machine takes seconds. */
#define EXPIRY_DEADLINE_MS 60000L
/* How far ahead an expiry is set: far enough that the create (a few
 * hundred ms, seconds when loaded) ends before it. */
#define EXPIRY_AHEAD_MS 4000

static provd_local daemon_dir;
static sbx_host *host;
static sbx_backend *remote;

/* The suite's daemon and the remote backend on it, at the first test
 * (CUnit asserts need a test).  Returns 1, or 0 after a failure. */
static int daemon_up(void)
{
    return provd_local_remote_up(&daemon_dir, &host, &remote);
}

static int suite_stop(void)
{
    sbx_backend_close(remote);
    sbx_host_free(host);
    if (daemon_dir.proc != NULL)
        provd_local_stop(&daemon_dir, 0);
    return 0;
}

/* A POST of `body` to /api/sandboxes: its status, the answer in `answer`. */
static long post_create(const char *body, char *answer, size_t cap)
{
    return provd_request(provd_url(daemon_dir.proc), (provd_send){"POST", "/api/sandboxes", body},
                         REQUEST_MS, answer, cap);
}

static long get_sandbox(const char *id, char *answer, size_t cap)
{
    char path[128];
    snprintf(path, sizeof path, "/api/sandboxes/%s", id);
    return provd_request(provd_url(daemon_dir.proc), (provd_send){"GET", path, NULL}, REQUEST_MS,
                         answer, cap);
}

/* Whether the local backend under `d` has sandbox `id`. */
static int local_has(const provd_local *d, const char *id)
{
    char *ids = provd_local_ids(d);
    CU_ASSERT_PTR_NOT_NULL(ids);
    int has = 0;
    for (char *p = ids != NULL ? strtok(ids, ",") : NULL; p != NULL; p = strtok(NULL, ","))
        has |= strcmp(p, id) == 0;
    free(ids);
    return has;
}

/* The number of ownership record files under `d`. */
static int owner_files(const provd_local *d)
{
    DIR *dir = opendir(d->owners_dir);
    int n = 0;
    for (struct dirent *e; dir != NULL && (e = readdir(dir)) != NULL;)
        n += strstr(e->d_name, ".owner") != NULL && e->d_name[0] != '.';
    if (dir != NULL)
        closedir(dir);
    return n;
}

/* Wait until the local backend under `d` no longer has `id` and the
 * daemon has forgotten it (no ownership record is left under `d`). */
static int gone_within(const provd_local *d, const char *id, long timeout_ms)
{
    long until = sbx_test_now_ms() + timeout_ms;
    while (local_has(d, id) || owner_files(d) > 0) {
        if (sbx_test_now_ms() > until)
            return 0;
        usleep(50 * 1000);
    }
    return 1;
}

static void test_capabilities_name_the_backends_fields_and_expiry(void)
{
    if (!daemon_up())
        return;
    char answer[1024];
    CU_ASSERT_EQUAL(provd_request(provd_url(daemon_dir.proc),
                                  (provd_send){"GET", "/api/capabilities", NULL}, REQUEST_MS,
                                  answer, sizeof answer),
                    200);
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, "\"mount_contract_version\":2"));
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, "\"create_fields\":[\"env\",\"labels\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, "\"expires_at\"]"));
    /* The local backend runs no image: not advertised. */
    CU_ASSERT_PTR_NULL(strstr(answer, "\"image\""));
    /* The remote backend takes what the daemon advertises as its own. */
    sbx_operations_info info = {.struct_size = sizeof info};
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_operations_info(remote, &info, &err), SBX_OK);
    CU_ASSERT(info.create_fields & SBX_CREATE_ENV);
    CU_ASSERT(info.create_fields & SBX_CREATE_LABELS);
    CU_ASSERT(info.create_fields & SBX_CREATE_EXPIRY);
    CU_ASSERT_FALSE(info.create_fields & SBX_CREATE_IMAGE);
}

/* Whether the records of a labelled list are exactly the sandbox `id`. */
static int listed_alone(const sbx_label *want, size_t n, const char *id)
{
    sbx_sandbox_record *records = NULL;
    size_t count = 0;
    sbx_error err;
    int alone = sbx_backend_list_records_labelled(remote, want, n, &records, &count, &err) ==
                    SBX_OK &&
                count == 1 && strcmp(records->sandbox.sandbox_id, id) == 0;
    sbx_backend_free_records(remote, records);
    return alone;
}

static void test_env_and_labels_reach_the_sandbox_and_its_records(void)
{
    if (!daemon_up())
        return;
    static const sbx_env_var env[] = {{"SPEC_GREETING", "hello from the spec"}};
    static const sbx_label labels[] = {{"team", "red"}, {"tier", "gold"}};
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "spec-env";
    req.env = env;
    req.env_count = 1;
    req.labels = labels;
    req.label_count = 2;
    sbx_sandbox_record *made = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_create_record(remote, &req, &made, &err), SBX_OK);
    CU_ASSERT(SBX_RECORD_HAS(made, label_count) && made->label_count == 2);
    sbx_backend_free_records(remote, made);
    /* A second sandbox without them, so that the filter has to choose. */
    sbx_create_request plain = SBX_CREATE_REQUEST_INIT;
    plain.sandbox_id = "spec-plain";
    sbx_sandbox *sb = NULL;
    CU_ASSERT_EQUAL(sbx_backend_create(remote, &plain, &sb, &err), SBX_OK);
    sbx_backend_free_sandboxes(remote, sb, sb != NULL);

    const sbx_test_command command = {"printf %s \"$SPEC_GREETING\"", NULL, 0, 0};
    sbx_exec_result *result = NULL;
    CU_ASSERT_EQUAL(sbx_test_shell(remote, "spec-env", &command, &result, &err), SBX_OK);
    CU_ASSERT_PTR_NOT_NULL(result);
    if (result != NULL)
        CU_ASSERT_STRING_EQUAL(result->stdout_data, "hello from the spec");
    sbx_backend_free_exec_result(remote, result);

    sbx_sandbox_record *found = NULL;
    CU_ASSERT_EQUAL(sbx_backend_discover_record(remote, "spec-env", &found, &err), SBX_OK);
    if (found != NULL && SBX_RECORD_HAS(found, label_count) && found->label_count == 2) {
        CU_ASSERT_STRING_EQUAL(found->labels[0].key, "team");
        CU_ASSERT_STRING_EQUAL(found->labels[0].value, "red");
        CU_ASSERT_STRING_EQUAL(found->labels[1].key, "tier");
        CU_ASSERT_STRING_EQUAL(found->labels[1].value, "gold");
    } else {
        CU_FAIL("discover_record lost the labels");
    }
    sbx_backend_free_records(remote, found);

    static const sbx_label red[] = {{"team", "red"}};
    static const sbx_label blue[] = {{"team", "blue"}};
    CU_ASSERT(listed_alone(red, 1, "spec-env"));
    CU_ASSERT(listed_alone(labels, 2, "spec-env"));
    sbx_sandbox_record *none = NULL;
    size_t count = 99;
    CU_ASSERT_EQUAL(sbx_backend_list_records_labelled(remote, blue, 1, &none, &count, &err),
                    SBX_OK);
    CU_ASSERT_EQUAL(count, 0);
    sbx_backend_free_records(remote, none);

    /* The same id with other labels is another sandbox: refused (409). */
    static const sbx_label other[] = {{"team", "blue"}};
    req.labels = other;
    req.label_count = 1;
    CU_ASSERT_EQUAL(sbx_backend_create_record(remote, &req, &made, &err), SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "another spec"));
    CU_ASSERT_EQUAL(err.http_status, 409);
    CU_ASSERT_EQUAL(sbx_backend_destroy(remote, "spec-env", &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_destroy(remote, "spec-plain", &err), SBX_OK);
}

static void test_refused_members_create_nothing(void)
{
    if (!daemon_up())
        return;
    static const struct {
        const char *body;
        long status;
        const char *named;
    } cases[] = {
        {"{\"sandbox_id\":\"spec-bad\",\"image\":\"python:3.12\"}", 400, "'image'"},
        {"{\"sandbox_id\":\"spec-bad\",\"labels\":{\"a=b\":\"c\"}}", 400, "labels #0"},
        {"{\"sandbox_id\":\"spec-bad\",\"labels\":[\"team\"]}", 422, "'labels'"},
        {"{\"sandbox_id\":\"spec-bad\",\"env\":{\"1X\":\"y\"}}", 400, "env #0"},
        {"{\"sandbox_id\":\"spec-bad\",\"env\":{\"X\":1}}", 422, "'env'"},
        {"{\"sandbox_id\":\"spec-bad\",\"expires_at\":1000}", 400, "expires_at"},
        {"{\"sandbox_id\":\"spec-bad\",\"expires_at\":\"soon\"}", 422, "'expires_at'"},
        {"{\"sandbox_id\":\"spec-bad\",\"network\":\"open\"}", 422, "'network'"},
        {"{\"sandbox_id\":\"spec-bad\",\"memory_bytes\":1}", 400, "memory_bytes"},
    };
    int records_before = owner_files(&daemon_dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char answer[1024] = "";
        long status = post_create(cases[i].body, answer, sizeof answer);
        CU_ASSERT_EQUAL(status, cases[i].status);
        CU_ASSERT_PTR_NOT_NULL(strstr(answer, cases[i].named));
        if (status != cases[i].status || strstr(answer, cases[i].named) == NULL)
            fprintf(stderr, "%s -> %ld %s\n", cases[i].body, status, answer);
    }
    CU_ASSERT_FALSE(local_has(&daemon_dir, "spec-bad"));
    CU_ASSERT_EQUAL(owner_files(&daemon_dir), records_before);
    /* Through the remote backend: refused before anything is sent. */
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "spec-bad";
    req.image = "python:3.12";
    sbx_sandbox *sb = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_create(remote, &req, &sb, &err), SBX_ERR_UNSUPPORTED);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'image'"));
    CU_ASSERT_FALSE(local_has(&daemon_dir, "spec-bad"));
}

/* A create of `id` through the daemon's API, as a client that then dies
 * would make it: expiring `ahead_ms` from now.  Returns its expiry. */
static int64_t create_expiring(const char *id, int64_t ahead_ms)
{
    int64_t expires_at = sbx_test_wall_ms() + ahead_ms;
    char body[256], answer[2048], expected[64];
    snprintf(body, sizeof body, "{\"sandbox_id\":\"%s\",\"expires_at\":%" PRId64 "}", id,
             expires_at);
    CU_ASSERT_EQUAL(post_create(body, answer, sizeof answer), 200);
    snprintf(expected, sizeof expected, "\"expires_at\":%" PRId64 "}", expires_at);
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, expected));
    return expires_at;
}

static void test_the_daemon_destroys_a_sandbox_past_its_expiry(void)
{
    if (!daemon_up())
        return;
    int64_t expires_at = create_expiring("spec-expiring", EXPIRY_AHEAD_MS);
    char answer[2048];
    CU_ASSERT_EQUAL(get_sandbox("spec-expiring", answer, sizeof answer), 200);
    CU_ASSERT_TRUE(local_has(&daemon_dir, "spec-expiring"));
    /* Nobody asks for it again: the reaper destroys it. */
    CU_ASSERT_TRUE(gone_within(&daemon_dir, "spec-expiring",
                               (long)(expires_at - sbx_test_wall_ms()) + EXPIRY_DEADLINE_MS));
    CU_ASSERT(sbx_test_wall_ms() >= expires_at);
    CU_ASSERT_EQUAL(get_sandbox("spec-expiring", answer, sizeof answer), 404);
    CU_ASSERT_TRUE(provd_local_stderr_says(&daemon_dir, REQUEST_MS,
                                           "sandbox 'spec-expiring' passed its expiry: destroyed"));
    /* A sandbox without an expiry stays. */
    char plain[1024];
    CU_ASSERT_EQUAL(provd_create(provd_url(daemon_dir.proc), "spec-lasting", "default",
                                 REQUEST_MS, plain, sizeof plain), 200);
    CU_ASSERT_PTR_NULL(strstr(plain, "expires_at"));
    CU_ASSERT_TRUE(local_has(&daemon_dir, "spec-lasting"));
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(remote, "spec-lasting", &err), SBX_OK);
}

/* A create of an id whose sandbox is past its expiry makes a new one:
 * it never hands over the expired one. */
static void test_a_create_after_the_expiry_makes_a_new_sandbox(void)
{
    if (!daemon_up())
        return;
    int64_t expires_at = create_expiring("spec-again", 1500);
    char first[2048], again[2048];
    CU_ASSERT_EQUAL(get_sandbox("spec-again", first, sizeof first), 200);
    while (sbx_test_wall_ms() <= expires_at)
        usleep(20 * 1000);
    CU_ASSERT_EQUAL(post_create("{\"sandbox_id\":\"spec-again\"}", again, sizeof again), 200);
    CU_ASSERT_PTR_NULL(strstr(again, "expires_at"));
    CU_ASSERT_EQUAL(get_sandbox("spec-again", again, sizeof again), 200);
    const char *was = strstr(first, "\"incarnation_id\"");
    const char *now = strstr(again, "\"incarnation_id\"");
    CU_ASSERT(was != NULL && now != NULL && strncmp(was, now, 60) != 0);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(remote, "spec-again", &err), SBX_OK);
}

/* The expiry is kept with the owner record: a daemon that was down at the
 * deadline destroys the sandbox when it starts again. */
static void test_an_expiry_outlives_a_restart(void)
{
    provd_local d;
    if (!provd_local_start(&d, 1, NULL))
        return;
    int64_t expires_at = sbx_test_wall_ms() + EXPIRY_AHEAD_MS;
    char body[256], answer[2048];
    snprintf(body, sizeof body, "{\"sandbox_id\":\"spec-restart\",\"expires_at\":%" PRId64 "}",
             expires_at);
    CU_ASSERT_EQUAL(provd_request(provd_url(d.proc), (provd_send){"POST", "/api/sandboxes", body},
                                  REQUEST_MS, answer, sizeof answer),
                    200);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 1), 0);
    /* Down across the deadline (waited for on the wall clock).  The
     * sandbox is still there, looked at on disk: a list of local would
     * itself destroy it, for local keeps the expiry too. */
    while (sbx_test_wall_ms() <= expires_at)
        usleep(50 * 1000);
    char record[sizeof d.local_dir + 64];
    snprintf(record, sizeof record, "%s/spec-restart.json", d.local_dir);
    CU_ASSERT_EQUAL(access(record, F_OK), 0);
    if (provd_local_restart(&d, 1, NULL)) {
        CU_ASSERT_TRUE(gone_within(&d, "spec-restart", EXPIRY_DEADLINE_MS));
        CU_ASSERT_EQUAL(owner_files(&d), 0);
    }
    provd_local_stop(&d, 0);
}

/* A POST to the extend route of `id` with `body`: its status, the
 * answer in `answer`. */
static long post_extend(const char *id, const char *body, char *answer, size_t cap)
{
    char path[128];
    snprintf(path, sizeof path, "/api/sandboxes/%s/extend", id);
    return provd_request(provd_url(daemon_dir.proc), (provd_send){"POST", path, body},
                         REQUEST_MS, answer, cap);
}

/* The remote backend's extend reaches the daemon, which moves its record
 * and the local backend's expiry: the sandbox outlives the expiry it was
 * made with (a get, which destroys an expired one at once, and local's
 * own list both still find it). */
static void test_extend_saves_a_sandbox_through_the_daemon(void)
{
    if (!daemon_up())
        return;
    char answer[2048], expected[64];
    CU_ASSERT_EQUAL(provd_request(provd_url(daemon_dir.proc),
                                  (provd_send){"GET", "/api/capabilities", NULL}, REQUEST_MS,
                                  answer, sizeof answer),
                    200);
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, "\"extend\":true"));
    int64_t first = create_expiring("spec-extend", EXPIRY_AHEAD_MS);
    int64_t later = sbx_test_wall_ms() + 30 * 60 * 1000;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_extend(remote, "spec-extend", later, &err), SBX_OK);
    while (sbx_test_wall_ms() <= first)
        usleep(50 * 1000);
    CU_ASSERT_EQUAL(get_sandbox("spec-extend", answer, sizeof answer), 200);
    snprintf(expected, sizeof expected, "\"expires_at\":%" PRId64 "}", later);
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, expected));
    CU_ASSERT_TRUE(local_has(&daemon_dir, "spec-extend"));
    /* Moved earlier again: the reaper destroys it at that time. */
    int64_t soon = sbx_test_wall_ms() + 1000;
    CU_ASSERT_EQUAL(sbx_backend_extend(remote, "spec-extend", soon, &err), SBX_OK);
    CU_ASSERT_TRUE(gone_within(&daemon_dir, "spec-extend",
                               (long)(soon - sbx_test_wall_ms()) + EXPIRY_DEADLINE_MS));
    CU_ASSERT(sbx_test_wall_ms() >= soon);
    CU_ASSERT_EQUAL(sbx_backend_extend(remote, "spec-extend", later, &err), SBX_ERR_NOT_FOUND);
}

/* What the extend route refuses, each naming what is at fault, and
 * nothing moved. */
static void test_extend_refusals_name_the_fault(void)
{
    if (!daemon_up())
        return;
    char answer[2048], body[160];
    int64_t later = sbx_test_wall_ms() + 30 * 60 * 1000;
    create_expiring("spec-ext-bad", 10 * 60 * 1000);
    CU_ASSERT_EQUAL(provd_create(provd_url(daemon_dir.proc), "spec-ext-none", "default",
                                 REQUEST_MS, answer, sizeof answer), 200);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_extend(remote, "spec-ext-none", later, &err), SBX_ERR_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "(expires_at)"));
    CU_ASSERT_EQUAL(sbx_backend_extend(remote, "spec-ext-missing", later, &err),
                    SBX_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "spec-ext-missing"));
    snprintf(body, sizeof body, "{\"expires_at\":%" PRId64 ",\"user_id\":\"someone\"}", later);
    CU_ASSERT_EQUAL(post_extend("spec-ext-bad", body, answer, sizeof answer), 409);
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, "belongs to another user"));
    CU_ASSERT_EQUAL(post_extend("spec-ext-bad", "{\"expires_at\":\"soon\"}", answer,
                                sizeof answer), 422);
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, "'expires_at'"));
    CU_ASSERT_EQUAL(post_extend("spec-ext-bad", "{\"expires_at\":1000}", answer, sizeof answer),
                    400);
    CU_ASSERT_PTR_NOT_NULL(strstr(answer, "expires_at is not in the future"));
    CU_ASSERT_EQUAL(post_extend("spec-ext-bad", "[1]", answer, sizeof answer), 422);
    CU_ASSERT_EQUAL(get_sandbox("spec-ext-bad", answer, sizeof answer), 200);
    CU_ASSERT_PTR_NULL(strstr(answer, "\"expires_at\":1000}"));
    CU_ASSERT_EQUAL(sbx_backend_destroy(remote, "spec-ext-bad", &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_destroy(remote, "spec-ext-none", &err), SBX_OK);
}

/* DeerFlow's provisioner (as the emulator serves it) advertises no create
 * fields: a create that sets one reaches it not at all; one that sets none
 * is created as always. */
static void test_nothing_new_is_sent_to_a_provisioner_without_create_fields(void)
{
    static const char *const args[] = {"--api-key", "spec-key", "--initial-status", "Running",
                                       NULL};
    sbx_test_emu *emu = sbx_test_emu_start(args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    sbx_host *emu_host = NULL;
    sbx_error err;
    sbx_backend *b = sbx_test_open_remote(&emu_host, sbx_test_emu_url(emu), "spec-key", NULL, 0,
                                          &err);
    CU_ASSERT_PTR_NOT_NULL(b);
    if (b != NULL) {
        static const sbx_label labels[] = {{"team", "red"}};
        sbx_create_request req = SBX_CREATE_REQUEST_INIT;
        req.sandbox_id = "spec-deerflow";
        req.labels = labels;
        req.label_count = 1;
        sbx_sandbox *sb = NULL;
        CU_ASSERT_EQUAL(sbx_backend_create(b, &req, &sb, &err), SBX_ERR_UNSUPPORTED);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'labels'"));
        req.labels = NULL;
        req.label_count = 0;
        req.expires_at = sbx_test_wall_ms() + 3600000;
        CU_ASSERT_EQUAL(sbx_backend_create(b, &req, &sb, &err), SBX_ERR_UNSUPPORTED);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'expires_at'"));
        CU_ASSERT_EQUAL(sbx_test_emu_received(emu, "create"), 0);
        req.expires_at = 0;
        CU_ASSERT_EQUAL(sbx_backend_create(b, &req, &sb, &err), SBX_OK);
        sbx_backend_free_sandboxes(b, sb, sb != NULL);
        CU_ASSERT_EQUAL(sbx_test_emu_received(emu, "create"), 1);
        /* Nor has it an extend route: refused here, naming why. */
        CU_ASSERT_EQUAL(sbx_backend_extend(b, "spec-deerflow", sbx_test_wall_ms() + 3600000,
                                           &err), SBX_ERR_UNSUPPORTED);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "does not serve extend"));
        sbx_backend_close(b);
    }
    sbx_host_free(emu_host);
    sbx_test_emu_stop(emu);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"capabilities_name_the_backends_fields_and_expiry",
         test_capabilities_name_the_backends_fields_and_expiry},
        {"env_and_labels_reach_the_sandbox_and_its_records",
         test_env_and_labels_reach_the_sandbox_and_its_records},
        {"refused_members_create_nothing", test_refused_members_create_nothing},
        {"the_daemon_destroys_a_sandbox_past_its_expiry",
         test_the_daemon_destroys_a_sandbox_past_its_expiry},
        {"a_create_after_the_expiry_makes_a_new_sandbox",
         test_a_create_after_the_expiry_makes_a_new_sandbox},
        {"an_expiry_outlives_a_restart", test_an_expiry_outlives_a_restart},
        {"extend_saves_a_sandbox_through_the_daemon",
         test_extend_saves_a_sandbox_through_the_daemon},
        {"extend_refusals_name_the_fault", test_extend_refusals_name_the_fault},
        {"nothing_new_is_sent_to_a_provisioner_without_create_fields",
         test_nothing_new_is_sent_to_a_provisioner_without_create_fields},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("provisiond_create_spec", NULL, suite_stop, tests);
}
