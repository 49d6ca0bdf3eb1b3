/*
 * The backend contract: the same cases, through the host library, against
 * every backend of this tree, as a host sees them.  `local` (in-process,
 * a fresh state directory) and `remote` (the provisioner emulator on
 * 127.0.0.1) run here; `docker` runs when docker-suite.sh starts a private
 * engine (SBX_DOCKER_SOCKET, SBX_DOCKER_IMAGE), with
 * SBX_CONTRACT_BACKENDS=docker naming the only backend to run.  What only
 * one backend does stays in that backend's own suite.
 */
#include <config.h>

#include "tests/backend-contract/contract_fixture.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/docker_engine.h"
#include "tests/support/emulator.h"
#include "tests/support/scratch_dir.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The backend under test and how to open it. */
typedef struct contract_target {
    const char *backend;
    sbx_option options[6];
    size_t option_count;
} contract_target;

static contract_target target;
static sbx_test_emu *emu;      /* remote: the provisioner it talks to */
static char local_state[4096]; /* local: its state directory */
static char remote_url[256];

typedef contract_fixture fixture;

void contract_open(contract_fixture *f)
{
    sbx_error err;
    CU_ASSERT_FATAL(sbx_host_new(NULL, &f->host, &err) == SBX_OK);
    sbx_status st = sbx_backend_open(f->host, target.backend, target.options,
                                     target.option_count, &f->backend, &err);
    if (st != SBX_OK)
        fprintf(stderr, "open %s: %s\n", target.backend, err.message);
    CU_ASSERT_FATAL(st == SBX_OK);
}

void contract_close(contract_fixture *f)
{
    sbx_backend_close(f->backend);
    sbx_host_free(f->host);
}

/* Whether the running sandboxes of `f` include `id`. */
static int listed(fixture *f, const char *id)
{
    sbx_sandbox *all = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_list_running(f->backend, &all, &count, &err), SBX_OK);
    int found = 0;
    for (size_t i = 0; i < count; i++)
        found |= strcmp(all[i].sandbox_id, id) == 0;
    sbx_backend_free_sandboxes(f->backend, all, count);
    return found;
}

static int str_eq(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* What a host sees of an id that names no sandbox: not alive, not found
 * (the error naming it), and destroying it is not an error. */
static void expect_absent(fixture *f, const char *id)
{
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_test_is_alive(f->backend, id), 0);
    sbx_sandbox *found = NULL;
    CU_ASSERT_EQUAL(sbx_backend_discover(f->backend, id, &found, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NULL(found);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, id));
    CU_ASSERT_EQUAL(listed(f, id), 0);
    CU_ASSERT_EQUAL(sbx_backend_destroy(f->backend, id, &err), SBX_OK);
}

/* Create, then every way of finding it agrees; destroy, then none does,
 * as for an id never made; a second destroy is not an error. */
