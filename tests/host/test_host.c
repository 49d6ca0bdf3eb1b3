/* Host library: finding, validating and calling backends. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include <sbx/backend_support.h>
#include <sbx/host.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fixture module of this program (compiled in with FIXTURE_NAME "inproc"). */
const sbx_backend_descriptor *sbx_backend_entry(void);

static char fixture_dir[4096];
static char host_abi[32];

/* Log lines captured from the host, for the listing test. */
static char captured_log[8192];
static void capture_log(void *ctx, sbx_log_level level, const char *backend, const char *msg)
{
    (void)ctx;
    (void)backend;
    if (level <= SBX_LOG_WARN) {
        strncat(captured_log, msg, sizeof captured_log - strlen(captured_log) - 2);
        strcat(captured_log, "\n");
    }
}

static sbx_host *new_host_with_fixtures(void)
{
    sbx_host_services svc = {sizeof svc, capture_log, NULL};
    sbx_host *host = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_host_new(&svc, &host, &err), SBX_OK);
    const char *dirs[] = {fixture_dir};
    CU_ASSERT_EQUAL_FATAL(sbx_host_set_module_path(host, dirs, 1, &err), SBX_OK);
    return host;
}

/* Load `name` and expect SBX_ERR_LOAD with exactly `expected`. */
static void expect_refused(const char *name, const char *expected)
{
    sbx_host *host = new_host_with_fixtures();
    const sbx_backend_descriptor *d = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_host_load(host, name, &d, &err), SBX_ERR_LOAD);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_LOAD);
    CU_ASSERT_PTR_NULL(d);
    CU_ASSERT_STRING_EQUAL(err.message, expected);
    sbx_host_free(host);
}

static void test_wrong_major_is_refused(void)
{
    char expected[8192];
    snprintf(expected, sizeof expected,
             "cannot load backend module %s/fixture-wrong-major.so: module ABI 2.0, %s (major versions differ)",
             fixture_dir, host_abi);
    expect_refused("fixture-wrong-major", expected);
}

static void test_small_descriptor_is_refused(void)
{
    char expected[8192];
    snprintf(expected, sizeof expected,
             "cannot load backend module %s/fixture-small-descriptor.so: module ABI %d.%d, %s "
             "(descriptor of 24 bytes is smaller than the %zu bytes of ABI 1.0)",
             fixture_dir, SBX_BACKEND_ABI_MAJOR, SBX_BACKEND_ABI_MINOR, host_abi,
             (size_t)SBX_DESCRIPTOR_SIZE_1_0);
    expect_refused("fixture-small-descriptor", expected);
}

static void test_missing_entry_is_refused(void)
{
    char expected[8192];
    snprintf(expected, sizeof expected,
             "cannot load backend module %s/fixture-no-entry.so: it does not export the entry point sbx_backend_entry (%s)",
             fixture_dir, host_abi);
    expect_refused("fixture-no-entry", expected);
}

/* Make a private temp dir holding `file` with `content`; returns the dir. */
static char *temp_dir_with(const char *file, const char *content)
{
    char *dir = strdup("/tmp/sbx-host-test-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(content, f);
    fclose(f);
    return dir;
}

static void remove_temp_dir(char *dir, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    unlink(path);
    rmdir(dir);
    free(dir);
}

static void test_garbage_module_is_refused_naming_its_path(void)
{
    char *dir = temp_dir_with("bogus.so", "this is not an ELF file\n");
    sbx_host *host = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_host_new(NULL, &host, &err), SBX_OK);
    const char *dirs[] = {dir};
    sbx_host_set_module_path(host, dirs, 1, &err);
    const sbx_backend_descriptor *d;
    CU_ASSERT_EQUAL(sbx_host_load(host, "bogus", &d, &err), SBX_ERR_LOAD);
    char prefix[4096];
    snprintf(prefix, sizeof prefix,
             "cannot load backend module %s/bogus.so: not a loadable shared object (", dir);
    CU_ASSERT_EQUAL(strncmp(err.message, prefix, strlen(prefix)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, host_abi));
    sbx_host_free(host);
    remove_temp_dir(dir, "bogus.so");
}

