/* The remote backend's side of the AIO process routes, without a network:
 * process ids holding the AIO session and command ids, command texts
 * read back as argv (hostile argv with stdin closed: test_aio_text.c),
 * and /v1/bash/output answers decoded into cursors, dropped counts and
 * ends. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "plugin/remote/remote_aio_text.h"
#include "plugin/remote/remote_process_answer.h"
#include "plugin/remote/remote_process_ids.h"

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An id made of two AIO ids splits back into them; equal ids are kept
 * once; the id fits the ABI's rule. */
static void test_ids_round_trip(void)
{
    static const char *const pairs[][2] = {
        {"abc", "abc"}, {"s", "c"}, {"p.1-x", "p.1-x"}, {"a.b", "c.d"},
        {"123e4567-e89b-12d3-a456-426614174000", "9b2f6d1e-0c3a-4c59-9a62-2f1f0b8c3d4e"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char id[SBX_PROCESS_ID_MAX + 1], s[SBX_PROCESS_ID_MAX + 1], c[SBX_PROCESS_ID_MAX + 1];
        sbx_error err;
        CU_ASSERT_EQUAL_FATAL(remote_process_id_make(pairs[i][0], pairs[i][1], id, &err),
                              SBX_OK);
        CU_ASSERT(strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                             "0123456789._-") == strlen(id));
        CU_ASSERT(id[0] >= '0' && id[0] <= '9');
        CU_ASSERT_EQUAL(remote_process_id_split(id, s, c), 1);
        CU_ASSERT_STRING_EQUAL(s, pairs[i][0]);
        CU_ASSERT_STRING_EQUAL(c, pairs[i][1]);
    }
    char id[SBX_PROCESS_ID_MAX + 1];
    sbx_error err;
    remote_process_id_make("abc", "abc", id, &err);
    CU_ASSERT_STRING_EQUAL(id, "3-abc");
}

