/* sbxctl exec, cp and ls as a script sees them, on the local backend: the
 * command's exit code is sbxctl's (124 timed out, 128+N signal), its output
 * bytes are written exactly, stdin is passed through, --env and --workdir
 * reach the command, cp is byte-exact both ways, and every --json form is
 * one object.  Errors name what is at fault, with the documented codes. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <dirent.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/sbxctl/run_sbxctl.h"
#include "tests/sbxctl/sbxctl_checks.h"
#include "tests/support/backend_calls.h"
#include "tests/support/cunit_main.h"
#include "tests/support/memory_figures.h"
#include "tests/support/scratch_dir.h"
#include "tests/support/subprocess.h"

#define ARGS SBX_TEST_ARGS

static char scratch[4096];
static char state_setting[4200];

static int setup(void)
{
    if (sbx_test_scratch_dir(scratch, sizeof scratch, "sbxctl ops") != 0)
        return 1;
    snprintf(state_setting, sizeof state_setting, "state_dir=%s/state", scratch);
    return 0;
}

static int teardown(void)
{
    char state_dir[sizeof scratch + 8];
    snprintf(state_dir, sizeof state_dir, "%s/state", scratch);
    sbx_test_destroy_local_sandboxes(state_dir);
    sbx_test_remove_tree(scratch);
    return 0;
}

/* sbxctl --set state_dir=... ARGS (at most 24), stdin from `in` (NULL:
 * /dev/null). */
static void ctl(sbx_test_run *run, const char *in, const char *const *args)
{
    sbx_test_sbxctl_local(run, state_setting, in, SBX_TEST_RUN_TIMEOUT_MS * 3, args);
}

/* A file of the scratch directory holding `len` bytes of `data`. */
static void scratch_file(const char *name, const void *data, size_t len, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", scratch, name);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* The command's exit code becomes sbxctl's; its output is written as it
 * is, stdout and stderr apart; a timeout is 124, a signal 128+N. */
static void test_exec_passes_the_command_through(void)
{
    sbx_test_local_box(state_setting, "ctl-exec", 1);
    sbx_test_run run;
    ctl(&run, NULL, ARGS("exec", "ctl-exec", "sh", "-c", "printf 'out\\000x'; echo err >&2; exit 7"));
    CU_ASSERT_EQUAL(run.exit_code, 7);
    CU_ASSERT_EQUAL(run.out_len, 5);
    CU_ASSERT_EQUAL(memcmp(run.out, "out\0x", 5), 0);
    CU_ASSERT_STRING_EQUAL(run.err, "err\n");
    sbx_test_run_clear(&run);

    /* Options after the id are sbxctl's; from the command on, the command's. */
    ctl(&run, NULL, ARGS("exec", "-e", "GREETING=hi there", "--workdir", ".", "ctl-exec", "sh",
                         "-c", "echo \"$GREETING\" \"$1\"", "sh", "--json"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_STRING_EQUAL(run.out, "hi there --json\n");
    sbx_test_run_clear(&run);

    ctl(&run, NULL, ARGS("exec", "--timeout", "0.3", "ctl-exec", "sleep", "30"));
    CU_ASSERT_EQUAL(run.exit_code, 124);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "sbxctl: the command timed out"));
    sbx_test_run_clear(&run);

    ctl(&run, NULL, ARGS("exec", "ctl-exec", "sh", "-c", "kill -TERM $$"));
    CU_ASSERT_EQUAL(run.exit_code, 128 + 15);
    sbx_test_run_clear(&run);

    ctl(&run, NULL, ARGS("exec", "ctl-exec", "no-such-program-xyz"));
    CU_ASSERT_EQUAL(run.exit_code, 127);
    sbx_test_run_clear(&run);
    sbx_test_local_box(state_setting, "ctl-exec", 0);
}

/* stdin that is a file or a pipe reaches the command, byte for byte. */
static void test_exec_passes_stdin(void)
{
    sbx_test_local_box(state_setting, "ctl-stdin", 1);
    static const char input[] = "first line\nsecond\0binary";
    char path[4200];
    scratch_file("stdin.bin", input, sizeof input - 1, path, sizeof path);
    sbx_test_run run;
    ctl(&run, path, ARGS("exec", "ctl-stdin", "cat"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_EQUAL(run.out_len, sizeof input - 1);
    CU_ASSERT_EQUAL(memcmp(run.out, input, sizeof input - 1), 0);
    sbx_test_run_clear(&run);
    sbx_test_local_box(state_setting, "ctl-stdin", 0);
}

/* --json: one object; output that is not clean UTF-8 comes as base64. */
static void test_exec_json(void)
{
    sbx_test_local_box(state_setting, "ctl-json", 1);
    sbx_test_run run;
    ctl(&run, NULL, ARGS("--json", "exec", "ctl-json", "sh", "-c", "printf 'a\\000b'; echo e >&2; exit 3"));
    CU_ASSERT_EQUAL(run.exit_code, 3);
    json_object *o = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    sbx_test_assert_json_string(o, "sandbox_id", "ctl-json");
    sbx_test_assert_json_string(o, "outcome", "exited");
    CU_ASSERT_EQUAL(sbx_test_json_int(o, "exit_code", -1), 3);
    sbx_test_assert_json_string(o, "stdout_base64", "YQBi");
    sbx_test_assert_json_string(o, "stderr", "e\n");
    CU_ASSERT_FALSE(sbx_test_json_true(o, "stdout_truncated"));
    json_object_put(o);
    sbx_test_run_clear(&run);
    sbx_test_local_box(state_setting, "ctl-json", 0);
}

/* What keeps a command from running is sbxctl's own error, with its code. */
static void test_exec_errors(void)
{
    sbx_test_local_box(state_setting, "ctl-err", 1);
    sbx_test_run run;
    ctl(&run, NULL, ARGS("exec", "--env", "1BAD=x", "ctl-err", "true"));
    sbx_test_assert_failure(&run, 2, "usage", "1BAD");
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("exec", "--env", "SECRET=hunter2-value", "--timeout", "0", "ctl-err",
                         "true"));
    sbx_test_assert_failure(&run, 2, "usage", "--timeout");
    CU_ASSERT(sbx_test_run_hides(&run, "hunter2-value"));
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("exec", "ctl-err"));
    sbx_test_assert_failure(&run, 2, "usage", "needs a command");
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("exec", "ctl-absent", "true"));
    sbx_test_assert_failure(&run, 1, "not_found", "ctl-absent");
    sbx_test_run_clear(&run);
    sbx_test_local_box(state_setting, "ctl-err", 0);
}