static void test_a_sandbox_is_found_until_destroyed(void)
{
    fixture f;
    contract_open(&f);
    expect_absent(&f, "ct-never-made");
    sbx_error err;
    sbx_sandbox *made = sbx_test_create(f.backend, "ct-life", "thread-1", "ann", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(made);
    CU_ASSERT_STRING_EQUAL(made->sandbox_id, "ct-life");
    CU_ASSERT(str_eq(made->user_id, "ann"));
    CU_ASSERT(str_eq(made->thread_id, "thread-1"));
    CU_ASSERT(made->sandbox_url[0] != '\0');

    sbx_sandbox *found = NULL;
    CU_ASSERT_EQUAL(sbx_backend_discover(f.backend, "ct-life", &found, &err), SBX_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(found);
    CU_ASSERT_STRING_EQUAL(found->sandbox_url, made->sandbox_url);
    CU_ASSERT(str_eq(found->user_id, "ann"));
    sbx_backend_free_sandboxes(f.backend, found, 1);
    CU_ASSERT_EQUAL(sbx_test_is_alive(f.backend, "ct-life"), 1);
    CU_ASSERT_EQUAL(listed(&f, "ct-life"), 1);

    CU_ASSERT_EQUAL(sbx_backend_destroy(f.backend, "ct-life", &err), SBX_OK);
    expect_absent(&f, "ct-life");
    sbx_backend_free_sandboxes(f.backend, made, 1);
    contract_close(&f);
}

/* A create of an existing sandbox by its owner returns that sandbox; by
 * another user or for another thread it is refused and touches nothing. */
static void test_an_existing_sandbox_goes_to_its_owner_only(void)
{
    fixture f;
    contract_open(&f);
    sbx_error err;
    sbx_sandbox *first = sbx_test_create(f.backend, "ct-owned", "t-1", "ann", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(first);
    sbx_sandbox *again = sbx_test_create(f.backend, "ct-owned", "t-1", "ann", &err);
    CU_ASSERT_PTR_NOT_NULL(again);
    if (again != NULL) {
        CU_ASSERT_STRING_EQUAL(again->sandbox_url, first->sandbox_url);
        sbx_backend_free_sandboxes(f.backend, again, 1);
    }
    sbx_sandbox *other = sbx_test_create(f.backend, "ct-owned", "t-1", "bob", &err);
    CU_ASSERT_PTR_NULL(other);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
    other = sbx_test_create(f.backend, "ct-owned", "t-2", "ann", &err);
    CU_ASSERT_PTR_NULL(other);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
    sbx_sandbox *still = NULL;
    CU_ASSERT_EQUAL(sbx_backend_discover(f.backend, "ct-owned", &still, &err), SBX_OK);
    if (still != NULL) {
        CU_ASSERT(str_eq(still->user_id, "ann"));
        CU_ASSERT(str_eq(still->thread_id, "t-1"));
        sbx_backend_free_sandboxes(f.backend, still, 1);
    }
    CU_ASSERT_EQUAL(sbx_backend_destroy(f.backend, "ct-owned", &err), SBX_OK);
    sbx_backend_free_sandboxes(f.backend, first, 1);
    contract_close(&f);
}

/* Ids that could name a path, an option or another resource are refused
 * by every operation before anything is made or sent. */
static void test_unsafe_ids_are_refused_everywhere(void)
{
    static const char *const ids[] = {
        "", "../etc", "a/b", ".hidden", "-rf", "UPPER", "sp ace", "tab\tid", "semi;colon",
        "0123456789012345678901234567890123456789012345678901234567890123456789",
    };
    fixture f;
    contract_open(&f);
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        sbx_error err;
        sbx_sandbox *sb = sbx_test_create(f.backend, ids[i], NULL, NULL, &err);
        CU_ASSERT_PTR_NULL(sb);
        CU_ASSERT(err.kind == SBX_ERR_USAGE || err.kind == SBX_ERR_REFUSED);
        sbx_sandbox *found = NULL;
        sbx_status st = sbx_backend_discover(f.backend, ids[i], &found, &err);
        CU_ASSERT(st == SBX_ERR_USAGE || st == SBX_ERR_REFUSED);
        CU_ASSERT(sbx_backend_destroy(f.backend, ids[i], &err) != SBX_OK);
        int alive = -1;
        CU_ASSERT(sbx_backend_is_alive(f.backend, ids[i], &alive, &err) != SBX_OK);
        if (sb != NULL)
            sbx_backend_free_sandboxes(f.backend, sb, 1);
        if (found != NULL)
            sbx_backend_free_sandboxes(f.backend, found, 1);
    }
    contract_close(&f);
}

/* Reconcile answers FOUND with a namespace and an incarnation while the
 * sandbox exists, ABSENT in the same namespace once destroyed, and a new
 * incarnation for the sandbox made again under the same id. */
static void test_reconcile_tells_incarnations_apart(void)
{
    fixture f;
    contract_open(&f);
    sbx_error err;
    sbx_sandbox *made = sbx_test_create(f.backend, "ct-recon", "t-r", "ann", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(made);
    sbx_backend_free_sandboxes(f.backend, made, 1);
    sbx_reconciliation first;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_reconcile(f.backend, "ct-recon", &first, &err), SBX_OK);
    CU_ASSERT_EQUAL(first.status, SBX_RECONCILE_FOUND);
    CU_ASSERT_PTR_NOT_NULL_FATAL(first.backend_namespace);
    CU_ASSERT_PTR_NOT_NULL_FATAL(first.incarnation_id);

    CU_ASSERT_EQUAL(sbx_backend_destroy(f.backend, "ct-recon", &err), SBX_OK);
    sbx_reconciliation gone;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_reconcile(f.backend, "ct-recon", &gone, &err), SBX_OK);
    CU_ASSERT_EQUAL(gone.status, SBX_RECONCILE_ABSENT);
    CU_ASSERT(str_eq(gone.backend_namespace, first.backend_namespace));
    sbx_backend_clear_reconciliation(f.backend, &gone);

    made = sbx_test_create(f.backend, "ct-recon", "t-r", "ann", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(made);
    sbx_backend_free_sandboxes(f.backend, made, 1);
    sbx_reconciliation second;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_reconcile(f.backend, "ct-recon", &second, &err), SBX_OK);
    CU_ASSERT_EQUAL(second.status, SBX_RECONCILE_FOUND);
    CU_ASSERT(str_eq(second.backend_namespace, first.backend_namespace));
    CU_ASSERT(second.incarnation_id != NULL &&
              !str_eq(second.incarnation_id, first.incarnation_id));
    sbx_backend_clear_reconciliation(f.backend, &second);
    sbx_backend_clear_reconciliation(f.backend, &first);
    CU_ASSERT_EQUAL(sbx_backend_destroy(f.backend, "ct-recon", &err), SBX_OK);
    contract_close(&f);
}

/* The records (ABI 1.2) of create and discover say what the arrays say. */
static void test_records_agree_with_the_sandbox(void)
{
    fixture f;
    contract_open(&f);
    sbx_error err;
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "ct-record";
    req.thread_id = "t-rec";
    req.user_id = "ann";
    sbx_sandbox_record *made = NULL;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_create_record(f.backend, &req, &made, &err), SBX_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(made);
    CU_ASSERT_STRING_EQUAL(made->sandbox.sandbox_id, "ct-record");
    CU_ASSERT(str_eq(made->sandbox.user_id, "ann"));
    sbx_sandbox_record *found = NULL;
    CU_ASSERT_EQUAL(sbx_backend_discover_record(f.backend, "ct-record", &found, &err), SBX_OK);
    if (found != NULL) {
        CU_ASSERT_STRING_EQUAL(found->sandbox.sandbox_url, made->sandbox.sandbox_url);
        CU_ASSERT(str_eq(found->sandbox.thread_id, "t-rec"));
        sbx_backend_free_records(f.backend, found);
    }
    sbx_backend_free_records(f.backend, made);
    CU_ASSERT_EQUAL(sbx_backend_destroy(f.backend, "ct-record", &err), SBX_OK);
    contract_close(&f);
}

/* Every backend of the tree implements mount contract 2 and says so: a
 * host learns it from capabilities, never from the backend's name. */
static void test_capabilities_answer_contract_2_known(void)
{
    fixture f;
    contract_open(&f);
    sbx_capabilities caps = { SBX_CONTRACT_NONE, 0 };
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_capabilities(f.backend, &caps, &err), SBX_OK);
    CU_ASSERT_EQUAL(caps.mount_contract_version, 2);
    CU_ASSERT_NOT_EQUAL(caps.known, 0);
    contract_close(&f);
}

