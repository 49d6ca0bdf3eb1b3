/* sbxctl without a provisioner: usage errors, configuration, backend
 * loading and listing, transport failures and keeping the API key out of
 * the output.  Each test runs the built program as a user would. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/sbxctl/run_sbxctl.h"
#include "tests/sbxctl/sbxctl_checks.h"
#include "tests/support/cunit_main.h"
#include "tests/support/scratch_dir.h"
#include "tools/sbxctl/option_hints.h"

#define ARGS SBX_TEST_ARGS

/* A secret that must never be printed. */
#define SECRET_KEY "sk-test-5e3f9a1c7b2d"

/* ------------------------------------------------------------ helpers */

/* A fresh scratch directory (free it with remove_files), or NULL. */
static char *make_temp_dir(void)
{
    char *path = malloc(PATH_MAX);
    if (path != NULL && sbx_test_scratch_dir(path, PATH_MAX, "sbxctl-test") != 0) {
        free(path);
        return NULL;
    }
    return path;
}

/* Write `text` to DIR/NAME; returns the file's path (caller frees) or NULL. */
static char *write_file(const char *dir, const char *name, const char *text)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0)
        return NULL;
    FILE *file = fopen(path, "w");
    if (file == NULL) {
        free(path);
        return NULL;
    }
    fputs(text, file);
    fclose(file);
    return path;
}

/* Remove the directory with what the test wrote in it; free the names. */
static void remove_files(char *dir, char **files, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(files[i]);
    if (dir != NULL)
        sbx_test_remove_tree(dir);
    free(dir);
}

static char *url_of_port(int port)
{
    char *url = NULL;
    if (asprintf(&url, "http://127.0.0.1:%d", port) < 0)
        return NULL;
    return url;
}

static char *format_arg(const char *prefix, const char *value)
{
    char *text = NULL;
    if (asprintf(&text, "%s%s", prefix, value) < 0)
        return NULL;
    return text;
}

/* ------------------------------------------------------------ usage */

static void test_no_command_is_a_usage_error(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--json"));
    sbx_test_assert_failure(&run, 2, "usage", "no command");
    json_object *failure = sbx_test_assert_json_failure(&run, "usage");
    json_object_put(failure);
    sbx_test_run_clear(&run);
}

static void test_unknown_command_is_named(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("frobnicate"));
    sbx_test_assert_failure(&run, 2, "usage", "'frobnicate'");
    CU_ASSERT_EQUAL(run.out_len, 0);
    sbx_test_run_clear(&run);
}

static void test_unknown_option_is_named(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--frob", "list"));
    sbx_test_assert_failure(&run, 2, "usage", "'--frob'");
    sbx_test_run_clear(&run);

    /* An unknown option's value is not echoed. */
    sbx_test_sbxctl(&run, NULL, ARGS("--frob=" SECRET_KEY, "list"));
    sbx_test_assert_failure(&run, 2, "usage", "'--frob'");
    CU_ASSERT_TRUE(sbx_test_run_hides(&run, SECRET_KEY));
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("-x", "list"));
    sbx_test_assert_failure(&run, 2, "usage", "'-x'");
    sbx_test_run_clear(&run);
}

static void test_missing_option_argument_is_named(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("list", "--backend"));
    sbx_test_assert_failure(&run, 2, "usage", "'--backend'");
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("create", "--thread"));
    sbx_test_assert_failure(&run, 2, "usage", "'--thread'");
    sbx_test_run_clear(&run);
}

static void test_missing_sandbox_id_is_named(void)
{
    static const char *const commands[] = {"destroy", "alive", "discover", "reconcile"};
    for (size_t i = 0; i < 4; i++) {
        sbx_test_run run;
        sbx_test_sbxctl(&run, NULL, ARGS(commands[i]));
        char quoted[32];
        snprintf(quoted, sizeof quoted, "'%s'", commands[i]);
        sbx_test_assert_failure(&run, 2, "usage", quoted);
        sbx_test_run_clear(&run);
    }
}

static void test_extra_argument_is_named(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("alive", "sb-1", "sb-2"));
    sbx_test_assert_failure(&run, 2, "usage", "'sb-2'");
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("list", "extra"));
    sbx_test_assert_failure(&run, 2, "usage", "'extra'");
    sbx_test_run_clear(&run);
}

