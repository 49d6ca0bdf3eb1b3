/* What the remote backend sends a sandbox's AIO API: a command line quoted
 * into one shell text (run here by bash and sh, as the sandbox runs it;
 * a process's, with stdin closed, also read back as argv),
 * bytes as base64, a path in a query, and the check scripts of write_file
 * and remove_path (run here against a scratch directory). */
#include <config.h>

#include "tests/support/cunit_main.h"
#include "tests/support/subprocess.h"

#include "common/base64.h"
#include "plugin/remote/remote_aio_text.h"
#include "plugin/remote/remote_process_ids.h"

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUN_MS 30000

/* Run `text` with `shell` -c; its output in out[cap]; returns the status. */
static int run_shell(const char *shell, const char *text, char *out, size_t cap)
{
    const char *argv[] = { shell, "-c", text, NULL };
    return sbx_test_run_program(argv, RUN_MS, out, cap);
}

/* Words that mean something to a shell unquoted, or inside double quotes. */
static const char *const hostile[] = {
    "", "a b", "it's", "''", "'", "$HOME", "${PATH}", "`id`", "$(id)", "a\nb", "\\", "\\'",
    "*", "-n", "a\"b", "x;y", "|&<>", "#c", "~", "\t", "é ü", "!!", " 0</dev/null", NULL,
};

/* Append every hostile word to argv[n..] (NULL after them; argv has
 * room) and, each in <>, to expected[cap]; returns the words now in argv. */
static size_t add_hostile(const char **argv, size_t n, char *expected, size_t cap)
{
    expected[0] = '\0';
    for (size_t i = 0; hostile[i] != NULL; i++) {
        argv[n++] = hostile[i];
        snprintf(expected + strlen(expected), cap - strlen(expected), "<%s>", hostile[i]);
    }
    argv[n] = NULL;
    return n;
}

/* Each argument arrives as one word, byte for byte, in bash (the AIO
 * server's shell) and in sh. */
static void test_argv_words_arrive_exactly(void)
{
    const char *argv[64] = { "printf", "<%s>" };
    char expected[1024];
    add_hostile(argv, 2, expected, sizeof expected);
    char *text = remote_command_text(argv, NULL);
    CU_ASSERT_FATAL(text != NULL);
    static const char *const shells[] = { "bash", "sh" };
    for (size_t s = 0; s < 2; s++) {
        char out[2048];
        CU_ASSERT_EQUAL(run_shell(shells[s], text, out, sizeof out), 0);
        CU_ASSERT_STRING_EQUAL(out, expected);
    }
    free(text);
}

/* A process's command text with stdin closed: hostile argv still arrives
 * word for word in bash, stdin is empty, and the text reads back as the
 * same argv (what another host process's info shows). */
static void test_closed_stdin_text_runs_and_reads_back(void)
{
    const char *argv[64] = { "sh", "-c", "printf '<%s>' \"$@\"; cat", "sh" };
    char expected[1024];
    size_t n = add_hostile(argv, 4, expected, sizeof expected);
    char *text = remote_command_text(argv, NULL);
    CU_ASSERT_FATAL(text != NULL);
    char closed[4096];
    snprintf(closed, sizeof closed, "%s%s", text, REMOTE_STDIN_CLOSED);
    char out[2048];
    /* The test's own stdin is whatever make gave it: cat must read none. */
    CU_ASSERT_EQUAL(run_shell("bash", closed, out, sizeof out), 0);
    CU_ASSERT_STRING_EQUAL(out, expected);
    char **back = remote_process_argv(closed);
    CU_ASSERT_FATAL(back != NULL);
    for (size_t i = 0; i <= n; i++) {
        if (argv[i] == NULL || back[i] == NULL) {
            CU_ASSERT_PTR_EQUAL(argv[i], back[i]);
            break;
        }
        CU_ASSERT_STRING_EQUAL(back[i], argv[i]);
    }
    for (size_t i = 0; back[i] != NULL; i++)
        free(back[i]);
    free(back);
    free(text);
}

/* A shell text runs under /bin/sh -c as written: its own quotes, variables
 * and expansions work, and a quote in it cannot end the wrapping. */
static void test_shell_text_runs_under_sh(void)
{
    char *text = remote_command_text(NULL, "a='x y'; b=\"it's\"; printf '%s|' \"$a\" \"$b\" "
                                           "$((1+2)) \"$0\"");
    CU_ASSERT_FATAL(text != NULL);
    CU_ASSERT_EQUAL(strncmp(text, "exec /bin/sh -c '", 17), 0);
    char out[256];
    CU_ASSERT_EQUAL(run_shell("bash", text, out, sizeof out), 0);
    CU_ASSERT_STRING_EQUAL(out, "x y|it's|3|/bin/sh|");
    free(text);
}