/* A create that requires the contract the backend reports is served; one
 * that requires any other is refused as a moved contract, with both
 * versions, and makes nothing. */
static void test_a_create_requires_the_reported_contract(void)
{
    fixture f;
    contract_open(&f);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "ct-contract";
    req.thread_id = "t-c";
    req.user_id = "ann";
    req.required_contract = 2;
    sbx_sandbox *made = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_create(f.backend, &req, &made, &err), SBX_OK);
    CU_ASSERT_PTR_NOT_NULL(made);
    sbx_backend_free_sandboxes(f.backend, made, made != NULL ? 1 : 0);
    CU_ASSERT_EQUAL(sbx_backend_destroy(f.backend, "ct-contract", &err), SBX_OK);

    static const int others[] = { 0, 1, 3 };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        req.required_contract = others[i];
        made = NULL;
        CU_ASSERT_EQUAL(sbx_backend_create(f.backend, &req, &made, &err),
                        SBX_ERR_CONTRACT_CHANGED);
        CU_ASSERT_PTR_NULL(made);
        CU_ASSERT_EQUAL(err.expected_contract, others[i]);
        CU_ASSERT_EQUAL(err.actual_contract, 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "ct-contract"));
        sbx_sandbox *found = NULL;
        CU_ASSERT_EQUAL(sbx_backend_discover(f.backend, "ct-contract", &found, &err),
                        SBX_ERR_NOT_FOUND);
        sbx_backend_free_sandboxes(f.backend, found, found != NULL ? 1 : 0);
    }
    contract_close(&f);
}