/* cp in and out keeps every byte; "-" is stdin and stdout; errors name the
 * path and carry the file kinds' codes. */
static void test_cp_both_ways(void)
{
    sbx_test_local_box(state_setting, "ctl-cp", 1);
    char data[3000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)(i * 13 + 7);
    char in[4200], out[4200], dest[4300];
    scratch_file("in.bin", data, sizeof data, in, sizeof in);
    snprintf(out, sizeof out, "%s/out.bin", scratch);
    sbx_test_run run;
    ctl(&run, NULL, ARGS("cp", in, "ctl-cp:copy.bin"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_EQUAL(run.out_len, 0);
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("cp", "ctl-cp:copy.bin", out));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    FILE *f = fopen(out, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char back[4000];
    size_t n = fread(back, 1, sizeof back, f);
    fclose(f);
    CU_ASSERT_EQUAL(n, sizeof data);
    CU_ASSERT_EQUAL(memcmp(back, data, sizeof data), 0);

    ctl(&run, in, ARGS("cp", "-", "ctl-cp:from-stdin.bin"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("cp", "ctl-cp:from-stdin.bin", "-"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_EQUAL(run.out_len, sizeof data);
    CU_ASSERT_EQUAL(memcmp(run.out, data, sizeof data), 0);
    sbx_test_run_clear(&run);

    ctl(&run, NULL, ARGS("--json", "cp", in, "ctl-cp:j.bin"));
    json_object *o = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(sbx_test_json_int(o, "bytes", -1), (int)sizeof data);
    sbx_test_assert_json_string(o, "destination", "ctl-cp:j.bin");
    json_object_put(o);
    sbx_test_run_clear(&run);

    ctl(&run, NULL, ARGS("cp", "ctl-cp:absent.bin", out));
    sbx_test_assert_failure(&run, 11, "no_such_path", "absent.bin");
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("cp", in, "ctl-cp:no/such/dir/x"));
    sbx_test_assert_failure(&run, 11, "no_such_path", "no/such/dir");
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("cp", in, out));
    sbx_test_assert_failure(&run, 2, "usage", "ID:PATH");
    sbx_test_run_clear(&run);
    snprintf(dest, sizeof dest, "%s/missing-dir/out.bin", scratch);
    ctl(&run, NULL, ARGS("cp", "ctl-cp:copy.bin", dest));
    sbx_test_assert_failure(&run, 2, "usage", "missing-dir");
    sbx_test_run_clear(&run);
    sbx_test_local_box(state_setting, "ctl-cp", 0);
}

/* cp out of a local sandbox copies from the file the backend opened, in
 * the kernel where it can; to a stdout opened to append (where neither
 * copy_file_range nor sendfile applies) it goes through a buffer, after
 * what the file held. */
static void test_cp_out_to_an_appended_stdout(void)
{
    sbx_test_local_box(state_setting, "ctl-app", 1);
    char data[300000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (char)(i * 7 + i / 4096);
    char in[4200], dest[4200];
    scratch_file("app-in.bin", data, sizeof data, in, sizeof in);
    scratch_file("app-out.bin", "head:", 5, dest, sizeof dest);
    sbx_test_run run;
    ctl(&run, NULL, ARGS("cp", in, "ctl-app:data.bin"));
    CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    const char *bin = getenv("SBXCTL_BIN");
    CU_ASSERT_PTR_NOT_NULL_FATAL(bin);
    const char *argv[] = {"sh", "-c", "exec \"$0\" --set \"$1\" cp ctl-app:data.bin - >> \"$2\"",
                          bin, state_setting, dest, NULL};
    char output[1024];
    CU_ASSERT_EQUAL(sbx_test_run_program(argv, SBX_TEST_RUN_TIMEOUT_MS * 3, output,
                                         sizeof output), 0);
    FILE *f = fopen(dest, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    static char back[sizeof data + 16];
    size_t n = fread(back, 1, sizeof back, f);
    fclose(f);
    CU_ASSERT_EQUAL(n, 5 + sizeof data);
    CU_ASSERT_EQUAL(memcmp(back, "head:", 5), 0);
    CU_ASSERT_EQUAL(memcmp(back + 5, data, sizeof data), 0);
    sbx_test_local_box(state_setting, "ctl-app", 0);
}

/* Sandbox `id` with big.bin, a sparse file of `size` (truncate's form:
 * no disk for it). */
static void make_box_with_a_big_file(const char *id, const char *size)
{
    sbx_test_local_box(state_setting, id, 1);
    sbx_test_run run;
    ctl(&run, NULL, ARGS("exec", id, "--", "truncate", "-s", size, "big.bin"));
    CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
}

/* The largest resident size of any child waited for so far stayed far
 * below the big file's: the copies' sbxctl held a piece, not the file
 * (every other run of the suite is small). */
static void assert_no_child_held_the_big_file(void)
{
    if (!SBX_TEST_MEMORY_FIGURES_HOLD)
        return;
    struct rusage children;
    CU_ASSERT_FATAL(getrusage(RUSAGE_CHILDREN, &children) == 0);
    CU_ASSERT(children.ru_maxrss < 48 * 1024);
    if (children.ru_maxrss >= 48 * 1024)
        fprintf(stderr, "a child of the suite reached %ld KiB\n", children.ru_maxrss);
}

/* A large file copied out to stdout goes out piece by piece: sbxctl never
 * holds the whole of it. */
static void test_cp_to_stdout_streams(void)
{
    make_box_with_a_big_file("ctl-big", "96M");
    sbx_test_run run;
    ctl(&run, NULL, ARGS("cp", "ctl-big:big.bin", "-"));
    /* The harness keeps the first 4 MiB of it. */
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT(run.out_len > 0 && run.out[0] == 0 && run.out[run.out_len - 1] == 0);
    sbx_test_run_clear(&run);
    assert_no_child_held_the_big_file();
    sbx_test_local_box(state_setting, "ctl-big", 0);
}

/* A file larger than local opens for the caller (256 MiB) is copied out
 * by reads, piece by piece, all the same. */
static void test_cp_of_a_file_past_the_largest_open(void)
{
    make_box_with_a_big_file("ctl-huge", "257M");
    sbx_test_run run;
    ctl(&run, NULL, ARGS("--json", "cp", "ctl-huge:big.bin", "/dev/null"));
    json_object *o = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(sbx_test_json_int(o, "bytes", -1), 257L << 20);
    json_object_put(o);
    sbx_test_run_clear(&run);
    assert_no_child_held_the_big_file();
    sbx_test_local_box(state_setting, "ctl-huge", 0);
}

/* A large file copied out to a local file goes there piece by piece too,
 * through a new file renamed over the destination at the end: the
 * destination keeps its mode, and a copy that fails leaves it whole. */
static void test_cp_to_a_file_streams_and_never_leaves_part_of_one(void)
{
    make_box_with_a_big_file("ctl-bigf", "96M");
    sbx_test_run run;
    char dest[4300];
    snprintf(dest, sizeof dest, "%s/big-out.bin", scratch);
    scratch_file("big-out.bin", "old", 3, dest, sizeof dest);
    CU_ASSERT_EQUAL_FATAL(chmod(dest, 0600), 0);
    ctl(&run, NULL, ARGS("cp", "ctl-bigf:big.bin", dest));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    struct stat st;
    CU_ASSERT_EQUAL_FATAL(stat(dest, &st), 0);
    CU_ASSERT_EQUAL(st.st_size, 96L << 20);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
    assert_no_child_held_the_big_file();
    /* A copy that fails leaves the destination as it was, and nothing
     * beside it. */
    ctl(&run, NULL, ARGS("cp", "ctl-bigf:absent.bin", dest));
    sbx_test_assert_failure(&run, 11, "no_such_path", "absent.bin");
    sbx_test_run_clear(&run);
    CU_ASSERT_EQUAL(stat(dest, &st), 0);
    CU_ASSERT_EQUAL(st.st_size, 96L << 20);
    CU_ASSERT_EQUAL(unlink(dest), 0);
    DIR *dir = opendir(scratch);
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    for (struct dirent *e; (e = readdir(dir)) != NULL;)
        CU_ASSERT_PTR_NULL(strstr(e->d_name, ".sbx-cp-"));
    closedir(dir);
    sbx_test_local_box(state_setting, "ctl-bigf", 0);
}

/* ls: a line per entry, or one JSON object. */
static void test_ls(void)
{
    sbx_test_local_box(state_setting, "ctl-ls", 1);
    sbx_test_run run;
    ctl(&run, NULL, ARGS("exec", "ctl-ls", "sh", "-c", "mkdir sub && printf abc > a.txt"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("ls", "ctl-ls"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_EQUAL(sbx_test_count_lines(run.out), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "a.txt"));
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "directory"));
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("--json", "ls", "ctl-ls", "."));
    json_object *o = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_EQUAL(sbx_test_json_int(o, "count", -1), 2);
    json_object *entries = NULL;
    CU_ASSERT_FATAL(json_object_object_get_ex(o, "entries", &entries));
    json_object *first = json_object_array_get_idx(entries, 0);
    sbx_test_assert_json_string(first, "path", "a.txt");
    sbx_test_assert_json_string(first, "type", "file");
    CU_ASSERT_EQUAL(sbx_test_json_int(first, "size", -1), 3);
    json_object_put(o);
    sbx_test_run_clear(&run);
    ctl(&run, NULL, ARGS("ls", "ctl-ls", "a.txt"));
    sbx_test_assert_failure(&run, 12, "not_a_directory", "a.txt");
    sbx_test_run_clear(&run);
    sbx_test_local_box(state_setting, "ctl-ls", 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"exec passes the command's exit code and bytes through",
         test_exec_passes_the_command_through},
        {"exec passes stdin through", test_exec_passes_stdin},
        {"exec --json is one object; binary output as base64", test_exec_json},
        {"exec errors are sbxctl's, with their codes", test_exec_errors},
        {"cp is byte-exact both ways", test_cp_both_ways},
        {"cp of a large file to stdout streams it", test_cp_to_stdout_streams},
        {"cp out to a stdout opened to append", test_cp_out_to_an_appended_stdout},
        {"cp of a file past the largest open goes by reads",
         test_cp_of_a_file_past_the_largest_open},
        {"cp to a file streams and never leaves part of one",
         test_cp_to_a_file_streams_and_never_leaves_part_of_one},
        {"ls lists, as lines or JSON", test_ls},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbxctl exec, cp, ls (local)", setup, teardown, tests);
}
