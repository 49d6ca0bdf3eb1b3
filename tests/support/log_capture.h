/* Test support: capture what backends log (an sbx_log_fn) and wait, with a
 * deadline, for a line to appear.  Thread-safe: the callback may be called
 * from many threads while a test waits or reads. */
#ifndef SBX_TEST_LOG_CAPTURE_H
#define SBX_TEST_LOG_CAPTURE_H

#include <sbx/backend.h>

typedef struct sbx_test_log_capture sbx_test_log_capture;

/* An empty capture, or NULL when out of memory.  Free it with
 * sbx_test_log_capture_free once no backend logs into it any more. */
sbx_test_log_capture *sbx_test_log_capture_new(void);

/* Free a capture.  NULL is accepted. */
void sbx_test_log_capture_free(sbx_test_log_capture *capture);

/* The sbx_log_fn to hand to a host (log_ctx: the capture).  Appends
 * "LEVEL backend: message" and echoes it to stderr for the test's log. */
void sbx_test_log_capture_fn(void *log_ctx, sbx_log_level level, const char *backend,
                             const char *message);

/* Wait until a captured line contains `substring`, at most `timeout_ms`.
 * Returns 1 when one does (also when it was logged earlier), else 0. */
int sbx_test_log_wait(sbx_test_log_capture *capture, const char *substring, int timeout_ms);

/* 1 when a captured line contains `substring` now, else 0. */
int sbx_test_log_contains(sbx_test_log_capture *capture, const char *substring);

/* A copy of everything captured, lines ending in '\n' (free() it); NULL
 * when out of memory. */
char *sbx_test_log_text(sbx_test_log_capture *capture);

/* Forget every captured line. */
void sbx_test_log_clear(sbx_test_log_capture *capture);

/* Forget what the calling thread logged, so that a following
 * sbx_test_log_thread_contains sees only the lines of its next calls. */
void sbx_test_log_thread_reset(void);

/* 1 when a line logged by the calling thread (into any capture) since its
 * last sbx_test_log_thread_reset contains `substring`, else 0: how a test
 * of many threads tells which answer one call of its own received. */
int sbx_test_log_thread_contains(const char *substring);

#endif