static void test_missing_backend_names_it(void)
{
    sbx_host *host = new_host_with_fixtures();
    const sbx_backend_descriptor *d;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_host_load(host, "nope", &d, &err), SBX_ERR_LOAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "no backend named 'nope'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, fixture_dir));
    /* A name is never a path. */
    CU_ASSERT_EQUAL(sbx_host_load(host, "../fixtures/fixture-good", &d, &err), SBX_ERR_LOAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "names are 1-64 of [a-z0-9_-]"));
    sbx_host_free(host);
}

static void test_configured_path_comes_before_environment(void)
{
    char *dir = temp_dir_with("fixture-good.so", "garbage\n");
    sbx_host *host = new_host_with_fixtures();
    setenv("SBX_MODULE_PATH", dir, 1);
    const sbx_backend_descriptor *d;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_host_load(host, "fixture-good", &d, &err), SBX_OK);
    sbx_host_free(host);

    /* With the garbage first on the configured path it is the one refused. */
    CU_ASSERT_EQUAL_FATAL(sbx_host_new(NULL, &host, &err), SBX_OK);
    const char *dirs[] = {dir, fixture_dir};
    sbx_host_set_module_path(host, dirs, 2, &err);
    CU_ASSERT_EQUAL(sbx_host_load(host, "fixture-good", &d, &err), SBX_ERR_LOAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, dir));
    sbx_host_free(host);
    unsetenv("SBX_MODULE_PATH");
    remove_temp_dir(dir, "fixture-good.so");
}

/* A directory name of `len` bytes: "/" and then 'd's. */
static char *long_dir(size_t len)
{
    char *dir = malloc(len + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    memset(dir, 'd', len);
    dir[0] = '/';
    dir[len] = '\0';
    return dir;
}

/* An empty entry of $SBX_MODULE_PATH (leading, doubled, trailing colon) is
 * skipped: searched as written it would be "/NAME.so", the root directory.
 * The "searched" list of the refusal shows only real directories, and
 * entries keep their numbers as written (the over-long one is #4). */
static void test_empty_module_path_entries_are_skipped(void)
{
    char env[4096 + 64];
    snprintf(env, sizeof env, ":%s::", fixture_dir);
    setenv("SBX_MODULE_PATH", env, 1);
    sbx_host *host = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_host_new(NULL, &host, &err), SBX_OK);
    const sbx_backend_descriptor *d = NULL;
    CU_ASSERT_EQUAL(sbx_host_load(host, "fixture-good", &d, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_host_load(host, "nope", &d, &err), SBX_ERR_LOAD);
    char searched[4096 + 64];
    snprintf(searched, sizeof searched, "in %s:%s", fixture_dir, sbx_host_default_module_dir());
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, searched));
    CU_ASSERT_PTR_NULL(strstr(err.message, "::"));
    CU_ASSERT_PTR_NULL(strstr(err.message, "in :"));
    sbx_host_free(host);

    char *dir = long_dir(4000);
    snprintf(env, sizeof env, "%s:::%s", fixture_dir, dir);
    setenv("SBX_MODULE_PATH", env, 1);
    CU_ASSERT_EQUAL_FATAL(sbx_host_new(NULL, &host, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_host_load(host, "fixture-good", &d, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "entry #4 of $SBX_MODULE_PATH is too long"));
    sbx_host_free(host);
    free(dir);
    unsetenv("SBX_MODULE_PATH");
}

/* A module path entry with no room for a module's file name in PATH_MAX
 * used to be cut silently into a path the search then tried; now load and
 * list refuse it, naming the entry, before anything is searched. */
