/* How the remote backend reads a sandbox's AIO answers: every exec status,
 * every FileOperationError type, the envelope, and listings (order, depth,
 * cap, modes and times). */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/op_results.h"
#include "plugin/remote/remote_aio_decode.h"
#include "plugin/remote/remote_exec_answer.h"
#include "plugin/remote/remote_list_answer.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The json-c reading of an exec answer: envelope, then data. */
static sbx_status exec_answer_json_c(const char *body, size_t cap, sbx_exec_result **out,
                                     sbx_error *err)
{
    remote_aio_answer answer;
    *out = NULL;
    sbx_status st = remote_aio_envelope(body, strlen(body), "exec", SBX_ERR_PROVISIONER, &answer,
                                        err);
    if (st == SBX_OK)
        st = remote_aio_decode_exec(answer.data, cap, out, err);
    json_object_put(answer.root);
    return st;
}

/* Decode an exec answer as remote_exec_post does (the one-pass reader); it must
 * agree with the json-c reading in status, message and every result field.
 * SBX_OK with *out, or the error. */
static sbx_status exec_answer(const char *body, size_t cap, sbx_exec_result **out,
                              sbx_error *err)
{
    sbx_exec_result *slow = NULL;
    sbx_error slow_err;
    sbx_status slow_st = exec_answer_json_c(body, cap, &slow, &slow_err);
    sbx_status st = remote_exec_answer_read(body, strlen(body), cap, out, err);
    CU_ASSERT_EQUAL(st, slow_st);
    if (st != SBX_OK && st == slow_st)
        CU_ASSERT_STRING_EQUAL(err->message, slow_err.message);
    if (st == SBX_OK && slow_st == SBX_OK) {
        const sbx_exec_result *a = *out, *b = slow;
        CU_ASSERT(a->outcome == b->outcome && a->exit_code == b->exit_code &&
                  a->term_signal == b->term_signal);
        CU_ASSERT(a->stdout_length == b->stdout_length && a->stderr_length == b->stderr_length &&
                  a->stdout_truncated == b->stdout_truncated &&
                  a->stderr_truncated == b->stderr_truncated);
        CU_ASSERT(memcmp(a->stdout_data, b->stdout_data, a->stdout_length) == 0 &&
                  memcmp(a->stderr_data, b->stderr_data, a->stderr_length) == 0);
    }
    common_exec_result_free(slow);
    return st;
}

#define DATA(fields) "{\"success\":true,\"message\":\"ok\",\"data\":{\"session_id\":\"s\"," \
                     "\"command_id\":\"c\",\"command\":\"x\"," fields "}}"

static void test_completed_exit_codes(void)
{
    static const int codes[] = { 0, 1, 127, 255 };
    for (size_t i = 0; i < 4; i++) {
        char body[256];
        snprintf(body, sizeof body, DATA("\"status\":\"completed\",\"exit_code\":%d,"
                                         "\"stdout\":\"out\",\"stderr\":\"err\""), codes[i]);
        sbx_exec_result *r;
        sbx_error err;
        CU_ASSERT_EQUAL_FATAL(exec_answer(body, 100, &r, &err), SBX_OK);
        CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_EXITED);
        CU_ASSERT_EQUAL(r->exit_code, codes[i]);
        CU_ASSERT_EQUAL(r->term_signal, 0);
        CU_ASSERT_EQUAL(r->stdout_length, 3);
        CU_ASSERT_STRING_EQUAL(r->stdout_data, "out");
        CU_ASSERT_STRING_EQUAL(r->stderr_data, "err");
        CU_ASSERT(!r->stdout_truncated && !r->stderr_truncated);
        common_exec_result_free(r);
    }
}

/* Python's returncode -N: the process died of signal N. */
static void test_negative_exit_code_is_a_signal(void)
{
    sbx_exec_result *r;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(exec_answer(DATA("\"status\":\"completed\",\"exit_code\":-9"), 10, &r,
                                      &err), SBX_OK);
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_SIGNALED);
    CU_ASSERT_EQUAL(r->term_signal, 9);
    CU_ASSERT_EQUAL(r->exit_code, -1);
    CU_ASSERT_EQUAL(r->stdout_length, 0); /* no stdout: empty, never NULL */
    CU_ASSERT_PTR_NOT_NULL(r->stdout_data);
    common_exec_result_free(r);
}