static void test_create_needs_thread_or_id(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("create", "--user", "alice"));
    sbx_test_assert_failure(&run, 2, "usage", "--thread");
    sbx_test_run_clear(&run);
}

static void test_create_options_belong_to_create(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("list", "--thread", "t1"));
    sbx_test_assert_failure(&run, 2, "usage", "'--thread'");
    sbx_test_run_clear(&run);
}

static void test_bad_create_values_are_named(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("create", "--id", "x", "--mount", "/only-host"));
    sbx_test_assert_failure(&run, 2, "usage", "'/only-host'");
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("create", "--id", "x", "--require-contract", "two"));
    sbx_test_assert_failure(&run, 2, "usage", "'two'");
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("create", "--id", "x", "--require-contract", "-1"));
    sbx_test_assert_failure(&run, 2, "usage", "--require-contract");
    sbx_test_run_clear(&run);
}

static void test_set_without_equals_does_not_echo_it(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--set", SECRET_KEY, "list"));
    sbx_test_assert_failure(&run, 2, "usage", "'--set'");
    CU_ASSERT_TRUE(sbx_test_run_hides(&run, SECRET_KEY));
    sbx_test_run_clear(&run);
}

static void test_json_usage_error_is_one_failure_object(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--json", "frobnicate"));
    sbx_test_assert_failure(&run, 2, "usage", "'frobnicate'");
    json_object *failure = sbx_test_assert_json_failure(&run, "usage");
    if (failure != NULL) {
        json_object *error = json_object_object_get(failure, "error");
        const char *message = sbx_test_json_string(error, "message");
        CU_ASSERT_PTR_NOT_NULL(message != NULL ? strstr(message, "'frobnicate'") : NULL);
        CU_ASSERT_TRUE(sbx_test_json_is_null(error, "http_status"));
        CU_ASSERT_TRUE(sbx_test_json_is_null(error, "expected"));
        CU_ASSERT_TRUE(sbx_test_json_is_null(error, "actual"));
    }
    json_object_put(failure);
    sbx_test_run_clear(&run);
}

static void test_help_and_version(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--help"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "Usage: sbxctl"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "reconcile ID"));
    CU_ASSERT_EQUAL(run.err_len, 0);
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("-h"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "Usage: sbxctl"));
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("--version"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "sbxctl "));
    CU_ASSERT_EQUAL(sbx_test_count_lines(run.out), 1);
    sbx_test_run_clear(&run);
}

/* Every command and option is in --help and in the manual page. */
static void test_help_and_manual_cover_the_interface(void)
{
    static const char *const words[] = {
        "backends", "create", "destroy", "alive", "discover", "list", "capabilities",
        "reconcile", "--config", "--backend", "--set", "--json", "--thread", "--id",
        "--user", "--mount", "--legacy-skills", "--lark-runtime", "--lark-broker",
        "--require-contract", "--help", "--version", "extend", "--image", "--env", "--label",
        "--memory", "--cpus", "--pids", "--disk", "--network", "--expire-in"};
    const char *srcdir = getenv("SBX_TEST_SRCDIR");
    CU_ASSERT_PTR_NOT_NULL_FATAL(srcdir);
    char *man_path = format_arg(srcdir, "/docs/sbxctl.1");
    FILE *man = fopen(man_path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(man);
    char *manual = NULL;
    size_t manual_len = 0;
    CU_ASSERT_FATAL(getdelim(&manual, &manual_len, '\0', man) > 0);
    fclose(man);

    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--help"));
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        /* roff writes each '-' of an option as "\-". */
        char roff[64];
        size_t n = 0;
        for (const char *c = words[i]; *c != '\0' && n + 3 < sizeof roff; c++) {
            if (*c == '-')
                roff[n++] = '\\';
            roff[n++] = *c;
        }
        roff[n] = '\0';
        CU_ASSERT_PTR_NOT_NULL(strstr(run.out, words[i]));
        CU_ASSERT_PTR_NOT_NULL(strstr(manual, roff));
        if (strstr(run.out, words[i]) == NULL || strstr(manual, roff) == NULL)
            fprintf(stderr, "not documented: %s\n", words[i]);
    }
    static const char *const environment[] = {"SBX_CONFIG", "SBX_MODULE_PATH"};
    for (size_t i = 0; i < 2; i++)
        CU_ASSERT_PTR_NOT_NULL(strstr(manual, environment[i]));
    sbx_test_run_clear(&run);
    free(manual);
    free(man_path);
}

