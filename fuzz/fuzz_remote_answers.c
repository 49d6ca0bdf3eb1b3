/*
 * libFuzzer target "remote-answers": the one-pass readers of the two
 * answers every remote exec reads, against their json-c readings, on the
 * same bytes:
 *   - an exec answer (POST /v1/bash/exec): remote_exec_answer_read against
 *     remote_aio_envelope + remote_aio_decode_exec, for a small and a large
 *     output cap;
 *   - a sandbox answer (GET /api/sandboxes/<id>): remote_sandbox_answer_read
 *     against common_json_parse_ex + remote_read_sandbox;
 *   - a list answer (POST /v1/file/list): remote_list_answer_read against
 *     remote_aio_envelope + remote_aio_decode_listing, deep and shallow.
 * They must agree on the status, the error's kind and message, and every
 * field a caller sees (the fuzzer aborts on a difference: a finding).
 */
#include <config.h>

#include "common/json_fields.h"
#include "common/op_results.h"
#include "plugin/remote/remote_aio_decode.h"
#include "plugin/remote/remote_decode.h"
#include "plugin/remote/remote_exec_answer.h"
#include "plugin/remote/remote_list_answer.h"
#include "plugin/remote/remote_sandbox_answer.h"
#include "plugin/remote/remote_sandbox_rules.h"

#include <sbx/backend_support.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same_error(sbx_status a, const sbx_error *ea, sbx_status b, const sbx_error *eb)
{
    return a == b && (a == SBX_OK || (ea->kind == eb->kind &&
                                      strcmp(ea->message, eb->message) == 0));
}

static int same_bytes(const char *a, size_t a_len, const char *b, size_t b_len)
{
    return a_len == b_len && a != NULL && b != NULL && memcmp(a, b, a_len) == 0 &&
           a[a_len] == '\0' && b[b_len] == '\0';
}

static void check_exec(const char *body, size_t size, size_t cap)
{
    sbx_exec_result *fast = NULL, *slow = NULL;
    sbx_error fast_err, slow_err;
    sbx_backend_error_clear(&fast_err);
    sbx_backend_error_clear(&slow_err);
    sbx_status fast_st = remote_exec_answer_read(body, size, cap, &fast, &fast_err);
    remote_aio_answer answer;
    sbx_status slow_st = remote_aio_envelope(body, size, "exec", SBX_ERR_PROVISIONER, &answer,
                                             &slow_err);
    if (slow_st == SBX_OK)
        slow_st = remote_aio_decode_exec(answer.data, cap, &slow, &slow_err);
    json_object_put(answer.root);
    if (!same_error(fast_st, &fast_err, slow_st, &slow_err) ||
        (fast_st == SBX_OK) != (fast != NULL) || (slow_st == SBX_OK) != (slow != NULL))
        abort();
    if (fast != NULL &&
        (fast->outcome != slow->outcome || fast->exit_code != slow->exit_code ||
         fast->term_signal != slow->term_signal ||
         !same_bytes(fast->stdout_data, fast->stdout_length, slow->stdout_data,
                     slow->stdout_length) ||
         !same_bytes(fast->stderr_data, fast->stderr_length, slow->stderr_data,
                     slow->stderr_length) ||
         fast->stdout_truncated != slow->stdout_truncated ||
         fast->stderr_truncated != slow->stderr_truncated || fast->stdout_length > cap ||
         fast->stderr_length > cap))
        abort();
    common_exec_result_free(fast);
    common_exec_result_free(slow);
}

static int same_text(const char *a, const char *b)
{
    return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* json-c's walk cannot tell a member that is absent from one that is null
 * (both are a NULL value), and the rules treat them alike. */
static common_json_field seen(common_json_field state)
{
    return state == COMMON_JSON_ABSENT ? COMMON_JSON_NULL : state;
}

static void check_sandbox_answer(const char *body, size_t size)
{
    remote_sandbox_answer answer;
    remote_fields fast, slow;
    sbx_error fast_err, slow_err;
    sbx_backend_error_clear(&fast_err);
    sbx_backend_error_clear(&slow_err);
    sbx_status fast_st = remote_sandbox_answer_read(body, size, &answer, &fast, &fast_err);
    int too_deep = 0;
    struct json_object *root = common_json_parse_ex(body, size, &too_deep);
    sbx_status slow_st;
    if (too_deep)
        slow_st = sbx_backend_error_set(&slow_err, SBX_ERR_PROTOCOL,
                                        "sandbox answer is " COMMON_JSON_TOO_DEEP);
    else if (root == NULL || !json_object_is_type(root, json_type_object))
        slow_st = remote_problem_error(REMOTE_NOT_OBJECT, &slow_err);
    else
        slow_st = remote_read_sandbox(root, &slow, &slow_err);
    if (!same_error(fast_st, &fast_err, slow_st, &slow_err))
        abort();
    if (fast_st == SBX_OK) {
        for (int i = 0; i < REMOTE_FIELD_COUNT; i++)
            if (seen(fast.state[i]) != seen(slow.state[i]))
                abort();
        for (int i = 0; i < REMOTE_FIELD_VERSION; i++)
            if (fast.state[i] == COMMON_JSON_OK && !same_text(fast.text[i], slow.text[i]))
                abort();
        if (fast.state[REMOTE_FIELD_VERSION] == COMMON_JSON_OK && fast.version != slow.version)
            abort();
    }
    json_object_put(root);
    remote_sandbox_answer_free(&answer);
}

static void check_list(const char *body, size_t size, unsigned depth, size_t cap)
{
    sbx_dir_listing *fast = NULL, *slow = NULL;
    sbx_error fast_err, slow_err;
    sbx_backend_error_clear(&fast_err);
    sbx_backend_error_clear(&slow_err);
    sbx_status fast_st = remote_list_answer_read(body, size, "/w", depth, cap, &fast, &fast_err);
    remote_aio_answer answer;
    sbx_status slow_st = remote_aio_envelope(body, size, "/w", SBX_ERR_NOT_A_DIRECTORY, &answer,
                                             &slow_err);
    if (slow_st == SBX_OK)
        slow_st = remote_aio_decode_listing(answer.data, "/w", depth, cap, &slow, &slow_err);
    json_object_put(answer.root);
    if (!same_error(fast_st, &fast_err, slow_st, &slow_err) ||
        (fast_st == SBX_OK) != (fast != NULL) || (slow_st == SBX_OK) != (slow != NULL))
        abort();
    if (fast != NULL && (fast->count != slow->count || fast->truncated != slow->truncated))
        abort();
    const sbx_dir_entry *a = fast != NULL ? fast->entries : NULL;
    const sbx_dir_entry *b = slow != NULL ? slow->entries : NULL;
    for (; a != NULL && b != NULL; a = a->next, b = b->next)
        if (strcmp(a->path, b->path) != 0 || a->type != b->type || a->size != b->size ||
            a->mtime != b->mtime || a->mode != b->mode)
            abort();
    if (a != NULL || b != NULL)
        abort();
    common_listing_free(fast);
    common_listing_free(slow);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *body = (const char *)data;
    check_exec(body, size, 4);
    check_exec(body, size, 1 << 20);
    check_sandbox_answer(body, size);
    check_list(body, size, 1, 2);
    check_list(body, size, 64, 100000);
    return 0;
}
