/*
 * Calls on live processes (ABI 1.4) that the process suites share: start
 * a shell text, read from a cursor collecting both streams until a text
 * or the end, wait for the end, write stdin.  Each asserts (CUnit) what it
 * needs and waits on a deadline, never a pause.
 */
#ifndef SBX_TEST_PROCESS_CALLS_H
#define SBX_TEST_PROCESS_CALLS_H

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <stddef.h>
#include <stdint.h>

/* Generous: a loaded 2-core machine must not fail a correct run. */
#define PROC_TEST_DEADLINE_MS 60000L

/* One wait of a read or wait call (well under SBX_PROCESS_WAIT_MAX_MS). */
#define PROC_TEST_SLICE_MS 2000

/* What a reader collected of a process: both streams, and the order of
 * the chunks as "oe..." (one letter per chunk). */
typedef struct proc_collected {
    sbx_process_cursor cursor;
    char out[65536], err[65536];
    size_t out_len, err_len;
    char order[256];
    size_t chunks;
    uint64_t dropped_out, dropped_err;
    int ended;
    sbx_exec_outcome outcome;
    int exit_code, term_signal;
} proc_collected;

/* Start shell text `text` in `sandbox` under request `r` (NULL:
 * defaults); its id into `id` (SBX_PROCESS_ID_MAX + 1 bytes).  Fatal when
 * the start fails. */
void proc_test_start_shell(sbx_backend *b, const char *sandbox, const char *text,
                           sbx_process_request *r, char *id);

/* Read once from got->cursor, waiting up to `wait_ms`, at most max_bytes
 * (SBX_PROCESS_DEFAULT: the backend's); what came is added to *got.  The
 * status (an error is printed). */
sbx_status proc_test_read_once(sbx_backend *b, const char *sandbox, const char *id,
                               proc_collected *got, int64_t wait_ms, size_t max_bytes);

/* Read until stdout holds `needle` (NULL: until the end) within
 * PROC_TEST_DEADLINE_MS; 1 when it came. */
int proc_test_read_until(sbx_backend *b, const char *sandbox, const char *id,
                         proc_collected *got, const char *needle);

/* Wait for the end of process `id`: its info (the caller frees it with
 * sbx_backend_free_processes); asserts that it ended. */
sbx_process_info *proc_test_wait_end(sbx_backend *b, const char *sandbox, const char *id);

/* Write `text` (NULL: nothing) to the stdin of `id`, closing it when
 * `close_it`; asserts SBX_OK. */
void proc_test_write_stdin(sbx_backend *b, const char *sandbox, const char *id,
                           const char *text, int close_it);

#endif
