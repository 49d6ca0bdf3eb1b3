/*
 * The docker backend's reading of its process script's answers
 * (plugin/docker/docker_proc_answers.c): records, read headers and
 * states, well formed and not, and the cursors a read answers.  No
 * engine needed.
 */
#include <config.h>

#include "plugin/docker/docker_proc_answers.h"
#include "tests/support/cunit_main.h"

#include <CUnit/CUnit.h>
#include <string.h>

static void test_states(void)
{
    docker_proc_state s;
    CU_ASSERT_EQUAL(docker_proc_parse_state("run", &s), 0);
    CU_ASSERT_FALSE(s.ended);
    CU_ASSERT_EQUAL(docker_proc_parse_state("end 3 1700000000 0\n", &s), 0);
    CU_ASSERT(s.ended && s.outcome == SBX_EXEC_EXITED && s.exit_code == 3);
    CU_ASSERT_EQUAL(s.ended_at, INT64_C(1700000000000));
    CU_ASSERT_EQUAL(docker_proc_parse_state("end 143 1 0", &s), 0);
    CU_ASSERT(s.outcome == SBX_EXEC_SIGNALED && s.term_signal == 15 && s.exit_code == -1);
    CU_ASSERT_EQUAL(docker_proc_parse_state("end 137 1 1", &s), 0);
    CU_ASSERT_EQUAL(s.outcome, SBX_EXEC_TIMED_OUT);
    const char *bad[] = { "", "running", "end", "end 3", "end 3 1", "end 256 1 0", "end 3 1 2",
                          "end -1 1 0", "end 3 1 0 extra", "end 3  1 0",
                          "end 3 99999999999999999999 0", NULL };
    for (int i = 0; bad[i] != NULL; i++)
        CU_ASSERT_EQUAL(docker_proc_parse_state(bad[i], &s), -1);
}

static void test_records(void)
{
    static const char two[] = "P p1 1000 3 run\n/bin/sh\0-c\0echo \"a\nb\"\0"
                              "P p2 2000 1 end 0 5 0\n\0";
    sbx_process_info *first = NULL;
    size_t count = 0;
    CU_ASSERT_FATAL(docker_proc_parse_infos(two, sizeof two - 1, &first, &count) == 0);
    CU_ASSERT_EQUAL(count, 2);
    CU_ASSERT_STRING_EQUAL(first->process_id, "p1");
    CU_ASSERT_EQUAL(first->started_at, 1000);
    CU_ASSERT_EQUAL(first->state, SBX_PROCESS_RUNNING);
    CU_ASSERT_STRING_EQUAL(first->argv[2], "echo \"a\nb\"");
    CU_ASSERT_PTR_NULL(first->argv[3]);
    const sbx_process_info *second = first->next;
    CU_ASSERT_FATAL(second != NULL);
    CU_ASSERT_STRING_EQUAL(second->argv[0], "");
    CU_ASSERT_EQUAL(second->state, SBX_PROCESS_ENDED);
    /* Ended at 5 s by the container's clock, started at 2 s by the
     * host's: never before the start. */
    CU_ASSERT_EQUAL(second->ended_at, 5000);
    docker_proc_free_infos(first);
    CU_ASSERT_EQUAL(docker_proc_parse_infos("", 0, &first, &count), 0);
    CU_ASSERT(first == NULL && count == 0);
    static const char *const bad[] = { "P p1 1000 2 run\na\0", "Q p1 1 0 run\n", "P  1 0 run\n",
                                       "P p1 1 0 run", "P p1 x 0 run\n", "P p1 1 0 walk\n",
                                       "P p1 1 9999999 run\n", NULL };
    for (int i = 0; bad[i] != NULL; i++) {
        CU_ASSERT_EQUAL(docker_proc_parse_infos(bad[i], strlen(bad[i]) + 1, &first, &count), -1);
        CU_ASSERT(first == NULL && count == 0);
    }
}

static void test_read_answers(void)
{
    docker_proc_read_header h;
    CU_ASSERT_FATAL(docker_proc_parse_read_header("sbx-read 10 13 0 2 13 2 end 0 9 0\n", &h) ==
                    0);
    /* From a cursor behind what is kept: dropped, then exact cursors,
     * chunks in the runs' order. */
    sbx_process_cursor from = { 4, 0 };
    docker_proc_read_bytes b = { " o 1 e 1 o 2 e 1\n", "abc", 3, "xy", 2 };
    sbx_process_output *o = NULL;
    CU_ASSERT_FATAL(docker_proc_output_new(&from, &h, &b, &o) == 0);
    CU_ASSERT_EQUAL(o->stdout_dropped, 6);
    CU_ASSERT_EQUAL(o->next.stdout_offset, 13);
    CU_ASSERT_EQUAL(o->next.stderr_offset, 2);
    CU_ASSERT_EQUAL_FATAL(o->chunk_count, 4);
    CU_ASSERT(o->chunks[0].stream == SBX_STREAM_STDOUT && o->chunks[0].length == 1);
    CU_ASSERT(o->chunks[1].stream == SBX_STREAM_STDERR && o->chunks[1].length == 1);
    CU_ASSERT(o->chunks[2].stream == SBX_STREAM_STDOUT && o->chunks[2].length == 2);
    CU_ASSERT(o->ended && o->exit_code == 0);
    CU_ASSERT(memcmp(o->data, "axbcy", 6) == 0);
    docker_proc_free_output(o);
    /* Fewer bytes than promised: the runs after stop there; not the end. */
    b = (docker_proc_read_bytes){ " o 1 e 1 o 2 e 1", "a", 1, "xy", 2 };
    CU_ASSERT_FATAL(docker_proc_output_new(&from, &h, &b, &o) == 0);
    CU_ASSERT(!o->ended && o->next.stdout_offset == 11 && o->next.stderr_offset == 2);
    CU_ASSERT_EQUAL(o->chunk_count, 2);
    CU_ASSERT(memcmp(o->data, "axy", 4) == 0);
    CU_ASSERT_EQUAL(o->exit_code, -1);
    docker_proc_free_output(o);
    /* Runs that do not add up to the header's ranges. */
    const char *wrong[] = { " o 3 e 1", " o 3 e 3", " o 0 o 3 e 2", " x 3 e 2", " o 3e 2", NULL };
    for (int i = 0; wrong[i] != NULL; i++) {
        b = (docker_proc_read_bytes){ wrong[i], "abc", 3, "xy", 2 };
        CU_ASSERT_EQUAL(docker_proc_output_new(&from, &h, &b, &o), -1);
        CU_ASSERT_PTR_NULL(o);
    }
    const char *bad[] = { "sbx-read 1 2 3 4 5 6", "sbx-read 3 2 0 0 5 0 run",
                          "sbx-read 0 6 0 0 5 0 run", "sbx-reads 0 0 0 0 0 0 run",
                          "sbx-read 0 0 0 0 0 0 walk", NULL };
    for (int i = 0; bad[i] != NULL; i++)
        CU_ASSERT_EQUAL(docker_proc_parse_read_header(bad[i], &h), -1);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "states: run, exit codes, signals, timeouts; malformed", test_states },
        { "records: argv words exact, chains, malformed ones refused", test_records },
        { "reads: dropped counts, exact cursors, runs in order, the end only when all came", test_read_answers },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("docker process answers", NULL, NULL, tests);
}