/* Ids the sandbox answers that no process id can hold are its fault. */
static void test_bad_wire_ids_are_protocol_errors(void)
{
    char id[SBX_PROCESS_ID_MAX + 1], long_id[100];
    memset(long_id, 'a', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    sbx_error err;
    CU_ASSERT_EQUAL(remote_process_id_make("", "c", id, &err), SBX_ERR_PROTOCOL);
    CU_ASSERT_EQUAL(remote_process_id_make("a/b", "c", id, &err), SBX_ERR_PROTOCOL);
    CU_ASSERT_EQUAL(remote_process_id_make("s", "c d", id, &err), SBX_ERR_PROTOCOL);
    CU_ASSERT_EQUAL(remote_process_id_make(long_id, "c", id, &err), SBX_OK);
    CU_ASSERT_EQUAL(remote_process_id_make(long_id, long_id + 1, id, &err), SBX_ERR_PROTOCOL);
    CU_ASSERT(strstr(err.message, "do not fit") != NULL);
}

/* Ids this backend never makes do not split (the caller says no such
 * process). */
static void test_foreign_ids_do_not_split(void)
{
    static const char *const ids[] = {
        "abc", "-abc", "0-", "03-abc", "3-ab", "4-abc", "1000-a", "x-abc", "3abc", "0-abc",
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char s[SBX_PROCESS_ID_MAX + 1], c[SBX_PROCESS_ID_MAX + 1];
        CU_ASSERT_EQUAL(remote_process_id_split(ids[i], s, c), 0);
    }
}

/* A shell text reads back as /bin/sh -c text; a text someone else sent
 * as bash -c... the text itself under /bin/sh -c. */
static void test_shell_and_foreign_texts_read_as_sh_c(void)
{
    static const char *const texts[][2] = {
        {NULL, "echo 'a' \"$X\"; exit 3"},
        {"ls -l | wc -l", "ls -l | wc -l"},
        {"exec 'unterminated", "exec 'unterminated"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char *text = texts[i][0] != NULL ? strdup(texts[i][0])
                                         : remote_command_text(NULL, texts[i][1]);
        char **argv = remote_process_argv(text);
        CU_ASSERT_FATAL(argv != NULL);
        CU_ASSERT_STRING_EQUAL(argv[0], "/bin/sh");
        CU_ASSERT_STRING_EQUAL(argv[1], "-c");
        CU_ASSERT_STRING_EQUAL(argv[2], texts[i][1]);
        CU_ASSERT_PTR_NULL(argv[3]);
        for (size_t j = 0; argv[j] != NULL; j++)
            free(argv[j]);
        free(argv);
        free(text);
    }
}

/* Decode `json` (a BashOutputResult) from `from` with `max` bytes. */
static sbx_status decode(const char *json, sbx_process_cursor from, size_t max,
                         sbx_process_output **out, sbx_error *err)
{
    json_object *data = json_tokener_parse(json);
    CU_ASSERT_FATAL(data != NULL);
    sbx_status st = remote_process_output_decode(data, from, max, out, err);
    json_object_put(data);
    return st;
}

/* Bytes of both streams (NUL kept), the next cursor, and the end. */
static void test_output_bytes_cursor_and_end(void)
{
    sbx_process_output *o = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(
        decode("{\"session_id\":\"s\",\"stdout\":\"a\\u0000b\",\"stderr\":\"e\","
               "\"offset\":13,\"stderr_offset\":1,\"command\":{\"command_id\":\"s\","
               "\"command\":\"x\",\"status\":\"completed\",\"exit_code\":3}}",
               (sbx_process_cursor){10, 0}, 0 + 100, &o, &err), SBX_OK);
    CU_ASSERT_EQUAL(o->length, 4);
    CU_ASSERT_EQUAL(memcmp(o->data, "a\0be", 4), 0);
    CU_ASSERT_EQUAL(o->chunk_count, 2);
    CU_ASSERT_EQUAL(o->chunks[0].stream, SBX_STREAM_STDOUT);
    CU_ASSERT_EQUAL(o->chunks[0].length, 3);
    CU_ASSERT_EQUAL(o->chunks[1].stream, SBX_STREAM_STDERR);
    CU_ASSERT_EQUAL(o->next.stdout_offset, 13);
    CU_ASSERT_EQUAL(o->next.stderr_offset, 1);
    CU_ASSERT_EQUAL(o->stdout_dropped, 0);
    CU_ASSERT(o->ended);
    CU_ASSERT_EQUAL(o->outcome, SBX_EXEC_EXITED);
    CU_ASSERT_EQUAL(o->exit_code, 3);
    remote_process_output_free(o);
}

/* Offsets past the text say what the sandbox no longer kept; a cap cuts
 * the answer (no end then) and the cursor stops where it cut. */
static void test_output_dropped_and_cut(void)
{
    sbx_process_output *o = NULL;
    sbx_error err;
    const char *answer = "{\"session_id\":\"s\",\"stdout\":\"tail\",\"stderr\":\"xy\","
                         "\"offset\":104,\"stderr_offset\":2,\"command\":{\"command_id\":\"s\","
                         "\"command\":\"x\",\"status\":\"killed\",\"exit_code\":-9}}";
    CU_ASSERT_EQUAL_FATAL(decode(answer, (sbx_process_cursor){0, 0}, 100, &o, &err), SBX_OK);
    CU_ASSERT_EQUAL(o->stdout_dropped, 100);
    CU_ASSERT_EQUAL(o->next.stdout_offset, 104);
    CU_ASSERT(o->ended);
    CU_ASSERT_EQUAL(o->outcome, SBX_EXEC_SIGNALED);
    CU_ASSERT_EQUAL(o->term_signal, 9);
    remote_process_output_free(o);
    CU_ASSERT_EQUAL_FATAL(decode(answer, (sbx_process_cursor){0, 0}, 3, &o, &err), SBX_OK);
    CU_ASSERT_EQUAL(o->length, 3);
    CU_ASSERT_EQUAL(o->next.stdout_offset, 103);
    CU_ASSERT_EQUAL(o->next.stderr_offset, 0);
    CU_ASSERT_EQUAL(o->chunk_count, 1);
    CU_ASSERT(!o->ended);
    remote_process_output_free(o);
}

/* Text longer than the bytes it stands for (U+FFFD for one byte) is cut
 * to them; a running command has not ended. */
static void test_repaired_text_keeps_the_cursor_exact(void)
{
    sbx_process_output *o = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(
        decode("{\"session_id\":\"s\",\"stdout\":\"a\\ufffdb\",\"offset\":3,"
               "\"stderr_offset\":0,\"command\":{\"command_id\":\"s\",\"command\":\"x\","
               "\"status\":\"running\",\"exit_code\":null}}",
               (sbx_process_cursor){0, 0}, 100, &o, &err), SBX_OK);
    CU_ASSERT_EQUAL(o->length, 3);
    CU_ASSERT_EQUAL(o->next.stdout_offset, 3);
    CU_ASSERT_EQUAL(o->stdout_dropped, 0);
    CU_ASSERT(!o->ended);
    remote_process_output_free(o);
}

/* Answers that cannot be right. */
static void test_bad_output_answers_are_protocol_errors(void)
{
    static const char *const bad[] = {
        "{\"session_id\":\"s\",\"offset\":1,\"stderr_offset\":0}",
        "{\"session_id\":\"s\",\"stderr_offset\":0}",
        "{\"session_id\":\"s\",\"offset\":\"5\",\"stderr_offset\":5}",
        "{\"session_id\":\"s\",\"stdout\":5,\"offset\":5,\"stderr_offset\":5}",
        "{\"session_id\":\"s\",\"offset\":5,\"stderr_offset\":5,\"command\":"
        "{\"status\":\"completed\"}}",
        "{\"session_id\":\"s\",\"offset\":5,\"stderr_offset\":5,\"command\":"
        "{\"status\":\"exploded\",\"exit_code\":0}}",
        "[]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sbx_process_output *o = NULL;
        sbx_error err;
        CU_ASSERT_EQUAL(decode(bad[i], (sbx_process_cursor){2, 0}, 100, &o, &err),
                        SBX_ERR_PROTOCOL);
        CU_ASSERT_PTR_NULL(o);
    }
}

/* An async exec's answer as an info: running, argv from its text. */
static void test_started_info(void)
{
    const char *argv[] = {"echo", "a b", NULL};
    char *text = remote_command_text(argv, NULL);
    remote_command_state state = {"running", 0, 0, text};
    sbx_process_info *info = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(remote_process_info_new("1-s", &state, &info, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(info->process_id, "1-s");
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_RUNNING);
    CU_ASSERT_STRING_EQUAL(info->argv[0], "echo");
    CU_ASSERT_STRING_EQUAL(info->argv[1], "a b");
    CU_ASSERT_PTR_NULL(info->argv[2]);
    CU_ASSERT_EQUAL(info->exit_code, -1);
    remote_process_infos_free(info);
    state = (remote_command_state){"timed_out", 0, 0, text};
    CU_ASSERT_EQUAL_FATAL(remote_process_info_new("1-s", &state, &info, &err), SBX_OK);
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_ENDED);
    CU_ASSERT_EQUAL(info->outcome, SBX_EXEC_TIMED_OUT);
    remote_process_infos_free(info);
    free(text);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "ids_round_trip", test_ids_round_trip },
        { "bad_wire_ids_are_protocol_errors", test_bad_wire_ids_are_protocol_errors },
        { "foreign_ids_do_not_split", test_foreign_ids_do_not_split },
        { "shell_and_foreign_texts_read_as_sh_c", test_shell_and_foreign_texts_read_as_sh_c },
        { "output_bytes_cursor_and_end", test_output_bytes_cursor_and_end },
        { "output_dropped_and_cut", test_output_dropped_and_cut },
        { "repaired_text_keeps_the_cursor_exact", test_repaired_text_keeps_the_cursor_exact },
        { "bad_output_answers_are_protocol_errors",
          test_bad_output_answers_are_protocol_errors },
        { "started_info", test_started_info },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote process wire", NULL, NULL, tests);
}
