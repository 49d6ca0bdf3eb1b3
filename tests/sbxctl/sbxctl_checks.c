/* Shared assertions for the sbxctl suites. */
#include <config.h>

#include "tests/sbxctl/sbxctl_checks.h"

#include "tests/support/backend_calls.h"
#include "tests/support/scratch_dir.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

void sbx_test_sbxctl(sbx_test_run *run, const char *const *env, const char *const *args)
{
    int ran = sbx_test_run_sbxctl(args, env, SBX_TEST_RUN_TIMEOUT_MS, run);
    CU_ASSERT_EQUAL_FATAL(ran, 0);
}

void sbx_test_sbxctl_local(sbx_test_run *run, const char *state_setting, const char *in,
                           int timeout_ms, const char *const *args)
{
    const char *argv[40] = {"--set", state_setting};
    size_t n = 2;
    for (size_t i = 0; args[i] != NULL && n < 39; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    int ran = sbx_test_run_sbxctl_stdin(argv, NULL, in != NULL ? in : "/dev/null", timeout_ms,
                                        run);
    CU_ASSERT_EQUAL_FATAL(ran, 0);
}

void sbx_test_local_box(const char *state_setting, const char *id, int create)
{
    sbx_test_run run;
    if (create) {
        sbx_test_sbxctl_local(&run, state_setting, NULL, SBX_TEST_RUN_TIMEOUT_MS,
                              SBX_TEST_ARGS("create", "--id", id));
        CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    } else {
        sbx_test_sbxctl_local(&run, state_setting, NULL, SBX_TEST_RUN_TIMEOUT_MS,
                              SBX_TEST_ARGS("destroy", id));
        CU_ASSERT_EQUAL(run.exit_code, 0);
    }
    sbx_test_run_clear(&run);
}

void sbx_test_sbxctl_remote(sbx_test_run *run, const char *url, const char *const *extra,
                            const char *const *args)
{
    char url_setting[512];
    snprintf(url_setting, sizeof url_setting, "provisioner_url=%s", url);
    const char *argv[32];
    size_t n = 0;
    argv[n++] = "--backend";
    argv[n++] = "remote";
    argv[n++] = "--set";
    argv[n++] = url_setting;
    for (size_t i = 0; extra != NULL && extra[i] != NULL && n < 31; i++)
        argv[n++] = extra[i];
    for (size_t i = 0; args[i] != NULL && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    sbx_test_sbxctl(run, NULL, argv);
}

/* Lines of `text` that are not backend log lines ("sbxctl: [BACKEND] ..."). */
static size_t count_non_log_lines(const char *text)
{
    size_t lines = 0;
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        if (strncmp(line, "sbxctl: [", 9) != 0)
            lines++;
        if (end == NULL)
            break;
        line = end + 1;
    }
    return lines;
}

void sbx_test_assert_failure(const sbx_test_run *run, int exit_code, const char *kind,
                             const char *needle)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "sbxctl: %s: ", kind);
    CU_ASSERT_EQUAL(run->exit_code, exit_code);
    CU_ASSERT_EQUAL(count_non_log_lines(run->err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(run->err, prefix));
    CU_ASSERT_PTR_NOT_NULL(strstr(run->err, needle));
    if (run->exit_code != exit_code || strstr(run->err, prefix) == NULL ||
        strstr(run->err, needle) == NULL)
        fprintf(stderr, "expected exit %d, %s'%s'; got exit %d, stderr [%s], stdout [%s]\n",
                exit_code, prefix, needle, run->exit_code, run->err, run->out);
}

