/* Option parsing of the remote backend: what a user sees when a
 * configuration value is wrong (the identifier rules of common/sandbox_ids
 * are tested in tests/common-unit/test_sandbox_ids.c). */
#include <config.h>

#include "tests/support/cunit_main.h"
#include "tests/support/secret_runs.h"

#include "plugin/remote/remote_options.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Parse a NULL-terminated list of key, value pairs. */
static sbx_status parse(remote_options *opts, sbx_error *err, const char *const *kv)
{
    sbx_option options[16];
    size_t n = 0;
    for (; kv[2 * n] != NULL; n++)
        options[n] = (sbx_option){ kv[2 * n], kv[2 * n + 1] };
    sbx_error_clear(err);
    return remote_options_parse(options, n, opts, err);
}

static void test_defaults_of_the_reference_client(void)
{
    remote_options o;
    sbx_error err;
    const char *kv[] = { "provisioner_url", "http://provisioner:8002/", NULL };
    CU_ASSERT_EQUAL_FATAL(parse(&o, &err, kv), SBX_OK);
    CU_ASSERT_STRING_EQUAL(o.provisioner_url, "http://provisioner:8002");
    CU_ASSERT_PTR_NULL(o.api_key);
    CU_ASSERT_EQUAL(o.list_timeout_ms, 10000);
    CU_ASSERT_EQUAL(o.create_timeout_ms, 30000);
    CU_ASSERT_EQUAL(o.destroy_timeout_ms, 15000);
    CU_ASSERT_EQUAL(o.get_timeout_ms, 10000);
    CU_ASSERT_EQUAL(o.max_response_bytes, (size_t)16 * 1024 * 1024);
    CU_ASSERT_EQUAL(o.forward_mount_count, 6u);
    for (size_t i = 0; i < o.forward_mount_count; i++)
        CU_ASSERT_STRING_NOT_EQUAL(o.forward_mounts[i], "/mnt/skills/custom");
    remote_options_clear(&o);
}

static void test_timeout_ms_overrides_every_call(void)
{
    remote_options o;
    sbx_error err;
    const char *kv[] = { "timeout_ms", "1500", "provisioner_url", "https://p.example",
                         "create_timeout_ms", "99", "connect_timeout_ms", "250",
                         "api_key", "secret", NULL };
    CU_ASSERT_EQUAL_FATAL(parse(&o, &err, kv), SBX_OK);
    CU_ASSERT_EQUAL(o.list_timeout_ms, 1500);
    CU_ASSERT_EQUAL(o.create_timeout_ms, 1500);
    CU_ASSERT_EQUAL(o.destroy_timeout_ms, 1500);
    CU_ASSERT_EQUAL(o.get_timeout_ms, 1500);
    CU_ASSERT_EQUAL(o.connect_timeout_ms, 250);
    CU_ASSERT_STRING_EQUAL(o.api_key, "secret");
    remote_options_clear(&o);
}

static void expect_config_error(const char *const *kv, const char *needle)
{
    remote_options o;
    sbx_error err;
    CU_ASSERT_EQUAL(parse(&o, &err, kv), SBX_ERR_CONFIG);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, needle));
    remote_options_clear(&o);
}

static void test_option_errors_name_the_key(void)
{
    const char *unknown[] = { "provisioner_url", "http://p", "api_kee", "x", NULL };
    expect_config_error(unknown, "unknown option 'api_kee'");
    const char *missing[] = { "api_key", "k", NULL };
    expect_config_error(missing, "option 'provisioner_url' of backend 'remote' is required");
    const char *scheme[] = { "provisioner_url", "ftp://p", NULL };
    expect_config_error(scheme, "option 'provisioner_url' of backend 'remote': 'ftp://p'");
    const char *no_host[] = { "provisioner_url", "http://", NULL };
    expect_config_error(no_host, "has no host");
    const char *zero[] = { "provisioner_url", "http://p", "timeout_ms", "0", NULL };
    expect_config_error(zero, "option 'timeout_ms' of backend 'remote': '0' is not an integer "
                                  "from 1 to 86400000");
    const char *negative[] = { "provisioner_url", "http://p", "list_timeout_ms", "-5", NULL };
    expect_config_error(negative, "option 'list_timeout_ms' of backend 'remote': '-5'");
    const char *junk[] = { "provisioner_url", "http://p", "get_timeout_ms", "10s", NULL };
    expect_config_error(junk, "option 'get_timeout_ms' of backend 'remote': '10s'");
    const char *huge[] = { "provisioner_url", "http://p", "max_response_bytes",
                           "99999999999999999999999", NULL };
    expect_config_error(huge, "option 'max_response_bytes' of backend 'remote': "
                              "'99999999999999999999999' is not an integer from 1 to 1073741824");
    const char *ca[] = { "provisioner_url", "https://p", "ca_file", "/nonexistent/ca.pem", NULL };
    expect_config_error(ca, "option 'ca_file' of backend 'remote': '/nonexistent/ca.pem'");
    const char *relative[] = { "provisioner_url", "http://p", "forward_mounts", "mnt/x", NULL };
    expect_config_error(relative, "forward_mounts");
}