/* Arguments that go into requests or JSON must be text: bytes that are not
 * UTF-8 anywhere, and control characters in ids and names, are usage errors
 * naming the argument (not echoing it), and the --json failure is strict
 * UTF-8 JSON.  Each kind of bad byte in each position. */
static void test_arguments_that_are_not_text_are_named(void)
{
    static const char *const not_utf8[] = {
        "\xff", "a\x80", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
        "\xe2\x82", "\xf0\x9f\x98",
    };
    static const char *const controls[] = {"a\nb", "\x1b[31m", "a\tb", "a\x7f", "\r"};
    for (size_t i = 0; i < sizeof not_utf8 / sizeof not_utf8[0] + 5; i++) {
        int bad_utf8 = i < sizeof not_utf8 / sizeof not_utf8[0];
        const char *bad = bad_utf8 ? not_utf8[i] : controls[i - sizeof not_utf8 / sizeof not_utf8[0]];
        char *mount = format_arg(bad, ":/mnt/x");
        char *setting = format_arg("api_key=", bad);
        char *key = format_arg(bad, "=1");
        struct {
            const char *const *args;
            const char *needle;
            int refused;
        } cases[] = {
            {ARGS("--json", "create", "--id", bad), "option '--id'", 1},
            {ARGS("--json", "create", "--thread", bad), "option '--thread'", 1},
            {ARGS("--json", "create", "--id", "x", "--user", bad), "option '--user'", 1},
            {ARGS("--json", "--backend", bad, "list"), "option '--backend'", 1},
            {ARGS("--json", "destroy", bad), "sandbox ID of command 'destroy'", 1},
            {ARGS("--json", "alive", bad), "sandbox ID of command 'alive'", 1},
            {ARGS("--json", "discover", bad), "sandbox ID of command 'discover'", 1},
            {ARGS("--json", "reconcile", bad), "sandbox ID of command 'reconcile'", 1},
            {ARGS("--json", "--set", key, "list"), "the KEY of option '--set'", 1},
            /* Paths and values may hold control characters, not other bytes. */
            {ARGS("--json", "create", "--id", "x", "--mount", mount), "option '--mount'",
             bad_utf8},
            {ARGS("--json", "--set", setting, "list"), "the value of option '--set api_key'",
             bad_utf8},
        };
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            sbx_test_run run;
            sbx_test_sbxctl(&run, NULL, cases[c].args);
            json_object *object = sbx_test_run_json(&run);
            CU_ASSERT_PTR_NOT_NULL(object);
            if (cases[c].refused) {
                sbx_test_assert_failure(&run, 2, "usage", cases[c].needle);
                CU_ASSERT_PTR_NOT_NULL(strstr(run.err, bad_utf8 ? "not valid UTF-8"
                                                                : "control character"));
                CU_ASSERT_TRUE(sbx_test_run_hides(&run, bad));
            } else {
                CU_ASSERT_PTR_NULL(strstr(run.err, cases[c].needle));
            }
            json_object_put(object);
            sbx_test_run_clear(&run);
        }
        free(mount);
        free(setting);
        free(key);
    }

    /* Text of any script is fine: the backend judges it. */
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--json", "--set", "no_such_option=caf\xc3\xa9", "list"));
    sbx_test_assert_failure(&run, 2, "config", "no_such_option");
    json_object_put(sbx_test_assert_json_failure(&run, "config"));
    sbx_test_run_clear(&run);
}

/* Bytes that are not UTF-8 where sbxctl echoes an argument or a path (an
 * unknown command, a --config path) still give strict UTF-8 JSON: each
 * such byte becomes U+FFFD. */