/* A program that does not exist exits 127, as the ABI says, in bash and
 * in sh. */
static void test_missing_program_exits_127(void)
{
    const char *argv[] = { "sbx-no-such-program-here", "a", NULL };
    char *text = remote_command_text(argv, NULL);
    char out[256];
    CU_ASSERT_EQUAL(run_shell("bash", text, out, sizeof out), 127);
    CU_ASSERT_EQUAL(run_shell("sh", text, out, sizeof out), 127);
    free(text);
}

/* The program replaces the shell: a signal that ends it is seen as that
 * signal (sbx_test_run_program answers -1 for a death by signal), not as
 * a shell's exit 137. */
static void test_the_shell_does_not_stay_between(void)
{
    const char *argv[] = { "sh", "-c", "kill -KILL $$", NULL };
    char *text = remote_command_text(argv, NULL);
    char out[256];
    CU_ASSERT_EQUAL(run_shell("bash", text, out, sizeof out), -1);
    CU_ASSERT_EQUAL(run_shell("sh", text, out, sizeof out), -1);
    free(text);
}

/* Every byte value survives a round trip through the system's decoder. */
static void test_base64_round_trips_every_byte(void)
{
    unsigned char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (unsigned char)i;
    char *b64 = common_base64_encode_alloc(all, sizeof all);
    CU_ASSERT_FATAL(b64 != NULL);
    char script[1024];
    snprintf(script, sizeof script, "printf %%s '%s' | base64 -d | od -An -v -tu1 | tr -s ' \\n' ' '",
             b64);
    char out[2048];
    CU_ASSERT_EQUAL(run_shell("sh", script, out, sizeof out), 0);
    char want[2048] = " ";
    for (int i = 0; i < 256; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%d ", i);
    CU_ASSERT_STRING_EQUAL(out, want);
    free(b64);
}

static void test_query_escape(void)
{
    common_dynbuf b;
    common_dynbuf_init(&b, 0);
    CU_ASSERT_EQUAL(remote_query_escape(&b, "/tmp/a b&c=d?#%+\xc3\xa9~._-"), COMMON_DYNBUF_OK);
    CU_ASSERT_STRING_EQUAL(b.data, "/tmp/a%20b%26c%3Dd%3F%23%25%2B%C3%A9~._-");
    common_dynbuf_free(&b);
}

static void expect_parent(const char *abs, const char *want)
{
    char *got = remote_parent_dir(abs);
    CU_ASSERT_FATAL(got != NULL);
    CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
}

/* Every byte 1..255 and each control character, quoted as JSON, reads back
 * through a JSON parser (json-c) as exactly the text. */
static void test_json_quote_round_trips(void)
{
    char text[300];
    size_t n = 0;
    for (int c = 1; c < 256; c++)
        text[n++] = (char)c;
    text[n] = '\0';
    static const char *const samples[] = { "", "plain", "\"\\\"\\", "a\nb\tc\x01\x1f",
                                           "caf\xc3\xa9 \xf0\x9f\x98\x80 /x/" };
    for (size_t i = 0; i < 6; i++) {
        const char *want = i < 5 ? samples[i] : text;
        common_dynbuf b;
        common_dynbuf_init(&b, 0);
        CU_ASSERT_EQUAL(remote_json_quote(&b, want), COMMON_DYNBUF_OK);
        struct json_object *v = json_tokener_parse(b.data);
        CU_ASSERT_FATAL(json_object_is_type(v, json_type_string));
        CU_ASSERT_EQUAL((size_t)json_object_get_string_len(v), strlen(want));
        CU_ASSERT_STRING_EQUAL(json_object_get_string(v), want);
        json_object_put(v);
        common_dynbuf_free(&b);
    }
}

static void test_parent_dir(void)
{
    expect_parent("/a/b", "/a");
    expect_parent("/a/b/", "/a");
    expect_parent("/a//b", "/a");
    expect_parent("/a", "/");
    expect_parent("/", "/");
}

/* A scratch directory with a name a shell would split or expand. */
static void scratch(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/sbx aio $x 'q'.XXXXXX");
    CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
}

static void cleanup(const char *dir)
{
    const char *argv[] = { "rm", "-rf", "--", dir, NULL };
    sbx_test_run_program(argv, RUN_MS, NULL, 0);
}

static int run_write_check(const char *path, unsigned flags, uint32_t mode)
{
    char *parent = remote_parent_dir(path);
    char *script = remote_write_check_script(path, parent, flags, mode);
    char out[512];
    int status = run_shell("bash", script, out, sizeof out);
    free(parent);
    free(script);
    return status;
}

/* Each exit code of the write check is the kind it names, and a new file
 * is made with the asked mode (0: 0644). */
static void test_write_check_kinds_and_mode(void)
{
    char dir[128], path[256], file[256];
    scratch(dir, sizeof dir);
    snprintf(file, sizeof file, "%s/it's a file", dir);
    snprintf(path, sizeof path, "%s/no/such/x", dir);
    CU_ASSERT_EQUAL(run_write_check(path, 0, 0), 12);            /* NO_SUCH_PATH */
    CU_ASSERT_EQUAL(run_write_check(path, SBX_WRITE_MKDIRS, 0600), 0);
    struct stat st;
    CU_ASSERT_EQUAL_FATAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
    CU_ASSERT_EQUAL(st.st_size, 0);
    CU_ASSERT_EQUAL(run_write_check(path, SBX_WRITE_EXCLUSIVE, 0), 15); /* EXISTS */
    CU_ASSERT_EQUAL(run_write_check(path, 0, 0), 0);             /* replace: allowed */
    CU_ASSERT_EQUAL(run_write_check(dir, 0, 0), 14);             /* IS_A_DIRECTORY */
    CU_ASSERT_EQUAL(run_write_check(file, 0, 0), 0);
    CU_ASSERT_EQUAL_FATAL(stat(file, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0644);
    snprintf(path, sizeof path, "%s/it's a file/under", dir);
    CU_ASSERT_EQUAL(run_write_check(path, 0, 0), 13);            /* NOT_A_DIRECTORY */
    cleanup(dir);
}

static int run_remove(const char *path, int recursive)
{
    char *script = remote_remove_script(path, recursive);
    char out[512];
    int status = run_shell("bash", script, out, sizeof out);
    free(script);
    return status;
}

/* remove_path: a missing path, a directory without the flag, a link to a
 * directory (the link goes, the directory stays), a tree. */
static void test_remove_script_kinds(void)
{
    char dir[128], sub[256], link[256], file[256];
    scratch(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/sub dir", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    snprintf(file, sizeof file, "%s/sub dir/$(id)'", dir);
    CU_ASSERT_FATAL(mkdir(sub, 0755) == 0);
    FILE *f = fopen(file, "w");
    CU_ASSERT_FATAL(f != NULL);
    fclose(f);
    CU_ASSERT_FATAL(symlink(sub, link) == 0);
    CU_ASSERT_EQUAL(run_remove(link, 0), 0);
    struct stat st;
    CU_ASSERT_NOT_EQUAL(lstat(link, &st), 0);
    CU_ASSERT_EQUAL(stat(file, &st), 0);
    CU_ASSERT_EQUAL(run_remove(sub, 0), 14);
    CU_ASSERT_EQUAL(run_remove(file, 0), 0);
    CU_ASSERT_NOT_EQUAL(stat(file, &st), 0);
    CU_ASSERT_EQUAL(run_remove(file, 0), 12);
    CU_ASSERT_EQUAL(run_remove(sub, 1), 0);
    CU_ASSERT_NOT_EQUAL(stat(sub, &st), 0);
    CU_ASSERT_EQUAL(stat(dir, &st), 0);
    cleanup(dir);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "argv_words_arrive_exactly", test_argv_words_arrive_exactly },
        { "closed_stdin_text_runs_and_reads_back",
          test_closed_stdin_text_runs_and_reads_back },
        { "shell_text_runs_under_sh", test_shell_text_runs_under_sh },
        { "missing_program_exits_127", test_missing_program_exits_127 },
        { "the_shell_does_not_stay_between", test_the_shell_does_not_stay_between },
        { "base64_round_trips_every_byte", test_base64_round_trips_every_byte },
        { "query_escape", test_query_escape },
        { "json_quote_round_trips", test_json_quote_round_trips },
        { "parent_dir", test_parent_dir },
        { "write_check_kinds_and_mode", test_write_check_kinds_and_mode },
        { "remove_script_kinds", test_remove_script_kinds },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote AIO text", NULL, NULL, tests);
}