json_object *sbx_test_assert_json_failure(const sbx_test_run *run, const char *kind)
{
    json_object *object = sbx_test_run_json(run);
    CU_ASSERT_PTR_NOT_NULL(object);
    if (object == NULL)
        return NULL;
    CU_ASSERT_EQUAL(json_object_object_length(object), 1);
    json_object *error = NULL;
    CU_ASSERT_TRUE(json_object_object_get_ex(object, "error", &error));
    CU_ASSERT_TRUE(json_object_is_type(error, json_type_object));
    if (!json_object_is_type(error, json_type_object)) {
        json_object_put(object);
        return NULL;
    }
    CU_ASSERT_EQUAL(json_object_object_length(error), 5);
    sbx_test_assert_json_string(error, "kind", kind);
    const char *message = sbx_test_json_string(error, "message");
    CU_ASSERT_TRUE(message != NULL && message[0] != '\0');
    static const char *const numeric[] = {"http_status", "expected", "actual"};
    for (size_t i = 0; i < 3; i++) {
        json_object *value = NULL;
        CU_ASSERT_TRUE(json_object_object_get_ex(error, numeric[i], &value));
        CU_ASSERT_TRUE(value == NULL || json_object_is_type(value, json_type_int));
    }
    return object;
}

const char *sbx_test_json_string(json_object *object, const char *key)
{
    json_object *value = NULL;
    if (!json_object_object_get_ex(object, key, &value) ||
        !json_object_is_type(value, json_type_string))
        return NULL;
    return json_object_get_string(value);
}

int sbx_test_json_int(json_object *object, const char *key, int fallback)
{
    json_object *value = NULL;
    if (!json_object_object_get_ex(object, key, &value) ||
        !json_object_is_type(value, json_type_int))
        return fallback;
    return json_object_get_int(value);
}

int sbx_test_json_true(json_object *object, const char *key)
{
    json_object *value = NULL;
    return json_object_object_get_ex(object, key, &value) &&
           json_object_is_type(value, json_type_boolean) && json_object_get_boolean(value);
}

void sbx_test_assert_json_string(json_object *object, const char *key, const char *expected)
{
    const char *value = sbx_test_json_string(object, key);
    CU_ASSERT_PTR_NOT_NULL(value);
    CU_ASSERT_STRING_EQUAL(value != NULL ? value : "", expected);
    if (value == NULL || strcmp(value, expected) != 0)
        fprintf(stderr, "member %s: expected '%s', got '%s'\n", key, expected,
                value != NULL ? value : "(absent or not a string)");
}

int sbx_test_json_is_null(json_object *object, const char *key)
{
    json_object *value = NULL;
    return json_object_object_get_ex(object, key, &value) && value == NULL;
}

int sbx_test_run_hides(const sbx_test_run *run, const char *needle)
{
    return strstr(run->out, needle) == NULL && strstr(run->err, needle) == NULL;
}

void sbx_test_assert_list_table(const char *table)
{
    CU_ASSERT_EQUAL(strncmp(table, "SANDBOX_ID", 10), 0);
    static const char *const headers[] = {"STATUS", "CREATED", "USER", "THREAD", "CONTRACT",
                                          "URL"};
    for (size_t h = 0; h < sizeof headers / sizeof headers[0]; h++) {
        const char *found = strstr(table, headers[h]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(found);
        size_t offset = (size_t)(found - table);
        for (const char *line = table; *line != '\0';) {
            const char *end = strchr(line, '\n');
            size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
            CU_ASSERT_TRUE(len > offset && line[offset] != ' ' && line[offset - 1] == ' ');
            line += len + (end != NULL);
        }
    }
}

int sbx_test_local_state_open(sbx_test_local_state *s, const char *tag)
{
    if (sbx_test_scratch_dir(s->scratch, sizeof s->scratch, tag) != 0)
        return 1;
    snprintf(s->state_dir, sizeof s->state_dir, "%s/state", s->scratch);
    snprintf(s->setting, sizeof s->setting, "state_dir=%s", s->state_dir);
    return 0;
}

void sbx_test_local_state_close(const sbx_test_local_state *s)
{
    sbx_test_destroy_local_sandboxes(s->state_dir);
    sbx_test_remove_tree(s->scratch);
}