static void test_json_output_is_utf8_for_any_bytes(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--json", "frob\xff\xc3"));
    json_object *failure = sbx_test_assert_json_failure(&run, "usage");
    const char *message = sbx_test_json_string(json_object_object_get(failure, "error"),
                                               "message");
    CU_ASSERT_PTR_NOT_NULL(message != NULL ? strstr(message, "'frob\xef\xbf\xbd\xef\xbf\xbd'")
                                           : NULL);
    json_object_put(failure);
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("--json", "--config", "/nonexistent/caf\xe9.json", "list"));
    failure = sbx_test_assert_json_failure(&run, "config");
    message = sbx_test_json_string(json_object_object_get(failure, "error"), "message");
    CU_ASSERT_PTR_NOT_NULL(message != NULL ? strstr(message, "caf\xef\xbf\xbd.json") : NULL);
    json_object_put(failure);
    sbx_test_run_clear(&run);

    /* A cut-short character (E1 80, then 'z') is one maximal subpart: one
     * U+FFFD, as the AIO answers repair it. */
    sbx_test_sbxctl(&run, NULL, ARGS("--json", "--config", "/nonexistent/a\xe1\x80z.json",
                                     "list"));
    failure = sbx_test_assert_json_failure(&run, "config");
    message = sbx_test_json_string(json_object_object_get(failure, "error"), "message");
    CU_ASSERT_PTR_NOT_NULL(message != NULL ? strstr(message, "/a\xef\xbf\xbdz.json") : NULL);
    json_object_put(failure);
    sbx_test_run_clear(&run);
}

/* A secret that holds JSON syntax is masked inside string values only:
 * the document around them stays valid. */
static void test_secret_masking_keeps_json_valid(void)
{
    static const char *const secrets[] = {"null", "\",\"http_status\":", "error", "\":{\""};
    for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++) {
        char *setting = format_arg("api_key=", secrets[i]);
        sbx_test_run run;
        sbx_test_sbxctl(&run, NULL, ARGS("--json", "--set", setting, "list"));
        json_object *failure = sbx_test_assert_json_failure(&run, "config");
        json_object_put(failure);
        sbx_test_run_clear(&run);
        free(setting);
    }
}

/* ------------------------------------------------------------ loading */

static void test_unknown_backend_is_a_load_error(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--backend", "nope", "list"));
    sbx_test_assert_failure(&run, 8, "load", "nope");
    CU_ASSERT_EQUAL(run.out_len, 0);
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("--json", "--backend", "nope", "list"));
    sbx_test_assert_failure(&run, 8, "load", "nope");
    json_object *failure = sbx_test_assert_json_failure(&run, "load");
    json_object_put(failure);
    sbx_test_run_clear(&run);
}

/* A file named bogus.so that is not a shared object, first on the path. */
static void test_garbage_module_is_refused_naming_its_path(void)
{
    char *dir = make_temp_dir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *module = write_file(dir, "bogus.so", "this is not an ELF file\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(module);
    const char *inherited = getenv("SBX_MODULE_PATH");
    char *path_var = NULL;
    CU_ASSERT_FATAL(asprintf(&path_var, "SBX_MODULE_PATH=%s:%s", dir,
                             inherited != NULL ? inherited : "") >= 0);

    sbx_test_run run;
    sbx_test_sbxctl(&run, ARGS(path_var), ARGS("--backend", "bogus", "list"));
    sbx_test_assert_failure(&run, 8, "load", module);
    sbx_test_run_clear(&run);

    /* A refused module does not hide the good ones from `backends`. */
    sbx_test_sbxctl(&run, ARGS(path_var), ARGS("backends"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "remote"));
    sbx_test_run_clear(&run);

    free(path_var);
    char *files[] = {module};
    remove_files(dir, files, 1);
}

/* Column `header` starts at the same offset on every line of `table`. */
static int column_aligned(const char *table, const char *header)
{
    const char *found = strstr(table, header);
    if (found == NULL)
        return 0;
    size_t offset = (size_t)(found - table);
    for (const char *line = table; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        if (len <= offset || line[offset] == ' ' || line[offset - 1] != ' ')
            return 0;
        line += len + (end != NULL);
    }
    return 1;
}

static void test_backends_lists_local_and_remote(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("backends"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_EQUAL(strncmp(run.out, "NAME", 4), 0);
    CU_ASSERT_TRUE(column_aligned(run.out, "KIND"));
    CU_ASSERT_TRUE(column_aligned(run.out, "VERSION"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "\nlocal "));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "\nremote "));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "sbx-remote.so"));
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("--json", "backends"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    json_object *object = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(object);
    json_object *list = json_object_object_get(object, "backends");
    CU_ASSERT_TRUE_FATAL(json_object_is_type(list, json_type_array));
    int saw_local = 0, saw_remote = 0;
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        json_object *entry = json_object_array_get_idx(list, i);
        const char *name = sbx_test_json_string(entry, "name");
        const char *kind = sbx_test_json_string(entry, "kind");
        const char *abi = sbx_test_json_string(entry, "abi");
        const char *version = sbx_test_json_string(entry, "version");
        CU_ASSERT_EQUAL(json_object_object_length(entry), 5);
        CU_ASSERT_TRUE(name != NULL && kind != NULL && version != NULL);
        CU_ASSERT_TRUE(abi != NULL && strncmp(abi, "1.", 2) == 0);
        if (name != NULL && strcmp(name, "local") == 0) {
            saw_local = 1;
            sbx_test_assert_json_string(entry, "kind", "builtin");
            CU_ASSERT_TRUE(sbx_test_json_is_null(entry, "path"));
        }
        if (name != NULL && strcmp(name, "remote") == 0) {
            saw_remote = 1;
            const char *path = sbx_test_json_string(entry, "path");
            sbx_test_assert_json_string(entry, "kind", "module");
            CU_ASSERT_PTR_NOT_NULL(path != NULL ? strstr(path, "sbx-remote.so") : NULL);
        }
    }
    CU_ASSERT_TRUE(saw_local);
    CU_ASSERT_TRUE(saw_remote);
    json_object_put(object);
    sbx_test_run_clear(&run);
}