static void test_timed_out_and_killed(void)
{
    sbx_exec_result *r;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(exec_answer(DATA("\"status\":\"timed_out\",\"exit_code\":null,"
                                           "\"stdout\":\"partial\",\"stderr\":null"),
                                      10, &r, &err), SBX_OK);
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_TIMED_OUT);
    CU_ASSERT_EQUAL(r->exit_code, -1);
    CU_ASSERT_STRING_EQUAL(r->stdout_data, "partial");
    common_exec_result_free(r);
    CU_ASSERT_EQUAL_FATAL(exec_answer(DATA("\"status\":\"killed\""), 10, &r, &err), SBX_OK);
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_SIGNALED);
    CU_ASSERT_EQUAL(r->term_signal, 0); /* the wire does not say which */
    CU_ASSERT_EQUAL(r->exit_code, -1);
    common_exec_result_free(r);
    CU_ASSERT_EQUAL_FATAL(exec_answer(DATA("\"status\":\"killed\",\"exit_code\":-15"), 10, &r,
                                      &err), SBX_OK);
    CU_ASSERT_EQUAL(r->outcome, SBX_EXEC_SIGNALED);
    CU_ASSERT_EQUAL(r->term_signal, 15);
    CU_ASSERT_EQUAL(r->exit_code, -1);
    common_exec_result_free(r);
}

/* What a synchronous exec must never answer, and ill-typed answers. */
static void test_unusable_exec_answers_are_protocol_errors(void)
{
    static const char *const bodies[] = {
        DATA("\"status\":\"running\""),
        DATA("\"status\":\"pending\""),
        DATA("\"status\":\"exploded\",\"exit_code\":0"),
        DATA("\"exit_code\":0"),
        DATA("\"status\":\"completed\""),
        DATA("\"status\":\"completed\",\"exit_code\":null"),
        DATA("\"status\":\"completed\",\"exit_code\":\"0\""),
        DATA("\"status\":\"completed\",\"exit_code\":256"),
        DATA("\"status\":\"completed\",\"exit_code\":-1000"),
        DATA("\"status\":\"completed\",\"exit_code\":0,\"stdout\":5"),
        "{\"success\":true,\"data\":null}",
        "{\"success\":\"yes\",\"data\":{}}",
        "[1,2]",
        "not json",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        sbx_exec_result *r;
        sbx_error err;
        CU_ASSERT_EQUAL(exec_answer(bodies[i], 10, &r, &err), SBX_ERR_PROTOCOL);
        CU_ASSERT_PTR_NULL(r);
    }
}

/* The first `cap` bytes are kept, NUL bytes (\u0000) included, and the
 * rest only counts as truncated. */
static void test_output_cap_and_nul_bytes(void)
{
    sbx_exec_result *r;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(exec_answer(DATA("\"status\":\"completed\",\"exit_code\":0,"
                                           "\"stdout\":\"a\\u0000b\\u0000c\","
                                           "\"stderr\":\"0123456789\""),
                                      5, &r, &err), SBX_OK);
    CU_ASSERT_EQUAL(r->stdout_length, 5);
    CU_ASSERT_EQUAL(memcmp(r->stdout_data, "a\0b\0c", 5), 0);
    CU_ASSERT(!r->stdout_truncated);
    CU_ASSERT_EQUAL(r->stderr_length, 5);
    CU_ASSERT_STRING_EQUAL(r->stderr_data, "01234");
    CU_ASSERT(r->stderr_truncated);
    common_exec_result_free(r);
    /* a multi-byte character is bytes: the cap counts bytes */
    CU_ASSERT_EQUAL_FATAL(exec_answer(DATA("\"status\":\"completed\",\"exit_code\":0,"
                                           "\"stdout\":\"\\u00e9\\u00e9\""),
                                      3, &r, &err), SBX_OK);
    CU_ASSERT_EQUAL(r->stdout_length, 3);
    CU_ASSERT(r->stdout_truncated);
    common_exec_result_free(r);
}