static void test_over_long_module_path_entry_is_named(void)
{
    char *dir = long_dir(4000);
    char env[4096 + 64];
    snprintf(env, sizeof env, "%s:%s", fixture_dir, dir);
    setenv("SBX_MODULE_PATH", env, 1);
    sbx_host *host = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_host_new(NULL, &host, &err), SBX_OK);
    const sbx_backend_descriptor *d = NULL;
    CU_ASSERT_EQUAL(sbx_host_load(host, "fixture-good", &d, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NULL(d);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "module path entry #2 of $SBX_MODULE_PATH is "
                                               "too long: 4000 bytes, at most "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "(it begins '/ddd"));
    const sbx_backend_info *listing = NULL;
    size_t count = 0;
    CU_ASSERT_EQUAL(sbx_host_list_backends(host, &listing, &count, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "entry #2 of $SBX_MODULE_PATH is too long"));
    sbx_host_free(host);
    unsetenv("SBX_MODULE_PATH");

    /* The same of a configured directory; one that leaves room loads. */
    host = new_host_with_fixtures();
    const char *dirs[] = {fixture_dir, dir};
    CU_ASSERT_EQUAL(sbx_host_set_module_path(host, dirs, 2, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_host_load(host, "fixture-good", &d, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "module path entry #2 of the configured module "
                                               "path is too long"));
    free(dir);
    dir = long_dir(3000);
    dirs[1] = dir;
    CU_ASSERT_EQUAL(sbx_host_set_module_path(host, dirs, 2, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_host_load(host, "fixture-good", &d, &err), SBX_OK);
    sbx_host_free(host);
    free(dir);
}

/* A backend name longer than 64 bytes is refused by name; 64 is searched. */
static void test_over_long_backend_name_is_refused(void)
{
    sbx_host *host = new_host_with_fixtures();
    char name[66];
    memset(name, 'n', 65);
    name[65] = '\0';
    const sbx_backend_descriptor *d = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_host_load(host, name, &d, &err), SBX_ERR_LOAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "names are 1-64 of [a-z0-9_-]"));
    name[64] = '\0';
    CU_ASSERT_EQUAL(sbx_host_load(host, name, &d, &err), SBX_ERR_LOAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "not built in, and no"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, name));
    sbx_host_free(host);
}

/* Open `name` from the fixtures, create/discover one sandbox, close. */
static void exercise(const char *name)
{
    sbx_host *host = new_host_with_fixtures();
    sbx_backend *b = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_open(host, name, NULL, 0, &b, &err), SBX_OK);
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = "box-1";
    sbx_sandbox *s = NULL;
    CU_ASSERT_EQUAL(sbx_backend_create(b, &req, &s, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(s->sandbox_url, "mem://box-1");
    sbx_backend_free_sandboxes(b, s, 1);
    CU_ASSERT_EQUAL(sbx_backend_discover(b, "box-1", &s, &err), SBX_OK);
    sbx_backend_free_sandboxes(b, s, 1);
    CU_ASSERT_EQUAL(sbx_backend_discover(b, "box-2", &s, &err), SBX_ERR_NOT_FOUND);
    CU_ASSERT_STRING_EQUAL(sbx_status_name(err.kind), "not_found");
    sbx_backend_close(b);
    sbx_host_free(host);
}

static void test_newer_minor_module_loads(void)
{
    exercise("fixture-newer-minor");
}

static void test_older_minor_module_loads_and_lacks_new_operations(void)
{
    exercise("fixture-older-minor");
    sbx_host *host = new_host_with_fixtures();
    sbx_backend *b = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_open(host, "fixture-older-minor", NULL, 0, &b, &err), SBX_OK);
    sbx_capabilities caps;
    /* The fixture sets capabilities, but its declared size says 1.0: the
     * host must not read past it. */
    CU_ASSERT_EQUAL(sbx_backend_capabilities(b, &caps, &err), SBX_ERR_UNSUPPORTED);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "backend 'fixture-older-minor' (ABI 1.0) does not support capabilities");
    sbx_reconciliation rec;
    CU_ASSERT_EQUAL(sbx_backend_reconcile(b, "box", &rec, &err), SBX_ERR_UNSUPPORTED);
    CU_ASSERT_EQUAL(rec.status, SBX_RECONCILE_UNKNOWN);
    CU_ASSERT_EQUAL(sbx_backend_allows_thread_data_mounts(b, 1), 0);
    sbx_backend_close(b);
    sbx_host_free(host);
}

static void test_thread_data_mounts_need_host_and_contract(void)
{
    sbx_host *host = new_host_with_fixtures();
    sbx_backend *b = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_open(host, "fixture-good", NULL, 0, &b, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_allows_thread_data_mounts(b, 1), 1);
    CU_ASSERT_EQUAL(sbx_backend_allows_thread_data_mounts(b, 0), 0);
    sbx_backend_close(b);
    sbx_host_free(host);
}