/* ------------------------------------------------------------ configuration */

static void test_bad_config_file_is_a_config_error(void)
{
    char *dir = make_temp_dir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *broken = write_file(dir, "broken.json", "{ \"backend\": ");
    char *typo = write_file(dir, "typo.json", "{ \"bakend\": \"remote\" }");
    CU_ASSERT_FATAL(broken != NULL && typo != NULL);

    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--json", "--config", broken, "list"));
    sbx_test_assert_failure(&run, 2, "config", "broken.json");
    json_object_put(sbx_test_assert_json_failure(&run, "config"));
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("--config", typo, "list"));
    sbx_test_assert_failure(&run, 2, "config", "bakend");
    sbx_test_run_clear(&run);

    char *files[] = {broken, typo};
    remove_files(dir, files, 2);
}

/* A --config (or $SBX_CONFIG) that is not a regular file, such as a FIFO
 * nobody writes to, is refused at once, naming it, instead of waiting. */
static void test_config_that_is_not_a_file_is_refused_at_once(void)
{
    char *dir = make_temp_dir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *fifo = format_arg(dir, "/sbx.json");
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    char *config_var = format_arg("SBX_CONFIG=", fifo);
    const char *const *envs[] = {NULL, ARGS(config_var)};
    const char *const *argvs[] = {ARGS("--json", "--config", fifo, "list"),
                                  ARGS("--json", "list")};
    for (size_t i = 0; i < 2; i++) {
        sbx_test_run run;
        int ran = sbx_test_run_sbxctl(argvs[i], envs[i], 5000, &run);
        CU_ASSERT_EQUAL(ran, 0);
        CU_ASSERT_FALSE(run.timed_out);
        if (ran == 0) {
            sbx_test_assert_failure(&run, 2, "config", fifo);
            CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "not a regular file"));
            json_object_put(sbx_test_assert_json_failure(&run, "config"));
        }
        sbx_test_run_clear(&run);
    }
    /* A directory too. */
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--config", dir, "list"));
    sbx_test_assert_failure(&run, 2, "config", "not a regular file");
    sbx_test_run_clear(&run);

    free(config_var);
    char *files[] = {fifo};
    remove_files(dir, files, 1);
}

/* The file names the backend twice: the user meant one of them, and
 * sbxctl must not pick the last silently. */