#define RACERS 6

typedef struct racer {
    sbx_backend *backend;
    char id[32];
    char url[512];
    sbx_status status;
} racer;

static void *race_create(void *arg)
{
    racer *r = arg;
    sbx_error err;
    sbx_sandbox *sb = sbx_test_create(r->backend, r->id, "t-race", "ann", &err);
    r->status = sb != NULL ? SBX_OK : err.kind;
    if (sb != NULL) {
        snprintf(r->url, sizeof r->url, "%s", sb->sandbox_url);
        sbx_backend_free_sandboxes(r->backend, sb, 1);
    }
    return NULL;
}

/* Creates racing on one backend instance, half of one shared id and half
 * of an id each: every create succeeds, those of the shared id all get the
 * one sandbox, and exactly one of each id exists afterwards. */
static void test_racing_creates_get_one_sandbox(void)
{
    fixture f;
    contract_open(&f);
    racer racers[RACERS];
    pthread_t threads[RACERS];
    for (int i = 0; i < RACERS; i++) {
        racers[i] = (racer){ .backend = f.backend };
        snprintf(racers[i].id, sizeof racers[i].id, i % 2 ? "ct-race" : "ct-race-%d", i);
        CU_ASSERT_FATAL(pthread_create(&threads[i], NULL, race_create, &racers[i]) == 0);
    }
    for (int i = 0; i < RACERS; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < RACERS; i++) {
        CU_ASSERT_EQUAL(racers[i].status, SBX_OK);
        if (i % 2)
            CU_ASSERT_STRING_EQUAL(racers[i].url, racers[1].url);
    }
    sbx_sandbox *all = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_list_running(f.backend, &all, &count, &err), SBX_OK);
    for (int i = 0; i < RACERS; i++) {
        size_t copies = 0;
        for (size_t j = 0; j < count; j++)
            copies += strcmp(all[j].sandbox_id, racers[i].id) == 0;
        CU_ASSERT_EQUAL(copies, 1);
    }
    sbx_backend_free_sandboxes(f.backend, all, count);
    for (int i = 0; i < RACERS; i++)
        CU_ASSERT_EQUAL(sbx_backend_destroy(f.backend, racers[i].id, &err), SBX_OK);
    contract_close(&f);
}

static const CU_TestInfo contract_cases[] = {
    { "a sandbox is found until it is destroyed, as one never made is not", test_a_sandbox_is_found_until_destroyed },
    { "an existing sandbox goes to its owner only", test_an_existing_sandbox_goes_to_its_owner_only },
    { "unsafe ids are refused by every operation", test_unsafe_ids_are_refused_everywhere },
    { "reconcile tells incarnations apart", test_reconcile_tells_incarnations_apart },
    { "records agree with the sandbox", test_records_agree_with_the_sandbox },
    { "racing creates get one sandbox per id", test_racing_creates_get_one_sandbox },
    { "capabilities answer contract 2, known", test_capabilities_answer_contract_2_known },
    { "a create requires the reported contract", test_a_create_requires_the_reported_contract },
    CU_TEST_INFO_NULL
};

/* Remove what a run of the local target left: the state directory holds
 * only what the cases made (each destroys its own), and the marker. */
static int clean_local(void)
{
    char marker[4200];
    snprintf(marker, sizeof marker, "%s/.sbx-local-state", local_state);
    unlink(marker);
    char ns[4200];
    snprintf(ns, sizeof ns, "%s/.namespace", local_state);
    unlink(ns);
    return rmdir(local_state) == 0 ? 0 : 1;
}

static int setup_local(void)
{
    if (sbx_test_scratch_dir(local_state, sizeof local_state, "contract-local") != 0)
        return 1;
    target = (contract_target){ .backend = "local", .option_count = 3 };
    target.options[0] = (sbx_option){ "state_dir", local_state };
    /* A sandbox's URL must answer: a command serving its directory.  The
     * racing case starts several at once; on a loaded machine python's
     * start alone can take longer than the default 5 s wait. */
    target.options[1] = (sbx_option){
        "command", "exec python3 -m http.server {port} --bind 127.0.0.1 --directory {dir}" };
    target.options[2] = (sbx_option){ "ready_timeout_ms", SBX_TEST_READY_TIMEOUT_MS };
    return 0;
}