static void test_api_key_is_never_echoed(void)
{
    remote_options o;
    sbx_error err;
    const char *kv[] = { "provisioner_url", "http://p", "api_key", "top-secret\r\nX-Evil: 1",
                         NULL };
    CU_ASSERT_EQUAL(parse(&o, &err, kv), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "api_key"));
    CU_ASSERT_PTR_NULL(strstr(err.message, "top-secret"));
    remote_options_clear(&o);

    const char *empty[] = { "provisioner_url", "http://p", "api_key", "", NULL };
    CU_ASSERT_EQUAL(parse(&o, &err, empty), SBX_OK);
    CU_ASSERT_PTR_NULL(o.api_key); /* an empty key means "no key" */
    remote_options_clear(&o);
}

/* Issue 10 item 3: a base URL is scheme://[user:password@]host[:port][/path]
 * and nothing else.  A query or fragment would swallow the paths the backend
 * appends (a DELETE went to "/" and its 404 read as "already gone"), so it
 * and every other malformed URL is a config error at open naming the option
 * and the rule broken. */
static void test_provisioner_url_is_scheme_host_port_and_path_only(void)
{
    static const struct {
        const char *url;
        const char *rule;
    } refused[] = {
        { "http://h:8002#x", "query or fragment" },
        { "http://h:8002?a=b", "query or fragment" },
        { "http://h:8002/pre?q=", "query or fragment" },
        { "https://h/api#", "query or fragment" },
        { "http://h:8002/?", "query or fragment" },
        { "http://h:8002 ", "whitespace" },
        { "http://h:80\t02", "whitespace" },
        { "http://h:8002\n", "whitespace" },
        { "http://h\x01:8002", "control" },
        { "http://h\x7f:8002", "control" },
        { "http://h\xc3\xa9:8002", "non-ASCII" },
        { "http://h:0", "port" },
        { "http://h:65536", "port" },
        { "http://h:99999999999999999999", "port" },
        { "http://h:8o02", "port" },
        { "http://h:", "port" },
        { "http://h:-1/x", "port" },
        { "http://[::1]:0", "port" },
        { "http://[::1", "IPv6" },
        { "http://", "no host" },
        { "http:///api", "no host" },
        { "http://:8002", "no host" },
        { "http://user:pw@/x", "no host" },
        { "ftp://h:8002", "must begin with http:// or https://" },
        { "h:8002", "must begin with http:// or https://" },
        { " http://h:8002", "must begin with http:// or https://" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        remote_options o;
        sbx_error err;
        const char *kv[] = { "provisioner_url", refused[i].url, NULL };
        CU_ASSERT_EQUAL(parse(&o, &err, kv), SBX_ERR_CONFIG);
        int named = strstr(err.message, "provisioner_url") != NULL &&
                    strstr(err.message, refused[i].rule) != NULL;
        CU_ASSERT(named);
        if (!named)
            fprintf(stderr, "case %zu: %s\n", i, err.message);
        remote_options_clear(&o);
    }
    static const char *const accepted[] = {
        "http://h", "HTTP://H:8002", "https://h:443/prefix/", "http://[::1]:8002",
        "http://user:pw@h:1", "http://h:65535/a/b", "http://10.0.0.1:8002",
    };
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
        remote_options o;
        sbx_error err;
        const char *kv[] = { "provisioner_url", accepted[i], NULL };
        CU_ASSERT_EQUAL(parse(&o, &err, kv), SBX_OK);
        remote_options_clear(&o);
    }
}

/* Issue 10 item 6: a refused provisioner_url is quoted without its
 * credentials, whatever the reason for the refusal and however the
 * password is spelt (a '/', '?', '#' or '@' in it, unescaped). */