static void test_duplicate_config_key_is_named(void)
{
    char *dir = make_temp_dir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *twice = write_file(dir, "twice.json", "{\"backend\": \"local\", \"backend\": \"remote\"}");
    char *nested = write_file(dir, "nested.json",
                              "{\"backends\": {\"local\": {\"state_dir\": \"/a\", "
                              "\"state_dir\": \"/b\"}}}");
    CU_ASSERT_FATAL(twice != NULL && nested != NULL);
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--json", "--config", twice, "list"));
    sbx_test_assert_failure(&run, 2, "config", "duplicate key 'backend'");
    json_object_put(sbx_test_assert_json_failure(&run, "config"));
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("--config", nested, "list"));
    sbx_test_assert_failure(&run, 2, "config", "duplicate key 'backends.local.state_dir'");
    sbx_test_run_clear(&run);

    char *files[] = {twice, nested};
    remove_files(dir, files, 2);
}

static void test_config_from_environment_and_overrides(void)
{
    int port = 0;
    int refusing = sbx_test_refusing_port(&port);
    CU_ASSERT_FATAL(refusing >= 0);
    char *dir = make_temp_dir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *text = NULL;
    CU_ASSERT_FATAL(asprintf(&text,
                             "{\"backend\": \"remote\", \"backends\": {\"remote\": "
                             "{\"provisioner_url\": \"http://127.0.0.1:%d\", "
                             "\"api_key\": \"${SBXCTL_TEST_KEY}\"}}}",
                             port) >= 0);
    char *config = write_file(dir, "sbx.json", text);
    CU_ASSERT_PTR_NOT_NULL_FATAL(config);
    char *config_var = format_arg("SBX_CONFIG=", config);

    /* $SBX_CONFIG names the file; its backend and options are used. */
    sbx_test_run run;
    sbx_test_sbxctl(&run, ARGS(config_var, "SBXCTL_TEST_KEY=" SECRET_KEY), ARGS("-v", "list"));
    sbx_test_assert_failure(&run, 3, "transport", "");
    CU_ASSERT_TRUE(sbx_test_run_hides(&run, SECRET_KEY));
    sbx_test_run_clear(&run);

    /* The variable the file needs is unset: a config error naming it. */
    sbx_test_sbxctl(&run, ARGS(config_var, "SBXCTL_TEST_KEY"), ARGS("list"));
    sbx_test_assert_failure(&run, 2, "config", "SBXCTL_TEST_KEY");
    sbx_test_run_clear(&run);

    /* --backend overrides the file's backend. */
    sbx_test_sbxctl(&run, ARGS(config_var, "SBXCTL_TEST_KEY=x"),
                    ARGS("--backend", "nope", "list"));
    sbx_test_assert_failure(&run, 8, "load", "nope");
    sbx_test_run_clear(&run);

    /* --set overrides the file's option. */
    sbx_test_sbxctl(&run, ARGS(config_var, "SBXCTL_TEST_KEY=x"),
                    ARGS("--set", "provisioner_url=ftp://127.0.0.1/", "list"));
    CU_ASSERT_EQUAL(run.exit_code, 2);
    sbx_test_run_clear(&run);

    /* --config wins over $SBX_CONFIG (an empty file: the default backend). */
    char *empty = write_file(dir, "empty.json", "{}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(empty);
    sbx_test_sbxctl(&run, ARGS(config_var),
                    ARGS("--config", empty, "--backend", "nope", "list"));
    sbx_test_assert_failure(&run, 8, "load", "nope");
    sbx_test_run_clear(&run);

    close(refusing);
    free(text);
    free(config_var);
    char *files[] = {config, empty};
    remove_files(dir, files, 2);
}

static void test_config_module_path_is_searched(void)
{
    char *dir = make_temp_dir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *module = write_file(dir, "sbx-bogus.so", "not a module\n");
    char *text = NULL;
    CU_ASSERT_FATAL(asprintf(&text, "{\"module_path\": [\"%s\"]}", dir) >= 0);
    char *config = write_file(dir, "sbx.json", text);
    CU_ASSERT_FATAL(module != NULL && config != NULL);

    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--config", config, "--backend", "bogus", "list"));
    sbx_test_assert_failure(&run, 8, "load", module);
    sbx_test_run_clear(&run);

    free(text);
    char *files[] = {module, config};
    remove_files(dir, files, 2);
}

/* With neither --backend nor a file naming one, the backend is "local". */
static void test_default_backend_is_local(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--json", "--set", "no_such_option=1", "list"));
    sbx_test_assert_failure(&run, 2, "config", "no_such_option");
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "'local'"));
    json_object_put(sbx_test_assert_json_failure(&run, "config"));
    sbx_test_run_clear(&run);
}

