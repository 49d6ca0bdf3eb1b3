/* Calls on live processes (ABI 1.4) that the process suites share (see
 * process_calls.h). */
#include <config.h>

#include "tests/backend-contract/process_calls.h"

#include "tests/support/clock.h"

#include <stdio.h>
#include <string.h>

/* Start shell text `text` under request `r` (NULL: defaults); its id into
 * `id` (SBX_PROCESS_ID_MAX + 1 bytes).  Fatal when the start fails. */
void proc_test_start_shell(sbx_backend *b, const char *sandbox, const char *text,
                        sbx_process_request *r, char *id)
{
    sbx_process_request defaults = SBX_PROCESS_REQUEST_INIT;
    if (r == NULL)
        r = &defaults;
    r->shell_command = text;
    sbx_process_info *info = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_process_start(b, sandbox, r, &info, &err);
    if (st != SBX_OK)
        fprintf(stderr, "process start '%s': %s\n", text, err.message);
    CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(info);
    CU_ASSERT_PTR_NULL(info->next);
    CU_ASSERT_STRING_EQUAL(info->argv[0], "/bin/sh");
    CU_ASSERT_STRING_EQUAL(info->argv[2], text);
    snprintf(id, SBX_PROCESS_ID_MAX + 1, "%s", info->process_id);
    sbx_backend_free_processes(b, info);
}

/* Add what one read answered to `got`. */
static void take(proc_collected *got, const sbx_process_output *o)
{
    const char *at = o->data;
    for (size_t i = 0; i < o->chunk_count; i++) {
        const sbx_output_chunk *ch = &o->chunks[i];
        int is_out = ch->stream == SBX_STREAM_STDOUT;
        char *to = is_out ? got->out : got->err;
        size_t *len = is_out ? &got->out_len : &got->err_len;
        size_t room = sizeof got->out - *len, n = ch->length < room ? ch->length : room;
        memcpy(to + *len, at, n);
        *len += n;
        at += ch->length;
        if (got->chunks + 1 < sizeof got->order)
            got->order[got->chunks++] = is_out ? 'o' : 'e';
    }
    got->dropped_out += o->stdout_dropped;
    got->dropped_err += o->stderr_dropped;
    got->cursor = o->next;
    got->ended = o->ended;
    got->outcome = o->outcome;
    got->exit_code = o->exit_code;
    got->term_signal = o->term_signal;
}

/* Read once from got->cursor, waiting up to `wait_ms`.  The status. */
sbx_status proc_test_read_once(sbx_backend *b, const char *sandbox, const char *id,
                            proc_collected *got, int64_t wait_ms, size_t max_bytes)
{
    sbx_process_read_request r = SBX_PROCESS_READ_REQUEST_INIT;
    r.cursor = got->cursor;
    r.wait_ms = wait_ms;
    r.max_bytes = max_bytes;
    sbx_process_output *o = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_process_read(b, sandbox, id, &r, &o, &err);
    if (st != SBX_OK)
        fprintf(stderr, "process read %s: %s\n", id, err.message);
    if (st == SBX_OK)
        take(got, o);
    sbx_backend_free_process_output(b, o);
    return st;
}

/* Read until stdout holds `needle` (NULL: until the end), within
 * PROC_TEST_DEADLINE_MS; 1 when it came. */
int proc_test_read_until(sbx_backend *b, const char *sandbox, const char *id, proc_collected *got,
                      const char *needle)
{
    long deadline = sbx_test_now_ms() + PROC_TEST_DEADLINE_MS;
    while (sbx_test_now_ms() < deadline) {
        if (proc_test_read_once(b, sandbox, id, got, PROC_TEST_SLICE_MS, SBX_PROCESS_DEFAULT) != SBX_OK)
            return 0;
        got->out[got->out_len < sizeof got->out ? got->out_len : sizeof got->out - 1] = '\0';
        if (needle != NULL ? memmem(got->out, got->out_len, needle, strlen(needle)) != NULL
                           : got->ended)
            return 1;
        if (got->ended)
            return 0;
    }
    return 0;
}

/* Wait for the end of process `id`; its info (the caller frees it). */
sbx_process_info *proc_test_wait_end(sbx_backend *b, const char *sandbox, const char *id)
{
    long deadline = sbx_test_now_ms() + PROC_TEST_DEADLINE_MS;
    sbx_process_info *info = NULL;
    sbx_error err;
    while (sbx_test_now_ms() < deadline) {
        sbx_backend_free_processes(b, info);
        info = NULL;
        CU_ASSERT_EQUAL_FATAL(sbx_backend_process_wait(b, sandbox, id, PROC_TEST_SLICE_MS, &info, &err),
                              SBX_OK);
        if (info->state == SBX_PROCESS_ENDED)
            break;
    }
    CU_ASSERT_EQUAL(info->state, SBX_PROCESS_ENDED);
    return info;
}

void proc_test_write_stdin(sbx_backend *b, const char *sandbox, const char *id, const char *text,
                        int close_it)
{
    sbx_process_write_request w = SBX_PROCESS_WRITE_REQUEST_INIT;
    w.data = text;
    w.length = text != NULL ? strlen(text) : 0;
    w.close_stdin = close_it;
    sbx_error err;
    sbx_status st = sbx_backend_process_write(b, sandbox, id, &w, &err);
    if (st != SBX_OK)
        fprintf(stderr, "process write %s: %s\n", id, err.message);
    CU_ASSERT_EQUAL(st, SBX_OK);
}