/* The operations need no server in the sandbox: a directory sandbox. */
static int setup_local_directories(void)
{
    if (setup_local() != 0)
        return 1;
    target.option_count = 1;
    return 0;
}

static int setup_remote(void)
{
    const char *args[] = { "--api-key", "contract-key", "--contract", "2", NULL };
    emu = sbx_test_emu_start(args);
    if (emu == NULL)
        return 1;
    snprintf(remote_url, sizeof remote_url, "%s", sbx_test_emu_url(emu));
    target = (contract_target){ .backend = "remote", .option_count = 2 };
    target.options[0] = (sbx_option){ "provisioner_url", remote_url };
    target.options[1] = (sbx_option){ "api_key", "contract-key" };
    return 0;
}

/* The emulator also serving the sandbox API at each sandbox's URL. */
static int setup_remote_aio(void)
{
    const char *args[] = { "--api-key", "contract-key", "--contract", "2", "--aio", NULL };
    emu = sbx_test_emu_start(args);
    if (emu == NULL)
        return 1;
    snprintf(remote_url, sizeof remote_url, "%s", sbx_test_emu_url(emu));
    target = (contract_target){ .backend = "remote", .option_count = 2 };
    target.options[0] = (sbx_option){ "provisioner_url", remote_url };
    target.options[1] = (sbx_option){ "api_key", "contract-key" };
    return 0;
}

static int teardown_remote(void)
{
    sbx_test_emu_stop(emu);
    emu = NULL;
    return 0;
}

static const char *docker_socket, *docker_image;

static int setup_docker(void)
{
    target = (contract_target){ .backend = "docker", .option_count = 5 };
    target.options[0] = (sbx_option){ "socket", docker_socket };
    target.options[1] = (sbx_option){ "image", docker_image };
    target.options[2] = (sbx_option){ "stop_grace_s", "1" };
    target.options[3] = (sbx_option){
        "command", "mkdir -p /www && echo hello > /www/index.html && exec httpd -f -p 8080 -h /www" };
    target.options[4] = (sbx_option){ "ready_timeout_ms", SBX_TEST_READY_TIMEOUT_MS };
    return 0;
}

static int no_teardown(void)
{
    return 0;
}

/* Whether SBX_CONTRACT_BACKENDS (unset: local and remote) names `name`. */
static int wanted(const char *name)
{
    const char *list = getenv("SBX_CONTRACT_BACKENDS");
    if (list == NULL || list[0] == '\0')
        list = "local remote";
    size_t len = strlen(name);
    for (const char *p = strstr(list, name); p != NULL; p = strstr(p + 1, name))
        if ((p == list || p[-1] == ' ') && (p[len] == '\0' || p[len] == ' '))
            return 1;
    return 0;
}

void sbx_test_register(void)
{
    if (wanted("local")) {
        sbx_test_add_suite("contract: local", setup_local, clean_local, contract_cases);
        sbx_test_add_suite("operations: local", setup_local_directories, clean_local,
                           operations_contract_cases);
        sbx_test_add_suite("processes: local", setup_local_directories, clean_local,
                           process_contract_cases);
    }
    if (wanted("remote")) {
        sbx_test_add_suite("contract: remote (emulator)", setup_remote, teardown_remote,
                           contract_cases);
        sbx_test_add_suite("operations: remote (emulator)", setup_remote_aio, teardown_remote,
                           operations_contract_cases);
        sbx_test_add_suite("processes: remote (emulator)", setup_remote_aio, teardown_remote,
                           process_contract_cases);
    }
    if (wanted("docker")) {
        sbx_test_docker_engine(&docker_socket, &docker_image);
        sbx_test_add_suite("contract: docker", setup_docker, no_teardown, contract_cases);
        sbx_test_add_suite("operations: docker", setup_docker, no_teardown,
                           operations_contract_cases);
        sbx_test_add_suite("processes: docker", setup_docker, no_teardown, process_contract_cases);
    }
}