static void test_open_passes_options_and_reports_errors(void)
{
    sbx_host *host = new_host_with_fixtures();
    sbx_backend *b = NULL;
    sbx_error err;
    sbx_option good[] = {{"greeting", "hi"}};
    CU_ASSERT_EQUAL(sbx_backend_open(host, "fixture-good", good, 1, &b, &err), SBX_OK);
    sbx_backend_close(b);
    sbx_option bad[] = {{"greting", "hi"}};
    CU_ASSERT_EQUAL(sbx_backend_open(host, "fixture-good", bad, 1, &b, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NULL(b);
    CU_ASSERT_STRING_EQUAL(err.message, "unknown option 'greting'");
    sbx_host_free(host);
}

static void test_in_process_backends(void)
{
    sbx_host *host = new_host_with_fixtures();
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_host_register_backend(host, sbx_backend_entry(), &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_host_register_backend(host, sbx_backend_entry(), &err), SBX_ERR_USAGE);
    CU_ASSERT_STRING_EQUAL(err.message, "a backend named 'inproc' is already registered");

    sbx_backend_descriptor broken = *sbx_backend_entry();
    broken.abi_major = 7;
    broken.name = "broken";
    CU_ASSERT_EQUAL(sbx_host_register_backend(host, &broken, &err), SBX_ERR_LOAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "in-process backend: module ABI 7."));

    /* Several backends open at once, of both kinds. */
    sbx_backend *a = NULL, *m = NULL;
    CU_ASSERT_EQUAL(sbx_backend_open(host, "inproc", NULL, 0, &a, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_open(host, "fixture-good", NULL, 0, &m, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(sbx_backend_descriptor_of(a)->name, "inproc");
    CU_ASSERT_STRING_EQUAL(sbx_backend_descriptor_of(m)->name, "fixture-good");
    sbx_backend_close(a);
    sbx_backend_close(m);
    sbx_host_free(host);
}

static void test_listing_shows_builtins_and_loadable_modules(void)
{
    captured_log[0] = '\0';
    sbx_host *host = new_host_with_fixtures();
    sbx_error err;
    const sbx_backend_info *list;
    size_t n;
    CU_ASSERT_EQUAL_FATAL(sbx_host_list_backends(host, &list, &n, &err), SBX_OK);
    int saw_local = 0, saw_good = 0, saw_broken = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(list[i].name, "local") == 0)
            saw_local = list[i].kind == SBX_BACKEND_BUILTIN && list[i].path == NULL;
        if (strcmp(list[i].name, "fixture-good") == 0)
            saw_good = list[i].kind == SBX_BACKEND_MODULE && strstr(list[i].path, fixture_dir)
                    && list[i].abi_major == SBX_BACKEND_ABI_MAJOR;
        if (strstr(list[i].name, "wrong-major") || strstr(list[i].name, "small"))
            saw_broken = 1;
    }
    CU_ASSERT(saw_local);
    CU_ASSERT(saw_good);
    CU_ASSERT(!saw_broken);
    CU_ASSERT_PTR_NOT_NULL(strstr(captured_log, "fixture-wrong-major.so: module ABI 2.0"));
    sbx_host_free(host);
}

#define THREADS 8
#define ROUNDS 300

static void *hammer(void *arg)
{
    sbx_backend *b = arg;
    char id[32];
    snprintf(id, sizeof id, "t-%lx", (unsigned long)pthread_self() % 100000);
    long failures = 0;
    for (int i = 0; i < ROUNDS; i++) {
        sbx_error err;
        sbx_create_request req = SBX_CREATE_REQUEST_INIT;
        req.sandbox_id = id;
        sbx_sandbox *s = NULL;
        int alive = 0;
        failures += sbx_backend_create(b, &req, &s, &err) != SBX_OK;
        sbx_backend_free_sandboxes(b, s, 1);
        failures += sbx_backend_is_alive(b, id, &alive, &err) != SBX_OK || !alive;
        failures += sbx_backend_destroy(b, id, &err) != SBX_OK;
    }
    return (void *)failures;
}

static void test_one_instance_from_many_threads(void)
{
    sbx_host *host = new_host_with_fixtures();
    sbx_backend *b = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_open(host, "fixture-good", NULL, 0, &b, &err), SBX_OK);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, hammer, b);
    long failures = 0;
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(t[i], &r);
        failures += (long)r;
    }
    CU_ASSERT_EQUAL(failures, 0);
    sbx_backend_close(b);
    sbx_host_free(host);
}