static void test_unknown_backend_option_is_named(void)
{
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL,
                    ARGS("--backend", "remote", "--set", "provisioner_url=http://127.0.0.1:9",
                         "--set", "no_such_option=1", "list"));
    sbx_test_assert_failure(&run, 2, "config", "no_such_option");
    sbx_test_run_clear(&run);
}

/* The hint for `key`: "did you mean --backend B" for each backend of the
 * table that takes it, except `selected`; the run must show all of them. */
static void assert_hints_for(const sbx_test_run *run, const char *selected, const char *key)
{
    const common_option_table *table;
    for (size_t i = 0; (table = ctl_known_backend_table(i)) != NULL; i++) {
        if (strcmp(table->backend, selected) == 0)
            continue;
        for (size_t k = 0; k < table->count; k++) {
            if (strcmp(table->specs[k].key, key) != 0)
                continue;
            char wanted[64];
            snprintf(wanted, sizeof wanted, "--backend %s", table->backend);
            CU_ASSERT_PTR_NOT_NULL(strstr(run->err, wanted));
            if (strstr(run->err, wanted) == NULL)
                fprintf(stderr, "no hint '%s' for '%s': %s", wanted, key, run->err);
        }
    }
}

/* An option of another backend, given to the selected one, is still an
 * error, and it says which backend takes the option: for every option of
 * the remote and docker backends. */
static void test_option_of_another_backend_names_it(void)
{
    CU_ASSERT_FATAL(ctl_known_backend_table(1) != NULL);
    const common_option_table *table;
    for (size_t i = 0; (table = ctl_known_backend_table(i)) != NULL; i++) {
        for (size_t s = 0; s < table->count; s++) {
            const char *key = table->specs[s].key;
            char *setting = format_arg(key, "=1");
            sbx_test_run run;
            /* The default backend, local. */
            sbx_test_sbxctl(&run, NULL, ARGS("--json", "--set", setting, "list"));
            char unknown[96];
            snprintf(unknown, sizeof unknown, "unknown option '%s'", key);
            if (strstr(run.err, unknown) != NULL) {
                sbx_test_assert_failure(&run, 2, "config", "did you mean --backend ");
                assert_hints_for(&run, "local", key);
                json_object *failure = sbx_test_assert_json_failure(&run, "config");
                json_object *error = json_object_object_get(failure, "error");
                const char *message = sbx_test_json_string(error, "message");
                CU_ASSERT_PTR_NOT_NULL(message != NULL ? strstr(message, "did you mean") : NULL);
                json_object_put(failure);
            }
            sbx_test_run_clear(&run);

            /* The table is right: the backend it names takes the option. */
            sbx_test_sbxctl(&run, NULL, ARGS("--backend", table->backend, "--set", setting,
                                             "capabilities"));
            CU_ASSERT_PTR_NULL(strstr(run.err, unknown));
            CU_ASSERT_PTR_NULL(strstr(run.err, "did you mean"));
            sbx_test_run_clear(&run);
            free(setting);
        }
    }

    /* The user's own example, and the same between two module backends. */
    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL, ARGS("--set", "provisioner_url=http://127.0.0.1:9", "list"));
    sbx_test_assert_failure(&run, 2, "config",
                            "unknown option 'provisioner_url' for backend 'local'");
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "did you mean --backend remote?"));
    sbx_test_run_clear(&run);

    sbx_test_sbxctl(&run, NULL, ARGS("--backend", "remote", "--set",
                                     "provisioner_url=http://127.0.0.1:9", "--set", "image=x",
                                     "list"));
    sbx_test_assert_failure(&run, 2, "config", "did you mean --backend docker?");
    sbx_test_run_clear(&run);

    /* An option no backend takes gets no hint. */
    sbx_test_sbxctl(&run, NULL, ARGS("--set", "no_such_option=1", "list"));
    sbx_test_assert_failure(&run, 2, "config", "no_such_option");
    CU_ASSERT_PTR_NULL(strstr(run.err, "did you mean"));
    sbx_test_run_clear(&run);
}

/* ------------------------------------------------------------ transport */

