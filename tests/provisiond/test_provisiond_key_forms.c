/* sbx-provisiond's keys off the command line: --api-key-file and
 * --sandbox-api-key-file (a file of mode 0600) and
 * $SBX_PROVISIOND_SANDBOX_API_KEY guard the lifecycle and sandbox APIs as
 * --api-key and --sandbox-api-key do; a key file open to group or others,
 * missing, empty, of two lines or not a regular file stops the start
 * (exit 2) with a message naming the file and the fix, never the key. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/cunit_main.h"
#include "tests/support/http_probe.h"
#include "tests/support/scratch_dir.h"

#define REQUEST_MS 30000L
#define KEY "k3y-from-a-file-0123"
#define SANDBOX_KEY "sandbox-k3y-from-the-environment"

static char scratch[256];

static int make_scratch(void)
{
    return sbx_test_scratch_dir(scratch, sizeof scratch, "provd-keys");
}

static int remove_scratch(void)
{
    sbx_test_remove_tree(scratch);
    return 0;
}

/* Write `text` to scratch/`name` with `mode`; its path into `path` (512
 * bytes). */
static void key_file(const char *name, const char *text, mode_t mode, char *path)
{
    snprintf(path, 512, "%s/%s", scratch, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    fclose(f);
    CU_ASSERT_EQUAL(chmod(path, mode), 0);
}

/* `method` `path` on `base` with `header` (NULL: none): the status. */
static long call(const char *base, const char *method, const char *path, const char *header)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", base, path);
    const char *const headers[] = {header, NULL};
    sbx_test_http_result r;
    memset(&r, 0, sizeof r);
    long status = sbx_test_http(method, url, header != NULL ? headers : NULL, NULL, REQUEST_MS,
                                &r) == 0
                      ? r.status
                      : -1;
    sbx_test_http_result_clear(&r);
    return status;
}

/* The lifecycle key from a file, the sandbox key from the environment. */
static void test_keys_from_a_file_and_the_environment_guard_both_apis(void)
{
    char path[512];
    key_file("api.key", KEY "\n", 0600, path);
    setenv("SBX_PROVISIOND_SANDBOX_API_KEY", SANDBOX_KEY, 1);
    provd_local d;
    const char *const extra[] = {"--api-key-file", path, NULL};
    int started = provd_local_start(&d, 1, extra);
    unsetenv("SBX_PROVISIOND_SANDBOX_API_KEY");
    if (!started)
        return;
    const char *base = provd_url(d.proc);
    CU_ASSERT_EQUAL(call(base, "GET", "/api/sandboxes", NULL), 401);
    CU_ASSERT_EQUAL(call(base, "GET", "/api/sandboxes", "X-API-Key: wrong"), 401);
    CU_ASSERT_EQUAL(call(base, "GET", "/api/sandboxes", "X-API-Key: " KEY), 200);
    char url[512];
    snprintf(url, sizeof url, "%s/api/sandboxes", base);
    const char *const keyed[] = {"X-API-Key: " KEY, NULL};
    sbx_test_http_result r;
    memset(&r, 0, sizeof r);
    sbx_test_http("POST", url, keyed, "{\"sandbox_id\":\"keys\",\"user_id\":\"u\"}", REQUEST_MS,
                  &r);
    CU_ASSERT_EQUAL(r.status, 200);
    const char *mark = r.body != NULL ? strstr(r.body, "/s/") : NULL;
    CU_ASSERT_PTR_NOT_NULL(mark);
    if (mark != NULL) {
        char path_of[256];
        snprintf(path_of, sizeof path_of, "/s/%.64s/v1/sandbox", mark + 3);
        CU_ASSERT_EQUAL(call(base, "GET", path_of, NULL), 401);
        CU_ASSERT_EQUAL(call(base, "GET", path_of, "X-AIO-API-Key: " KEY), 401);
        CU_ASSERT_EQUAL(call(base, "GET", path_of, "X-AIO-API-Key: " SANDBOX_KEY), 200);
    }
    sbx_test_http_result_clear(&r);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* The daemon refuses `option` `path`: exit 2, the message naming the file
 * and holding `why`, never `secret`. */
static void expect_refused(const char *option, const char *path, const char *why,
                           const char *secret)
{
    const char *const args[] = {"--listen", "127.0.0.1:0", option, path, NULL};
    char output[2048];
    CU_ASSERT_EQUAL(provd_run_refused(args, output, sizeof output), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(output, option));
    CU_ASSERT_PTR_NOT_NULL(strstr(output, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(output, why));
    CU_ASSERT_PTR_NULL(strstr(output, secret));
    if (strstr(output, why) == NULL || strstr(output, secret) != NULL)
        fprintf(stderr, "%s %s: %s\n", option, path, output);
}

static void test_bad_key_files_stop_the_start_naming_the_file(void)
{
    char open_to_all[512], group[512], empty[512], two[512], missing[512];
    key_file("open.key", KEY "\n", 0644, open_to_all);
    key_file("group.key", KEY "\n", 0640, group);
    key_file("empty.key", "", 0600, empty);
    key_file("two.key", KEY "\nsecond-line\n", 0600, two);
    snprintf(missing, sizeof missing, "%s/missing.key", scratch);
    const char *fix = "(mode 0644): run chmod 600 on it";
    expect_refused("--api-key-file", open_to_all, fix, KEY);
    expect_refused("--sandbox-api-key-file", open_to_all, fix, KEY);
    expect_refused("--api-key-file", group, "(mode 0640): run chmod 600 on it", KEY);
    expect_refused("--api-key-file", empty, "is empty", KEY);
    expect_refused("--sandbox-api-key-file", two, "more than one line", KEY);
    expect_refused("--api-key-file", missing, "cannot be opened", KEY);
    expect_refused("--api-key-file", scratch, "not a regular file", KEY);
}

void sbx_test_register(void)
{
    static CU_TestInfo tests[] = {
        {"keys from a file and the environment guard both APIs",
         test_keys_from_a_file_and_the_environment_guard_both_apis},
        {"bad key files stop the start naming the file",
         test_bad_key_files_stop_the_start_naming_the_file},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbx-provisiond key files and variables", make_scratch, remove_scratch,
                       tests);
}