static void test_a_refused_url_never_shows_its_password(void)
{
    static const struct {
        const char *url;
        const char *password;
    } refused[] = {
        { "ftp://user:Pw9xQz7K@h:8002", "Pw9xQz7K" },
        { "http://user:Pw9xQz7K@h:8002 ", "Pw9xQz7K" },
        { "http://user:Pw9xQz7K@h:8002#x", "Pw9xQz7K" },
        { "http://user:Pw9xQz7K@h:8002/pre?q=", "Pw9xQz7K" },
        { "http://user:Pw9xQz7K@h:0", "Pw9xQz7K" },
        { "http://user:Pw9xQz7K@", "Pw9xQz7K" },
        { "http://user:Pw9xQz7K@h\x01", "Pw9xQz7K" },
        { "http://user:Pw9x\xc3\xa9Qz7K@h", "Pw9x\xc3\xa9Qz7K" },
        { "http://user:Pw9x Qz7K@h", "Pw9x Qz7K" },
        { "http://us@er:Pw9xQz7K@h:0", "Pw9xQz7K" },
        { "user:Pw9xQz7K@h:8002", "Pw9xQz7K" },
        { "http://user:Pw9x/Qz7K@h:8002", "Pw9x/Qz7K" },
        { "http://user:Pw9x?Qz7K@h:8002", "Pw9x?Qz7K" },
        { "http://user:Pw9x#Qz7K@h:8002", "Pw9x#Qz7K" },
        { "user:Pw9x/Qz7K@h:8002", "Pw9x/Qz7K" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        remote_options o;
        sbx_error err;
        const char *kv[] = { "provisioner_url", refused[i].url, NULL };
        CU_ASSERT_EQUAL(parse(&o, &err, kv), SBX_ERR_CONFIG);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "provisioner_url"));
        int hidden = !sbx_test_holds_run_of(err.message, refused[i].password);
        CU_ASSERT(hidden);
        if (!hidden)
            fprintf(stderr, "case %zu: %s\n", i, err.message);
        remote_options_clear(&o);
    }
}

/* A fresh file under a fresh directory (`content` NULL: none is made),
 * its path in path[cap]; the directory's path in dir[cap]. */
static void make_temp_dir(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/sbx-ca-file.XXXXXX");
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
}

/* Issue 10 item 13: a ca_file that is not a readable, non-empty regular
 * file passed open and made every later call fail as transport ("retry
 * later"); it is a config error at open naming the option. */
static void test_ca_file_must_be_a_non_empty_regular_file(void)
{
    char dir[64], empty[128], fifo[128], link[128], good[128];
    make_temp_dir(dir, sizeof dir);
    snprintf(empty, sizeof empty, "%s/empty.pem", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo.pem", dir);
    snprintf(link, sizeof link, "%s/dir-link.pem", dir);
    snprintf(good, sizeof good, "%s/ca.pem", dir);
    FILE *f = fopen(empty, "w");
    CU_ASSERT_FATAL(f != NULL);
    fclose(f);
    f = fopen(good, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("-----BEGIN CERTIFICATE-----\n", f);
    fclose(f);
    CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
    CU_ASSERT_FATAL(symlink(dir, link) == 0);

    const char *const refused[] = { dir, "/", "/dev/zero", "/dev/null", empty, fifo, link,
                                    "/nonexistent/ca.pem", "" };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        remote_options o;
        sbx_error err;
        const char *kv[] = { "provisioner_url", "https://p", "ca_file", refused[i], NULL };
        CU_ASSERT_EQUAL(parse(&o, &err, kv), SBX_ERR_CONFIG);
        char named[160];
        snprintf(named, sizeof named, "option 'ca_file' of backend 'remote': '%s'", refused[i]);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, named));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "regular file"));
        remote_options_clear(&o);
    }
    remote_options o;
    sbx_error err;
    const char *kv[] = { "provisioner_url", "https://p", "ca_file", good, NULL };
    CU_ASSERT_EQUAL(parse(&o, &err, kv), SBX_OK);
    CU_ASSERT_STRING_EQUAL(o.ca_file, good);
    remote_options_clear(&o);

    unlink(empty);
    unlink(fifo);
    unlink(link);
    unlink(good);
    rmdir(dir);
}

/* Write `text` to `path` with `mode`. */
static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(text, f);
    fclose(f);
    CU_ASSERT_FATAL(chmod(path, mode) == 0);
}

/* api_key_file and sandbox_api_key_file read a key from a file only its
 * owner may open; api_key_env and sandbox_api_key_env from a variable.
 * A refused file or variable is named with the fix, its key never shown. */
