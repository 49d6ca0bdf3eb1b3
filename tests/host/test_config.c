/* The configuration file: shape, expansion, errors that name the culprit. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include <sbx/host.h>
#include <sbx/manager.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parse `text`; expect `status`; return the config (NULL on error). */
static sbx_config *parse(const char *text, sbx_status status, sbx_error *err)
{
    sbx_config *c = NULL;
    CU_ASSERT_EQUAL(sbx_config_parse(text, "test.json", &c, err), status);
    if (status != SBX_OK)
        CU_ASSERT_PTR_NULL(c);
    return c;
}

/* The value of option `key` of backend `name`, or NULL. */
static const char *option(const sbx_config *c, const char *name, const char *key)
{
    size_t n;
    const sbx_option *o = sbx_config_backend_options(c, name, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(o[i].key, key) == 0)
            return o[i].value;
    return NULL;
}

static void test_interfaces_example(void)
{
    setenv("PROVISIONER_API_KEY", "k-123", 1);
    sbx_error err;
    sbx_config *c = parse("{\n"
                          "  \"backend\": \"remote\",\n"
                          "  \"module_path\": [\"/opt/sbx/backends\"],\n"
                          "  \"backends\": {\n"
                          "    \"remote\": {\n"
                          "      \"provisioner_url\": \"http://127.0.0.1:8002\",\n"
                          "      \"api_key\": \"${PROVISIONER_API_KEY}\",\n"
                          "      \"timeout_ms\": 2500, \"verbose\": true\n"
                          "    }\n"
                          "  }\n"
                          "}\n",
                          SBX_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(sbx_config_backend(c), "remote");
    size_t n;
    const char *const *dirs = sbx_config_module_path(c, &n);
    CU_ASSERT_EQUAL(n, 1);
    CU_ASSERT_STRING_EQUAL(dirs[0], "/opt/sbx/backends");
    CU_ASSERT_STRING_EQUAL(option(c, "remote", "provisioner_url"), "http://127.0.0.1:8002");
    CU_ASSERT_STRING_EQUAL(option(c, "remote", "api_key"), "k-123");
    CU_ASSERT_STRING_EQUAL(option(c, "remote", "timeout_ms"), "2500");
    CU_ASSERT_STRING_EQUAL(option(c, "remote", "verbose"), "true");
    CU_ASSERT_PTR_NULL(option(c, "docker", "image"));
    sbx_config_free(c);
    unsetenv("PROVISIONER_API_KEY");
}

static void test_expansion_forms(void)
{
    setenv("SBX_T_HOST", "10.0.0.1", 1);
    setenv("SBX_T_EMPTY", "", 1);
    unsetenv("SBX_T_UNSET");
    sbx_error err;
    sbx_config *c = parse("{\"backends\":{\"x\":{"
                          "\"a\":\"http://${SBX_T_HOST}:${SBX_T_UNSET:-8002}/\","
                          "\"b\":\"${SBX_T_EMPTY:-fallback}\","
                          "\"c\":\"${SBX_T_UNSET:-}\","
                          "\"d\":\"cost $5 and $HOME stay\","
                          "\"e\":\"${SBX_T_HOST}${SBX_T_HOST}\"}}}",
                          SBX_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(option(c, "x", "a"), "http://10.0.0.1:8002/");
    CU_ASSERT_STRING_EQUAL(option(c, "x", "b"), "fallback");
    CU_ASSERT_STRING_EQUAL(option(c, "x", "c"), "");
    CU_ASSERT_STRING_EQUAL(option(c, "x", "d"), "cost $5 and $HOME stay");
    CU_ASSERT_STRING_EQUAL(option(c, "x", "e"), "10.0.0.110.0.0.1");
    sbx_config_free(c);
    unsetenv("SBX_T_HOST");
    unsetenv("SBX_T_EMPTY");
}

static void test_unset_variable_is_named(void)
{
    unsetenv("SBX_T_MISSING_KEY");
    setenv("SBX_T_SECRET", "s3cr3t", 1);
    sbx_error err;
    parse("{\"backends\":{\"remote\":{\"api_key\":\"${SBX_T_MISSING_KEY}\"}}}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "test.json: backends.remote.api_key: environment variable 'SBX_T_MISSING_KEY' is not set");
    parse("{\"backend\":\"${SBX_T_MISSING_KEY}\"}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "test.json: backend: environment variable 'SBX_T_MISSING_KEY'"));
    parse("{\"module_path\":[\"/a\",\"${SBX_T_MISSING_KEY}\"]}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "module_path[1]"));
    /* A malformed reference is an error, and no value leaks into it. */
    parse("{\"backends\":{\"r\":{\"k\":\"${SBX_T_SECRET\"}}}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "backends.r.k: malformed variable reference"));
    CU_ASSERT_PTR_NULL(strstr(err.message, "s3cr3t"));
    parse("{\"backends\":{\"r\":{\"k\":\"${}\"}}}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "malformed"));
    unsetenv("SBX_T_SECRET");
}

static void test_unknown_keys_and_bad_types_are_named(void)
{
    sbx_error err;
    parse("{\"backend\":\"remote\",\"modul_path\":[]}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "test.json: unknown key 'modul_path' (expected backend, module_path, "
                           "backends, manager)");
    parse("{\"backend\":3}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_STRING_EQUAL(err.message, "test.json: backend must be a string");
    parse("{\"module_path\":\"/opt\"}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_STRING_EQUAL(err.message, "test.json: module_path must be an array of directory strings");
    parse("{\"backends\":{\"remote\":[]}}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_STRING_EQUAL(err.message, "test.json: backends.remote must be an object");
    parse("{\"backends\":{\"remote\":{\"headers\":{\"a\":1}}}}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "test.json: backends.remote.headers must be a string, number or boolean");
    parse("[1,2]", SBX_ERR_CONFIG, &err);
    CU_ASSERT_STRING_EQUAL(err.message, "test.json: the configuration must be a JSON object");
}

static void test_invalid_json(void)
{
    sbx_error err;
    parse("{\"backend\": \"remote\"", SBX_ERR_CONFIG, &err);
    CU_ASSERT_STRING_EQUAL(err.message, "test.json: invalid JSON: unexpected end of file");
    parse("{\"backend\": \"remote\"} trailing", SBX_ERR_CONFIG, &err);
    CU_ASSERT_STRING_EQUAL(err.message, "test.json: invalid JSON: trailing text after the object");
    parse("{backend: remote}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_EQUAL(strncmp(err.message, "test.json: invalid JSON: ", 25), 0);
}

static void test_overrides(void)
{
    sbx_error err;
    sbx_config *c = parse("{\"backend\":\"local\",\"backends\":{\"remote\":{\"timeout_ms\":100}}}",
                          SBX_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(sbx_config_set_backend(c, "remote", &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_config_set_option(c, "remote", "timeout_ms", "900", &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_config_set_option(c, "remote", "api_key", "k", &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(sbx_config_backend(c), "remote");
    CU_ASSERT_STRING_EQUAL(option(c, "remote", "timeout_ms"), "900");
    CU_ASSERT_STRING_EQUAL(option(c, "remote", "api_key"), "k");
    size_t n;
    sbx_config_backend_options(c, "remote", &n);
    CU_ASSERT_EQUAL(n, 2);
    sbx_config_free(c);

    CU_ASSERT_EQUAL(sbx_config_new(&c, &err), SBX_OK);
    CU_ASSERT_PTR_NULL(sbx_config_backend(c));
    CU_ASSERT_EQUAL(sbx_config_set_option(c, "docker", "image", "busybox", &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(option(c, "docker", "image"), "busybox");
    sbx_config_free(c);
}

static void test_files(void)
{
    sbx_config *c = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_config_load_file("/nonexistent/sbx.json", &c, &err), SBX_ERR_CONFIG);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "cannot read configuration /nonexistent/sbx.json: No such file or directory");
    char path[] = "/tmp/sbx-config-test-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    const char text[] = "{\"backend\":\"docker\",\"bogus\":1}";
    CU_ASSERT_EQUAL(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    CU_ASSERT_EQUAL(sbx_config_load_file(path, &c, &err), SBX_ERR_CONFIG);
    char expected[256];
    snprintf(expected, sizeof expected,
             "%s: unknown key 'bogus' (expected backend, module_path, backends, manager)", path);
    CU_ASSERT_STRING_EQUAL(err.message, expected);
    unlink(path);
}

/* json-c keeps the last of equal keys: every repetition, at any depth and
 * however it is spelled, is an error naming the key with its path. */
static void test_duplicate_keys_are_named(void)
{
    static const struct {
        const char *text;
        const char *key;
    } cases[] = {
        {"{\"backend\":\"local\",\"backend\":\"remote\"}", "'backend'"},
        {"{\"backends\":{\"remote\":{\"provisioner_url\":\"http://a\",\"timeout_ms\":5,"
         "\"provisioner_url\":\"http://b\"}}}", "'backends.remote.provisioner_url'"},
        {"{\"backends\":{\"local\":{},\"local\":{\"state_dir\":\"/x\"}}}", "'backends.local'"},
        {"{\"backends\":{},\"module_path\":[],\"backends\":{}}", "'backends'"},
        /* The same key written with an escape is the same key. */
        {"{\"backend\":\"local\",\"b\\u0061ckend\":\"remote\"}", "'backend'"},
        /* json-c reads comments; a key inside one is not a key. */
        {"{\"backend\":\"local\" /* ,\"x\":1 */ ,\"module_path\":[], // \"}\n"
         "\"backend\":\"docker\"}", "'backend'"},
        /* Inside an array's objects too (a type error would come later). */
        {"{\"module_path\":[{\"a\":1},{\"b\":1,\"b\":2}]}", "'module_path[1].b'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sbx_error err;
        parse(cases[i].text, SBX_ERR_CONFIG, &err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "duplicate key"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, cases[i].key));
        if (strstr(err.message, cases[i].key) == NULL)
            fprintf(stderr, "case %zu: %s\n", i, err.message);
    }
    /* Equal keys in different objects, and strings that look like keys, are fine. */
    sbx_error err;
    sbx_config *c = parse("{\"backends\":{\"remote\":{\"timeout_ms\":1,\"ca_file\":\"{\\\"a\\\":1,\\\"a\\\":2}\"},"
                          "\"docker\":{\"timeout_ms\":2}},\"backend\":\"backend\"}",
                          SBX_OK, &err);
    CU_ASSERT_PTR_NOT_NULL(c);
    sbx_config_free(c);
}

/* A NUL inside a string would cut it short in C (an identity prefix, a
 * path): an error naming the key, never the value. */
static void test_nul_in_strings_is_named(void)
{
    static const struct {
        const char *text;
        const char *where;
    } cases[] = {
        {"{\"backend\":\"local\\u0000remote\"}", "test.json: backend"},
        {"{\"module_path\":[\"/a\\u0000/b\"]}", "module_path[0]"},
        {"{\"backends\":{\"remote\":{\"api_key\":\"alice\\u0000mallory\"}}}",
         "backends.remote.api_key"},
        {"{\"backends\":{\"remote\":{\"api\\u0000key\":\"k\"}}}", "backends.remote.api"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sbx_error err;
        parse(cases[i].text, SBX_ERR_CONFIG, &err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, cases[i].where));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "NUL"));
        CU_ASSERT_PTR_NULL(strstr(err.message, "mallory"));
        if (strstr(err.message, cases[i].where) == NULL)
            fprintf(stderr, "case %zu: %s\n", i, err.message);
    }
}

/* A value that is exactly $NAME expands (DeerFlow's spelling); any other
 * '$' stays itself, and an unset $NAME is the same error as ${NAME}. */
static void test_bare_dollar_name(void)
{
    setenv("SBX_T_KEY", "k-456", 1);
    setenv("SBX_T_EMPTY", "", 1);
    unsetenv("SBX_T_UNSET");
    unsetenv("SBX_T_BACKEND");
    sbx_error err;
    parse("{\"backend\":\"$SBX_T_BACKEND\"}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "test.json: backend: environment variable 'SBX_T_BACKEND' is not set");
    setenv("SBX_T_BACKEND", "remote", 1);
    sbx_config *c = parse("{\"backend\":\"$SBX_T_BACKEND\",\"module_path\":[\"$SBX_T_KEY\"],"
                          "\"backends\":{\"x\":{"
                          "\"a\":\"$SBX_T_KEY\",\"b\":\"$SBX_T_EMPTY\",\"c\":\"$SBX_T_KEY/x\","
                          "\"d\":\"x$SBX_T_KEY\",\"e\":\"$1abc\",\"f\":\"$\","
                          "\"g\":\"$$SBX_T_KEY\",\"h\":\"$SBX-T\"}}}",
                          SBX_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(sbx_config_backend(c), "remote");
    size_t n;
    CU_ASSERT_STRING_EQUAL(sbx_config_module_path(c, &n)[0], "k-456");
    CU_ASSERT_STRING_EQUAL(option(c, "x", "a"), "k-456");
    CU_ASSERT_STRING_EQUAL(option(c, "x", "b"), "");
    CU_ASSERT_STRING_EQUAL(option(c, "x", "c"), "$SBX_T_KEY/x");
    CU_ASSERT_STRING_EQUAL(option(c, "x", "d"), "x$SBX_T_KEY");
    CU_ASSERT_STRING_EQUAL(option(c, "x", "e"), "$1abc");
    CU_ASSERT_STRING_EQUAL(option(c, "x", "f"), "$");
    CU_ASSERT_STRING_EQUAL(option(c, "x", "g"), "$$SBX_T_KEY");
    CU_ASSERT_STRING_EQUAL(option(c, "x", "h"), "$SBX-T");
    sbx_config_free(c);

    parse("{\"backends\":{\"remote\":{\"api_key\":\"$SBX_T_UNSET\"}}}", SBX_ERR_CONFIG, &err);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "test.json: backends.remote.api_key: environment variable 'SBX_T_UNSET' is not set");
    unsetenv("SBX_T_KEY");
    unsetenv("SBX_T_EMPTY");
    unsetenv("SBX_T_BACKEND");
}

/* Text that is not UTF-8 cannot be written into the JSON a backend sends
 * or prints: in a value, a key, an expanded variable or an override, it is
 * an error naming the key, never the value. */
static void test_invalid_utf8_is_named(void)
{
    static const struct {
        const char *text;
        const char *where;
    } cases[] = {
        {"{\"backend\":\"loc\xff\"}", "test.json: backend is not valid UTF-8"},
        {"{\"module_path\":[\"/a\xc0\xaf\"]}", "module_path[0] is not valid UTF-8"},
        {"{\"backends\":{\"remote\":{\"api_key\":\"k\xed\xa0\x80\"}}}",
         "backends.remote.api_key is not valid UTF-8"},
        {"{\"backends\":{\"remote\":{\"api_k\xe9y\":\"k\"}}}", "key 'backends.remote.api_k?y'"},
        {"{\"backends\":{\"remote\":{\"api_key\":\"$SBX_T_LATIN1\"}}}",
         "backends.remote.api_key is not valid UTF-8"},
        {"{\"backends\":{\"remote\":{\"api_key\":\"x${SBX_T_LATIN1}\"}}}",
         "backends.remote.api_key is not valid UTF-8"},
    };
    setenv("SBX_T_LATIN1", "caf\xe9", 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sbx_error err;
        parse(cases[i].text, SBX_ERR_CONFIG, &err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, cases[i].where));
        CU_ASSERT_PTR_NULL(strstr(err.message, "caf"));
        if (strstr(err.message, cases[i].where) == NULL)
            fprintf(stderr, "case %zu: %s\n", i, err.message);
    }
    unsetenv("SBX_T_LATIN1");

    /* Well-formed text of any script passes. */
    sbx_error err;
    sbx_config *c = parse("{\"backends\":{\"x\":{\"k\\u00e9y\":\"caf\xc3\xa9 \xf0\x9f\x98\x80\"}}}",
                          SBX_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(option(c, "x", "k\xc3\xa9y"), "caf\xc3\xa9 \xf0\x9f\x98\x80");
    /* Overrides follow the same rule. */
    CU_ASSERT_EQUAL(sbx_config_set_option(c, "x", "k", "\xff", &err), SBX_ERR_CONFIG);
    CU_ASSERT_STRING_EQUAL(err.message, "option 'k' of backend 'x' is not valid UTF-8");
    CU_ASSERT_EQUAL(sbx_config_set_option(c, "x", "k\x80", "v", &err), SBX_ERR_CONFIG);
    CU_ASSERT_STRING_EQUAL(option(c, "x", "k\xc3\xa9y"), "caf\xc3\xa9 \xf0\x9f\x98\x80");
    sbx_config_free(c);
}

/* The `manager` section: every documented key, seconds as fractions,
 * ${VAR} expansion, defaults for what is missing. */
static void test_manager_section(void)
{
    sbx_error err;
    sbx_manager_config m;
    sbx_config *c = parse("{\"backend\":\"local\"}", SBX_OK, &err);
    sbx_config_manager(c, &m);
    CU_ASSERT_EQUAL(m.idle_timeout_ms, 600000);
    CU_ASSERT_EQUAL(m.replicas, 3);
    CU_ASSERT_EQUAL(m.store, SBX_MANAGER_STORE_MEMORY);
    CU_ASSERT_PTR_NULL(m.redis_url);
    CU_ASSERT_EQUAL(m.reap_running_processes, 0);
    sbx_config_free(c);

    c = parse("{\"manager\":{\"reap_running_processes\":true}}", SBX_OK, &err);
    sbx_config_manager(c, &m);
    CU_ASSERT_EQUAL(m.reap_running_processes, 1);
    sbx_config_free(c);
    setenv("SBX_T_REAP", "false", 1);
    c = parse("{\"manager\":{\"reap_running_processes\":\"${SBX_T_REAP}\"}}", SBX_OK, &err);
    sbx_config_manager(c, &m);
    CU_ASSERT_EQUAL(m.reap_running_processes, 0);
    sbx_config_free(c);
    unsetenv("SBX_T_REAP");

    setenv("SBX_T_REDIS", "redis://127.0.0.1:6390/2", 1);
    setenv("SBX_T_IDLE", "0.25", 1);
    c = parse("{\"manager\":{\"idle_timeout_s\":\"${SBX_T_IDLE}\",\"replicas\":5,"
              "\"check_interval_s\":0.05,\"ready_path\":\"/healthz\",\"ready_timeout_s\":0,"
              "\"ready_interval_s\":0.01,\"shutdown\":\"keep\",\"lock_dir\":\"/tmp/l\","
              "\"ownership\":{\"store\":\"redis\",\"path\":\"/tmp/x.db\","
              "\"redis_url\":\"${SBX_T_REDIS}\",\"key_prefix\":\"deerflow:sandbox:owner\","
              "\"renewal_interval_s\":2,\"ttl_multiplier\":3}}}", SBX_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    sbx_config_manager(c, &m);
    CU_ASSERT_EQUAL(m.struct_size, sizeof m);
    CU_ASSERT_EQUAL(m.idle_timeout_ms, 250);
    CU_ASSERT_EQUAL(m.replicas, 5);
    CU_ASSERT_EQUAL(m.check_interval_ms, 50);
    CU_ASSERT_STRING_EQUAL(m.ready_path, "/healthz");
    CU_ASSERT_EQUAL(m.ready_timeout_ms, 0);
    CU_ASSERT_EQUAL(m.ready_interval_ms, 10);
    CU_ASSERT_EQUAL(m.shutdown, SBX_MANAGER_SHUTDOWN_KEEP);
    CU_ASSERT_STRING_EQUAL(m.lock_dir, "/tmp/l");
    CU_ASSERT_EQUAL(m.store, SBX_MANAGER_STORE_REDIS);
    CU_ASSERT_STRING_EQUAL(m.store_path, "/tmp/x.db");
    CU_ASSERT_STRING_EQUAL(m.redis_url, "redis://127.0.0.1:6390/2");
    CU_ASSERT_STRING_EQUAL(m.key_prefix, "deerflow:sandbox:owner");
    CU_ASSERT_EQUAL(m.renewal_interval_ms, 2000);
    CU_ASSERT_EQUAL(m.ttl_multiplier, 3);
    sbx_config_free(c);
    unsetenv("SBX_T_REDIS");
    unsetenv("SBX_T_IDLE");
}

static void test_manager_section_errors_are_named(void)
{
    static const struct { const char *text, *message; } cases[] = {
        {"{\"manager\":{\"idle_timeout\":1}}",
         "test.json: unknown key 'manager.idle_timeout' (expected idle_timeout_s, replicas, "
         "check_interval_s, ready_path, ready_timeout_s, ready_interval_s, shutdown, lock_dir, "
         "reap_running_processes, default_lifetime_s, max_lifetime_s, ownership)"},
        {"{\"manager\":{\"reap_running_processes\":1}}",
         "test.json: manager.reap_running_processes must be true or false"},
        {"{\"manager\":{\"reap_running_processes\":\"yes\"}}",
         "test.json: manager.reap_running_processes must be false or true"},
        {"{\"manager\":{\"ownership\":{\"stor\":\"sqlite\"}}}",
         "test.json: unknown key 'manager.ownership.stor' (expected store, path, redis_url, "
         "key_prefix, renewal_interval_s, ttl_multiplier)"},
        {"{\"manager\":{\"ownership\":{\"store\":\"etcd\"}}}",
         "test.json: manager.ownership.store must be memory or sqlite or redis"},
        {"{\"manager\":{\"shutdown\":\"drain\"}}",
         "test.json: manager.shutdown must be destroy or keep"},
        {"{\"manager\":{\"replicas\":0}}", "test.json: manager: replicas must be >= 1"},
        {"{\"manager\":{\"replicas\":1.5}}",
         "test.json: manager.replicas must be a whole number up to 1000000"},
        {"{\"manager\":{\"idle_timeout_s\":-1}}",
         "test.json: manager.idle_timeout_s must be a number >= 0"},
        {"{\"manager\":{\"check_interval_s\":\"soon\"}}",
         "test.json: manager.check_interval_s must be a number"},
        {"{\"manager\":{\"check_interval_s\":0}}",
         "test.json: manager: check_interval must be > 0"},
        {"{\"manager\":{\"ownership\":{\"ttl_multiplier\":1}}}",
         "test.json: manager: ownership.ttl_multiplier must be >= 2"},
        {"{\"manager\":{\"ready_path\":\"v1\"}}",
         "test.json: manager: ready_path must start with '/'"},
        {"{\"manager\":{\"ready_path\":7}}", "test.json: manager.ready_path must be a string"},
        {"{\"manager\":[]}", "test.json: manager must be an object"},
        {"{\"manager\":{\"ownership\":{\"redis_url\":\"${SBX_T_UNSET_VAR}\"}}}",
         "test.json: manager.ownership.redis_url: environment variable 'SBX_T_UNSET_VAR' is not set"},
    };
    unsetenv("SBX_T_UNSET_VAR");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sbx_error err;
        parse(cases[i].text, SBX_ERR_CONFIG, &err);
        if (strcmp(err.message, cases[i].message) != 0)
            fprintf(stderr, "\n%s\n  gave: %s\n  want: %s\n", cases[i].text, err.message,
                    cases[i].message);
        CU_ASSERT_STRING_EQUAL(err.message, cases[i].message);
    }
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"the documented example parses", test_interfaces_example},
        {"${NAME} and ${NAME:-default} expansion", test_expansion_forms},
        {"an unset variable is named", test_unset_variable_is_named},
        {"unknown keys and bad types are named", test_unknown_keys_and_bad_types_are_named},
        {"invalid JSON is reported", test_invalid_json},
        {"command-line overrides", test_overrides},
        {"files: missing, unknown key", test_files},
        {"duplicate keys are named", test_duplicate_keys_are_named},
        {"a NUL in a string is named", test_nul_in_strings_is_named},
        {"text that is not UTF-8 is named", test_invalid_utf8_is_named},
        {"a whole value $NAME expands", test_bare_dollar_name},
        {"the manager section", test_manager_section},
        {"manager section errors are named", test_manager_section_errors_are_named},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("config", NULL, NULL, tests);
}