static void test_refused_connection_is_a_transport_error(void)
{
    int port = 0;
    int refusing = sbx_test_refusing_port(&port);
    CU_ASSERT_FATAL(refusing >= 0);
    char *url = url_of_port(port);
    char *url_setting = format_arg("provisioner_url=", url);

    sbx_test_run run;
    sbx_test_sbxctl(&run, NULL,
                    ARGS("--json", "--backend", "remote", "--set", url_setting, "discover",
                         "sb-1"));
    sbx_test_assert_failure(&run, 3, "transport", "");
    json_object_put(sbx_test_assert_json_failure(&run, "transport"));
    sbx_test_run_clear(&run);

    /* With -v the backend's log lines are shown; the key is not. */
    sbx_test_sbxctl(&run, NULL,
                    ARGS("-v", "--backend", "remote", "--set", url_setting, "--set",
                         "api_key=" SECRET_KEY, "create", "--thread", "th-1"));
    CU_ASSERT_EQUAL(run.exit_code, 3);
    CU_ASSERT_TRUE(sbx_test_run_hides(&run, SECRET_KEY));
    sbx_test_run_clear(&run);

    /* Even when the key reaches a message through another option (here a
     * URL that contains it), sbxctl prints it masked. */
    char *leaky_url = NULL;
    CU_ASSERT_FATAL(asprintf(&leaky_url, "provisioner_url=%s/" SECRET_KEY, url) >= 0);
    sbx_test_sbxctl(&run, NULL,
                    ARGS("-v", "--json", "--backend", "remote", "--set", leaky_url, "--set",
                         "api_key=" SECRET_KEY, "list"));
    sbx_test_assert_failure(&run, 3, "transport", "***");
    CU_ASSERT_TRUE(sbx_test_run_hides(&run, SECRET_KEY));
    sbx_test_run_clear(&run);
    free(leaky_url);

    close(refusing);
    free(url);
    free(url_setting);
}

void sbx_test_register(void)
{
    static const CU_TestInfo usage_tests[] = {
        {"no command", test_no_command_is_a_usage_error},
        {"unknown command named", test_unknown_command_is_named},
        {"unknown option named", test_unknown_option_is_named},
        {"missing option argument named", test_missing_option_argument_is_named},
        {"missing sandbox id named", test_missing_sandbox_id_is_named},
        {"extra argument named", test_extra_argument_is_named},
        {"create needs --thread or --id", test_create_needs_thread_or_id},
        {"create options belong to create", test_create_options_belong_to_create},
        {"bad create values named", test_bad_create_values_are_named},
        {"--set without = not echoed", test_set_without_equals_does_not_echo_it},
        {"--json usage failure object", test_json_usage_error_is_one_failure_object},
        {"--help and --version", test_help_and_version},
        {"help and manual cover the interface", test_help_and_manual_cover_the_interface},
        {"arguments that are not text named", test_arguments_that_are_not_text_are_named},
        {"--json output is UTF-8 for any bytes", test_json_output_is_utf8_for_any_bytes},
        {"secret masking keeps JSON valid", test_secret_masking_keeps_json_valid},
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo loading_tests[] = {
        {"unknown backend exits 8", test_unknown_backend_is_a_load_error},
        {"garbage module refused by path", test_garbage_module_is_refused_naming_its_path},
        {"backends lists local and remote", test_backends_lists_local_and_remote},
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo config_tests[] = {
        {"bad config file", test_bad_config_file_is_a_config_error},
        {"config not a regular file", test_config_that_is_not_a_file_is_refused_at_once},
        {"duplicate config key named", test_duplicate_config_key_is_named},
        {"SBX_CONFIG, --backend, --set, --config", test_config_from_environment_and_overrides},
        {"config module_path", test_config_module_path_is_searched},
        {"default backend is local", test_default_backend_is_local},
        {"unknown backend option named", test_unknown_backend_option_is_named},
        {"option of another backend names it", test_option_of_another_backend_names_it},
        {"refused connection exits 3", test_refused_connection_is_a_transport_error},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbxctl usage", NULL, NULL, usage_tests);
    sbx_test_add_suite("sbxctl loading", NULL, NULL, loading_tests);
    sbx_test_add_suite("sbxctl configuration and transport", NULL, NULL, config_tests);
}