/* Answers of unusual shape read exactly as json-c reads them (exec_answer
 * compares the one-pass reader with it): repeated keys (the last wins), a
 * later "data", members nested deeper, keys cut at an escaped NUL, json-c's
 * literals and strings, ill-typed success and streams, failures. */
static void test_exec_answers_of_every_shape_read_as_json_c_reads_them(void)
{
    static const char *const bodies[] = {
        DATA("\"status\":\"completed\",\"exit_code\":3,\"exit_code\":4,\"stdout\":\"a\","
             "\"stdout\":\"b\""),
        "{\"data\":{\"status\":\"completed\",\"exit_code\":1},"
        "\"data\":{\"status\":\"killed\",\"exit_code\":-9}}",
        "{\"data\":{\"status\":\"completed\",\"exit_code\":1},\"data\":null}",
        "{\"data\":{\"status\":\"completed\",\"exit_code\":1},\"data\":[1]}",
        "{\"data\":{\"x\":{\"status\":\"killed\",\"stdout\":5},\"status\":\"completed\","
        "\"exit_code\":0},\"status\":\"timed_out\",\"stdout\":\"root\"}",
        "{\"data\":{\"stat\\u0000x\":1,\"status\\u0000x\":\"timed_out\",\"exit_code\":0}}",
        "{\"success\":True,\"data\":{\"status\":\"completed\",\"exit_code\":0}}",
        "{\"success\":false,\"data\":{\"status\":\"completed\",\"exit_code\":0}}",
        "{\"success\":true,\"success\":false,\"data\":{\"status\":\"completed\",\"exit_code\":0}}",
        "{\"success\":false,\"success\":true,\"data\":{\"status\":\"completed\",\"exit_code\":0}}",
        "{\"success\":null,\"data\":{\"status\":\"completed\",\"exit_code\":0}}",
        "{\"success\":1,\"data\":{\"status\":\"completed\",\"exit_code\":0}}",
        "{\"success\":\"true\",\"data\":{\"status\":\"completed\",\"exit_code\":0}}",
        "{\"success\":false,\"message\":\"boom\",\"data\":{\"error_type\":\"io_error\"}}",
        "{'data':{'status':'completed','exit_code':0,'stdout':'single',},}",
        "/* c */{\"data\":{\"status\":\"completed\",\"exit_code\":0x10}}",
        "{\"data\":{\"status\":\"completed\",\"exit_code\":1.0}}",
        "{\"data\":{\"status\":\"completed\",\"exit_code\":99999999999}}",
        "{\"data\":{\"status\":\"completed\",\"exit_code\":0,\"stdout\":\"\\ud800x\","
        "\"stderr\":\"\\udc00\\ud83d\\ude00\"}}",
        "{\"data\":{\"status\":\"compl\\u0000eted\",\"exit_code\":0}}",
        "{\"data\":{\"status\":\"completed\",\"exit_code\":0,\"stderr\":[\"x\"]}}",
        "{\"data\":{\"status\":\"completed\",\"exit_code\":0,\"stdout\":null,\"stderr\":null}}",
        "{\"data\":{\"status\":5,\"exit_code\":0}}",
        "{\"data\":{\"status\":\"completed\",\"exit_code\":0}} x",
        "{\"data\":{\"status\":\"completed\",\"exit_code\":0}",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        "{}",
        "",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        sbx_exec_result *r = NULL;
        sbx_error err;
        if (exec_answer(bodies[i], 4, &r, &err) == SBX_OK)
            common_exec_result_free(r);
    }
}