static void test_keys_come_from_files_and_variables(void)
{
    char dir[64], good[128], open_to_all[128], two[128];
    make_temp_dir(dir, sizeof dir);
    snprintf(good, sizeof good, "%s/good.key", dir);
    snprintf(open_to_all, sizeof open_to_all, "%s/open.key", dir);
    snprintf(two, sizeof two, "%s/two.key", dir);
    write_file(good, "k3y-of-the-file\r\n", 0600);
    write_file(open_to_all, "k3y-open-to-all\n", 0644);
    write_file(two, "k3y-line-one\nline-two\n", 0400);
    setenv("SBX_TEST_SANDBOX_KEY", "k3y-of-the-variable", 1);
    setenv("SBX_TEST_EMPTY_KEY", "", 1);
    unsetenv("SBX_TEST_UNSET_KEY");

    remote_options o;
    sbx_error err;
    const char *kv[] = { "provisioner_url", "http://p", "api_key", "from-argv",
                         "api_key_file", good, "sandbox_api_key_env", "SBX_TEST_SANDBOX_KEY",
                         NULL };
    CU_ASSERT_EQUAL_FATAL(parse(&o, &err, kv), SBX_OK);
    CU_ASSERT_STRING_EQUAL(o.api_key, "k3y-of-the-file");
    CU_ASSERT_STRING_EQUAL(o.sandbox_api_key, "k3y-of-the-variable");
    remote_options_clear(&o);
    const char *last[] = { "provisioner_url", "http://p", "sandbox_api_key_file", good,
                           "api_key_env", "SBX_TEST_EMPTY_KEY", NULL };
    CU_ASSERT_EQUAL_FATAL(parse(&o, &err, last), SBX_OK);
    CU_ASSERT_PTR_NULL(o.api_key); /* empty: none, as api_key "" */
    CU_ASSERT_STRING_EQUAL(o.sandbox_api_key, "k3y-of-the-file");
    remote_options_clear(&o);

    const struct {
        const char *key, *value, *why;
    } refused[] = {
        { "api_key_file", open_to_all, "(mode 0644): run chmod 600 on it" },
        { "sandbox_api_key_file", open_to_all, "(mode 0644): run chmod 600 on it" },
        { "api_key_file", two, "more than one line" },
        { "api_key_file", dir, "not a regular file" },
        { "sandbox_api_key_file", "/nonexistent/k", "cannot be opened" },
        { "api_key_env", "SBX_TEST_UNSET_KEY", "names no environment variable that is set" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        const char *bad[] = { "provisioner_url", "http://p", refused[i].key, refused[i].value,
                              NULL };
        CU_ASSERT_EQUAL(parse(&o, &err, bad), SBX_ERR_CONFIG);
        char named[200];
        snprintf(named, sizeof named, "option '%s' of backend 'remote': '%s' ", refused[i].key,
                 refused[i].value);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, named));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, refused[i].why));
        CU_ASSERT_PTR_NULL(strstr(err.message, "k3y"));
        remote_options_clear(&o);
    }
    unsetenv("SBX_TEST_SANDBOX_KEY");
    unsetenv("SBX_TEST_EMPTY_KEY");
    unlink(good);
    unlink(open_to_all);
    unlink(two);
    rmdir(dir);
}

static void test_forward_mounts_replaces_the_default_allowlist(void)
{
    remote_options o;
    sbx_error err;
    const char *kv[] = { "provisioner_url", "http://p", "forward_mounts",
                         " /mnt/skills/custom , /mnt/acp-workspace,,", NULL };
    CU_ASSERT_EQUAL_FATAL(parse(&o, &err, kv), SBX_OK);
    CU_ASSERT_EQUAL_FATAL(o.forward_mount_count, 2u);
    CU_ASSERT_STRING_EQUAL(o.forward_mounts[0], "/mnt/skills/custom");
    CU_ASSERT_STRING_EQUAL(o.forward_mounts[1], "/mnt/acp-workspace");
    remote_options_clear(&o);

    const char *none[] = { "provisioner_url", "http://p", "forward_mounts", "", NULL };
    CU_ASSERT_EQUAL(parse(&o, &err, none), SBX_OK);
    CU_ASSERT_EQUAL(o.forward_mount_count, 0u);
    remote_options_clear(&o);
}

void sbx_test_register(void)
{
    static const CU_TestInfo options[] = {
        { "defaults_of_the_reference_client", test_defaults_of_the_reference_client },
        { "timeout_ms_overrides_every_call", test_timeout_ms_overrides_every_call },
        { "option_errors_name_the_key", test_option_errors_name_the_key },
        { "api_key_is_never_echoed", test_api_key_is_never_echoed },
        { "forward_mounts_replaces_the_default_allowlist",
          test_forward_mounts_replaces_the_default_allowlist },
        { "provisioner_url_is_scheme_host_port_and_path_only",
          test_provisioner_url_is_scheme_host_port_and_path_only },
        { "a_refused_url_never_shows_its_password", test_a_refused_url_never_shows_its_password },
        { "ca_file_must_be_a_non_empty_regular_file",
          test_ca_file_must_be_a_non_empty_regular_file },
        { "keys_come_from_files_and_variables", test_keys_come_from_files_and_variables },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote options", NULL, NULL, options);
}