static void test_error_records(void)
{
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_error_set(&err, SBX_ERR_PROTOCOL, "bad %s", "answer"), SBX_ERR_PROTOCOL);
    CU_ASSERT_STRING_EQUAL(err.message, "bad answer");
    CU_ASSERT_EQUAL(err.expected_contract, SBX_CONTRACT_NONE);
    char long_text[2000];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    sbx_error_set(&err, SBX_ERR_INTERNAL, "%s", long_text);
    CU_ASSERT_EQUAL(strlen(err.message), SBX_ERROR_MESSAGE_MAX - 1);
    CU_ASSERT_STRING_EQUAL(sbx_status_name(SBX_ERR_CONTRACT_CHANGED), "contract_changed");
    CU_ASSERT_STRING_EQUAL(sbx_status_name((sbx_status)12345), "internal");
    CU_ASSERT_EQUAL(sbx_error_set(NULL, SBX_ERR_USAGE, "x"), SBX_ERR_USAGE);
}

/* A caller naming what failed keeps the cause's kind, status and contract
 * versions; a prefix that overflows the record is cut and marked, and an
 * argument pointing into the message is read before it is rewritten. */
static void test_error_prefix_keeps_the_cause(void)
{
    sbx_error err;
    sbx_error_set(&err, SBX_ERR_CONTRACT_CHANGED, "answer carries version %d", 3);
    err.http_status = 409;
    err.expected_contract = 2;
    err.actual_contract = 3;
    CU_ASSERT_EQUAL(sbx_backend_error_prefix(&err, "create of %s", "sb-1"),
                    SBX_ERR_CONTRACT_CHANGED);
    CU_ASSERT_STRING_EQUAL(err.message, "create of sb-1: answer carries version 3");
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_CONTRACT_CHANGED);
    CU_ASSERT_EQUAL(err.http_status, 409);
    CU_ASSERT_EQUAL(err.expected_contract, 2);
    CU_ASSERT_EQUAL(err.actual_contract, 3);

    sbx_error_set(&err, SBX_ERR_TRANSPORT, "reset");
    sbx_backend_error_prefix(&err, "again (%s)", err.message);
    CU_ASSERT_STRING_EQUAL(err.message, "again (reset): reset");

    char long_text[2000];
    memset(long_text, 'y', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    sbx_backend_error_prefix(&err, "%s", long_text);
    size_t len = strlen(err.message);
    CU_ASSERT_EQUAL(len, SBX_ERROR_MESSAGE_MAX - 1);
    CU_ASSERT_STRING_EQUAL(err.message + len - strlen(SBX_CUT_MARK), SBX_CUT_MARK);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_TRANSPORT);
}

void sbx_test_register(void)
{
    const char *build = getenv("SBX_TEST_BUILDDIR");
    snprintf(fixture_dir, sizeof fixture_dir, "%s/tests/host/fixtures/.libs",
             build != NULL ? build : ".");
    snprintf(host_abi, sizeof host_abi, "host ABI %d.%d", SBX_BACKEND_ABI_MAJOR,
             SBX_BACKEND_ABI_MINOR);
    unsetenv("SBX_MODULE_PATH");
    static const CU_TestInfo tests[] = {
        {"wrong ABI major is refused with the exact message", test_wrong_major_is_refused},
        {"too-small descriptor is refused with the exact message", test_small_descriptor_is_refused},
        {"missing entry point is refused with the exact message", test_missing_entry_is_refused},
        {"garbage .so is refused naming its path", test_garbage_module_is_refused_naming_its_path},
        {"missing backend and path-like names are refused", test_missing_backend_names_it},
        {"configured module path comes before SBX_MODULE_PATH", test_configured_path_comes_before_environment},
        {"an over-long module path entry is refused by name", test_over_long_module_path_entry_is_named},
        {"empty module path entries are skipped", test_empty_module_path_entries_are_skipped},
        {"an over-long backend name is refused", test_over_long_backend_name_is_refused},
        {"newer-minor module loads and works", test_newer_minor_module_loads},
        {"older-minor module loads; new operations are unsupported", test_older_minor_module_loads_and_lacks_new_operations},
        {"thread data mounts need host config and contract >= 2", test_thread_data_mounts_need_host_and_contract},
        {"open passes options; backend errors come back", test_open_passes_options_and_reports_errors},
        {"in-process backends register beside modules", test_in_process_backends},
        {"listing shows built-ins and loadable modules only", test_listing_shows_builtins_and_loadable_modules},
        {"one instance from many threads", test_one_instance_from_many_threads},
        {"error records", test_error_records},
        {"a prefixed error keeps the cause's kind, status and contracts",
         test_error_prefix_keeps_the_cause},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("host", NULL, NULL, tests);
}