/* Every documented error_type, and errno_name before it. */
static void test_file_error_kinds(void)
{
    static const struct { const char *type; sbx_status kind; } table[] = {
        { "not_found", SBX_ERR_NO_SUCH_PATH },
        { "permission_denied", SBX_ERR_PERMISSION },
        { "read_only_filesystem", SBX_ERR_PERMISSION },
        { "already_exists", SBX_ERR_EXISTS },
        { "invalid_path", SBX_ERR_USAGE },
        { "decode_error", SBX_ERR_PROTOCOL },
        { "no_space_left", SBX_ERR_PROVISIONER },
        { "io_error", SBX_ERR_PROVISIONER },
        { "something_new", SBX_ERR_PROVISIONER },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        CU_ASSERT_EQUAL(remote_aio_file_error_kind(table[i].type, NULL, SBX_ERR_USAGE),
                        table[i].kind);
    CU_ASSERT_EQUAL(remote_aio_file_error_kind("invalid_target", NULL, SBX_ERR_NOT_A_DIRECTORY),
                    SBX_ERR_NOT_A_DIRECTORY);
    CU_ASSERT_EQUAL(remote_aio_file_error_kind("invalid_target", NULL, SBX_ERR_IS_A_DIRECTORY),
                    SBX_ERR_IS_A_DIRECTORY);
    CU_ASSERT_EQUAL(remote_aio_file_error_kind(NULL, NULL, SBX_ERR_USAGE), SBX_ERR_PROVISIONER);
    static const struct { const char *name; sbx_status kind; } by_errno[] = {
        { "ENOENT", SBX_ERR_NO_SUCH_PATH }, { "ENOTDIR", SBX_ERR_NOT_A_DIRECTORY },
        { "EISDIR", SBX_ERR_IS_A_DIRECTORY }, { "EEXIST", SBX_ERR_EXISTS },
        { "EACCES", SBX_ERR_PERMISSION }, { "EPERM", SBX_ERR_PERMISSION },
        { "EROFS", SBX_ERR_PERMISSION },
    };
    for (size_t i = 0; i < sizeof by_errno / sizeof by_errno[0]; i++)
        CU_ASSERT_EQUAL(remote_aio_file_error_kind("io_error", by_errno[i].name, SBX_ERR_USAGE),
                        by_errno[i].kind);
    /* an errno sbx does not know leaves the type to decide */
    CU_ASSERT_EQUAL(remote_aio_file_error_kind("not_found", "EWEIRD", SBX_ERR_USAGE),
                    SBX_ERR_NO_SUCH_PATH);
}

/* success:false with a FileOperationError: its kind, its message, and the
 * HTTP status 200 it came with. */
static void test_failed_envelope_names_the_error(void)
{
    const char *body = "{\"success\":false,\"message\":\"failed\",\"data\":{\"path\":\"/x\","
                       "\"operation\":\"read\",\"message\":\"No such file: /x\","
                       "\"error_type\":\"not_found\",\"errno\":2,\"errno_name\":\"ENOENT\"}}";
    remote_aio_answer answer;
    sbx_error err;
    CU_ASSERT_EQUAL(remote_aio_envelope(body, strlen(body), "/x", SBX_ERR_USAGE, &answer, &err),
                    SBX_ERR_NO_SUCH_PATH);
    CU_ASSERT_PTR_NULL(answer.root);
    CU_ASSERT_STRING_EQUAL(err.message, "/x: No such file: /x (not_found)");
    CU_ASSERT_EQUAL(err.http_status, 200);
    const char *bare = "{\"success\":false,\"message\":\"it broke\",\"data\":null}";
    CU_ASSERT_EQUAL(remote_aio_envelope(bare, strlen(bare), "exec", SBX_ERR_USAGE, &answer, &err),
                    SBX_ERR_PROVISIONER);
    CU_ASSERT_STRING_EQUAL(err.message, "exec: it broke");
}

static void test_permissions(void)
{
    CU_ASSERT_EQUAL(remote_aio_permissions("755"), 0755);
    CU_ASSERT_EQUAL(remote_aio_permissions("0644"), 0644);
    CU_ASSERT_EQUAL(remote_aio_permissions("0o600"), 0600);
    CU_ASSERT_EQUAL(remote_aio_permissions("4755"), 04755);
    CU_ASSERT_EQUAL(remote_aio_permissions("-rwxr-xr-x"), 0755);
    CU_ASSERT_EQUAL(remote_aio_permissions("rw-r-----"), 0640);
    CU_ASSERT_EQUAL(remote_aio_permissions("drwsr-sr-t"), 07755);
    CU_ASSERT_EQUAL(remote_aio_permissions("-rwSr--r-T"), 05644);
    CU_ASSERT_EQUAL(remote_aio_permissions(""), 0);
    CU_ASSERT_EQUAL(remote_aio_permissions("9"), 0);
    CU_ASSERT_EQUAL(remote_aio_permissions("0o"), 0);
    CU_ASSERT_EQUAL(remote_aio_permissions("rwxrwxrwq"), 0);
    CU_ASSERT_EQUAL(remote_aio_permissions(NULL), 0);
}

static void test_modified_times(void)
{
    /* 2024-01-02T03:04:05Z */
    const int64_t base = INT64_C(1704164645000);
    CU_ASSERT_EQUAL(remote_aio_mtime("2024-01-02T03:04:05Z"), base);
    CU_ASSERT_EQUAL(remote_aio_mtime("2024-01-02T03:04:05+00:00"), base);
    CU_ASSERT_EQUAL(remote_aio_mtime("2024-01-02T03:04:05.678901"), base + 678);
    CU_ASSERT_EQUAL(remote_aio_mtime("2024-01-02T03:04:05"), base);
    CU_ASSERT_EQUAL(remote_aio_mtime("yesterday"), SBX_TIME_UNKNOWN);
    CU_ASSERT_EQUAL(remote_aio_mtime(NULL), SBX_TIME_UNKNOWN);
}

/* Decode a list answer's data for `listed`. */
static sbx_status listing(const char *data_text, const char *listed, unsigned depth,
                          size_t cap, sbx_dir_listing **out, sbx_error *err)
{
    struct json_object *data = json_tokener_parse(data_text);
    CU_ASSERT_FATAL(data != NULL);
    sbx_status st = remote_aio_decode_listing(data, listed, depth, cap, out, err);
    json_object_put(data);
    return st;
}

#define INFO(p, dir) "{\"name\":\"n\",\"path\":\"" p "\",\"is_directory\":" dir "}"

/* Entries come depth first, each directory's by name, whatever order the
 * server sent; deeper ones than asked are dropped; the cap truncates. */
static void test_listing_order_depth_and_cap(void)
{
    const char *text = "{\"path\":\"/w\",\"files\":["
        INFO("/w/b", "false") "," INFO("/w/a-c", "false") "," INFO("/w/a/z/deep", "false") ","
        "{\"name\":\"a\",\"path\":\"/w/a\",\"is_directory\":true,\"size\":4096,"
        "\"modified_time\":\"2024-01-02T03:04:05\",\"permissions\":\"755\"},"
        INFO("/w/a/z", "true") "," INFO("/w/a/y", "false") "]}";
    sbx_dir_listing *l;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(listing(text, "/w", 2, 100, &l, &err), SBX_OK);
    static const char *const want[] = { "a", "a/y", "a/z", "a-c", "b" };
    sbx_dir_entry *e = l->entries;
    for (size_t i = 0; i < 5; i++, e = e->next) {
        CU_ASSERT_FATAL(e != NULL);
        CU_ASSERT_STRING_EQUAL(e->path, want[i]);
    }
    CU_ASSERT_PTR_NULL(e);
    CU_ASSERT_EQUAL(l->count, 5);
    CU_ASSERT(!l->truncated);
    e = l->entries;
    CU_ASSERT_EQUAL(e->type, SBX_FILE_DIRECTORY);
    CU_ASSERT_EQUAL(e->size, 0); /* a directory's size is 0 */
    CU_ASSERT_EQUAL(e->mode, 0755);
    CU_ASSERT_EQUAL(e->mtime, INT64_C(1704164645000));
    CU_ASSERT_EQUAL(e->next->type, SBX_FILE_REGULAR);
    CU_ASSERT_EQUAL(e->next->mtime, SBX_TIME_UNKNOWN);
    common_listing_free(l);
    CU_ASSERT_EQUAL_FATAL(listing(text, "/w", 1, 2, &l, &err), SBX_OK);
    CU_ASSERT_EQUAL(l->count, 2);
    CU_ASSERT(l->truncated);
    CU_ASSERT_STRING_EQUAL(l->entries->path, "a");
    CU_ASSERT_STRING_EQUAL(l->entries->next->path, "a-c");
    common_listing_free(l);
}

/* The root, a listed path with a trailing '/', and the answer's own name
 * of the directory (a link resolved) are all read right. */
static void test_listing_paths_relative_to_the_directory(void)
{
    sbx_dir_listing *l;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(listing("{\"path\":\"/\",\"files\":[" INFO("/etc", "true") "]}", "/",
                                  1, 10, &l, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(l->entries->path, "etc");
    common_listing_free(l);
    CU_ASSERT_EQUAL_FATAL(listing("{\"files\":[" INFO("/w/f", "false") "]}", "/w/", 1, 10, &l,
                                  &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(l->entries->path, "f");
    common_listing_free(l);
    CU_ASSERT_EQUAL_FATAL(listing("{\"path\":\"/real\",\"files\":[" INFO("/real/f", "false")
                                  "]}", "/link", 1, 10, &l, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(l->entries->path, "f");
    common_listing_free(l);
    CU_ASSERT_EQUAL_FATAL(listing("{\"path\":\"/w\",\"files\":[]}", "/w", 1, 10, &l, &err),
                          SBX_OK);
    CU_ASSERT_PTR_NULL(l->entries);
    CU_ASSERT_EQUAL(l->count, 0);
    common_listing_free(l);
}

static void test_unusable_listings_are_protocol_errors(void)
{
    static const char *const texts[] = {
        "{\"path\":\"/w\"}",
        "{\"path\":\"/w\",\"files\":{}}",
        "{\"path\":\"/w\",\"files\":[" INFO("/elsewhere/f", "false") "]}",
        "{\"path\":\"/w\",\"files\":[" INFO("/wx", "false") "]}",
        "{\"path\":\"/w\",\"files\":[" INFO("/w/f", "\"no\"") "]}",
        "{\"path\":\"/w\",\"files\":[5]}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        sbx_dir_listing *l;
        sbx_error err;
        CU_ASSERT_EQUAL(listing(texts[i], "/w", 3, 10, &l, &err), SBX_ERR_PROTOCOL);
        CU_ASSERT_PTR_NULL(l);
    }
}

/* Read a whole list answer as list_dir does (the one-pass reader); it must
 * agree with the json-c reading (envelope, then data) in status, message
 * and every entry.  SBX_OK with *out, or the error. */
static sbx_status list_answer(const char *body, const char *listed, unsigned depth, size_t cap,
                              sbx_dir_listing **out, sbx_error *err)
{
    sbx_dir_listing *slow = NULL;
    sbx_error slow_err;
    remote_aio_answer answer;
    sbx_status slow_st = remote_aio_envelope(body, strlen(body), listed, SBX_ERR_NOT_A_DIRECTORY,
                                             &answer, &slow_err);
    if (slow_st == SBX_OK)
        slow_st = remote_aio_decode_listing(answer.data, listed, depth, cap, &slow, &slow_err);
    json_object_put(answer.root);
    sbx_status st = remote_list_answer_read(body, strlen(body), listed, depth, cap, out, err);
    CU_ASSERT_EQUAL(st, slow_st);
    CU_ASSERT_EQUAL(st == SBX_OK, *out != NULL);
    if (st != SBX_OK && st == slow_st)
        CU_ASSERT_STRING_EQUAL(err->message, slow_err.message);
    if (st == SBX_OK && slow_st == SBX_OK) {
        CU_ASSERT(slow->count == (*out)->count && slow->truncated == (*out)->truncated);
        const sbx_dir_entry *a = (*out)->entries, *b = slow->entries;
        for (; a != NULL && b != NULL; a = a->next, b = b->next)
            CU_ASSERT(strcmp(a->path, b->path) == 0 && a->type == b->type &&
                      a->size == b->size && a->mtime == b->mtime && a->mode == b->mode);
        CU_ASSERT(a == NULL && b == NULL);
    }
    common_listing_free(slow);
    return st;
}

#define ANSWER(data) "{\"success\":true,\"message\":\"Operation successful\",\"data\":" data \
                     ",\"hint\":null}"
#define FULL(p, dir, size) "{\"name\":\"n\",\"path\":\"" p "\",\"is_directory\":" dir \
                           ",\"size\":" size ",\"modified_time\":\"2024-01-02T03:04:05.678901\"," \
                           "\"permissions\":\"644\",\"extension\":null}"

/* An answer as sbx-provisiond writes it reads without json-c: sizes, times,
 * modes, depth first order, and the cap. */
static void test_list_answer_read_in_one_pass(void)
{
    const char *body = ANSWER("{\"files\":[" FULL("/w/b.txt", "false", "12") ","
                              FULL("/w/a", "true", "4096") "," FULL("/w/a/c", "false", "3")
                              "],\"path\":\"/w\",\"total_count\":3,\"directory_count\":1,"
                              "\"file_count\":2}");
    sbx_dir_listing *l;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(list_answer(body, "/w", 2, 10, &l, &err), SBX_OK);
    CU_ASSERT_EQUAL(l->count, 3);
    CU_ASSERT_STRING_EQUAL(l->entries->path, "a");
    CU_ASSERT_EQUAL(l->entries->type, SBX_FILE_DIRECTORY);
    CU_ASSERT_EQUAL(l->entries->size, 0);
    CU_ASSERT_STRING_EQUAL(l->entries->next->path, "a/c");
    CU_ASSERT_STRING_EQUAL(l->entries->next->next->path, "b.txt");
    CU_ASSERT_EQUAL(l->entries->next->next->size, 12);
    CU_ASSERT_EQUAL(l->entries->next->next->mode, 0644);
    CU_ASSERT_EQUAL(l->entries->next->next->mtime, INT64_C(1704164645678));
    common_listing_free(l);
    CU_ASSERT_EQUAL_FATAL(list_answer(body, "/w", 1, 1, &l, &err), SBX_OK);
    CU_ASSERT_EQUAL(l->count, 1);
    CU_ASSERT(l->truncated);
    common_listing_free(l);
}

/* List answers of unusual or broken shape read exactly as json-c reads
 * them: repeated keys (the last wins), a later "data" or "files", members
 * nested deeper, keys cut at an escaped NUL, json-c's literals, ill-typed
 * members, entries that are not objects, have no path below the directory,
 * a path that is not clean text, no boolean is_directory, failures, and
 * texts that are not JSON. */
static void test_list_answers_of_every_shape_read_as_json_c_reads_them(void)
{
    static const char *const bodies[] = {
        ANSWER("{\"files\":[" FULL("/w/a", "false", "1") "],\"files\":[" FULL("/w/b", "true", "2")
               "]}"),
        "{\"data\":{\"files\":[" INFO("/w/a", "false") "]},\"data\":{\"files\":[]}}",
        "{\"data\":{\"files\":[" INFO("/w/a", "false") "]},\"data\":null}",
        "{\"data\":{\"files\":[" INFO("/w/a", "false") "]},\"data\":[1]}",
        "{\"data\":{\"files\":[" INFO("/w/a", "false") "],\"files\":{}}}",
        "{\"data\":{\"files\":[" INFO("/w/a", "false") "],\"files\":null}}",
        "{\"data\":{\"files\":[" INFO("/x/a", "false") "],\"path\":\"/x\"}}",
        "{\"data\":{\"files\":[" INFO("/x/a", "false") "],\"path\":\"/x\",\"path\":5}}",
        "{\"data\":{\"files\":[" INFO("/x/a", "false") "],\"path\":[\"/x\"]}}",
        "{\"data\":{\"files\":[" INFO("/x/a", "false") "],\"path\":\"/\\u0000x\"}}",
        "{\"data\":{\"x\":{\"files\":[5]},\"files\":[" INFO("/w/a", "true") "]}}",
        "{\"data\":{\"files\\u0000x\":[" INFO("/w/a", "true") "]}}",
        "{\"data\":{\"files\":[{\"path\":\"/w/a\",\"path\":\"/w/b\",\"is_directory\":false,"
        "\"is_directory\":TRUE,\"size\":5,\"size\":\"6\",\"permissions\":\"rwxr-x---\","
        "\"permissions\":[1],\"modified_time\":\"2024-01-02T03:04:05Z\"}]}}",
        "{\"data\":{\"files\":[{\"path\":\"/w/a\",\"is_directory\":false,\"size\":-3,"
        "\"modified_time\":{},\"x\":{\"path\":\"/y\",\"size\":1}}]}}",
        "{\"data\":{\"files\":[{\"path\":\"/w/a\",\"is_directory\":false,"
        "\"size\":99999999999999999999999}]}}",
        "{\"data\":{\"files\":[{\"path\":\"/w/a\",\"is_directory\":false,\"size\":1.5}]}}",
        "{'data':{'files':[{'path':'/w/a','is_directory':false,},],},}",
        "{\"data\":{\"files\":[" INFO("/w/a", "false") "," INFO("/w/b", "\"no\"") "]}}",
        "{\"data\":{\"files\":[" INFO("/w/a", "false") "," INFO("/w/b", "null") "]}}",
        "{\"data\":{\"files\":[" INFO("/w/a", "false") ",[]]}}",
        "{\"data\":{\"files\":[" INFO("/w/a", "false") ",\"/w/b\"]}}",
        "{\"data\":{\"files\":[" INFO("/w/a", "false") "," INFO("/elsewhere", "false") "]}}",
        "{\"data\":{\"files\":[" INFO("/w/\\u0000a", "false") "]}}",
        "{\"data\":{\"files\":[" INFO("/w/\xff", "false") "]}}",
        "{\"data\":{\"files\":[" INFO("/w/\\u00e9\\n\\\"", "false") "]}}",
        "{\"data\":{\"files\":[{\"is_directory\":false}]}}",
        "{\"data\":{\"files\":[{\"path\":null,\"is_directory\":false}]}}",
        "{\"success\":True,\"data\":{\"files\":[]}}",
        "{\"success\":true,\"success\":false,\"data\":{\"files\":[]}}",
        "{\"success\":false,\"success\":true,\"data\":{\"files\":[]}}",
        "{\"success\":null,\"data\":{\"files\":[]}}",
        "{\"success\":\"true\",\"data\":{\"files\":[]}}",
        "{\"success\":false,\"message\":\"boom\",\"data\":{\"error_type\":\"not_found\","
        "\"errno_name\":\"ENOENT\"}}",
        "{\"success\":false,\"data\":{\"error_type\":\"invalid_target\"}}",
        "{\"data\":{\"files\":[]}} x",
        "{\"data\":{\"files\":[]}",
        "[{\"data\":{\"files\":[]}}]",
        "null",
        "{}",
        "",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        sbx_dir_listing *l = NULL;
        sbx_error err;
        if (list_answer(bodies[i], "/w", 3, 10, &l, &err) == SBX_OK)
            common_listing_free(l);
    }
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "completed_exit_codes", test_completed_exit_codes },
        { "negative_exit_code_is_a_signal", test_negative_exit_code_is_a_signal },
        { "timed_out_and_killed", test_timed_out_and_killed },
        { "unusable_exec_answers_are_protocol_errors",
          test_unusable_exec_answers_are_protocol_errors },
        { "output_cap_and_nul_bytes", test_output_cap_and_nul_bytes },
        { "exec_answers_of_every_shape_read_as_json_c_reads_them",
          test_exec_answers_of_every_shape_read_as_json_c_reads_them },
        { "file_error_kinds", test_file_error_kinds },
        { "failed_envelope_names_the_error", test_failed_envelope_names_the_error },
        { "permissions", test_permissions },
        { "modified_times", test_modified_times },
        { "listing_order_depth_and_cap", test_listing_order_depth_and_cap },
        { "listing_paths_relative_to_the_directory",
          test_listing_paths_relative_to_the_directory },
        { "unusable_listings_are_protocol_errors", test_unusable_listings_are_protocol_errors },
        { "list_answer_read_in_one_pass", test_list_answer_read_in_one_pass },
        { "list_answers_of_every_shape_read_as_json_c_reads_them",
          test_list_answers_of_every_shape_read_as_json_c_reads_them },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote AIO answers", NULL, NULL, tests);
}
