/* The log capture of the test support library, with many threads logging
 * while a test waits for one line (what backend tests rely on). */
#include <config.h>

#include "tests/support/cunit_main.h"
#include "tests/support/log_capture.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define LINES_PER_THREAD 50

typedef struct logger {
    sbx_test_log_capture *capture;
    int index;
} logger;

static void *log_lines(void *arg)
{
    logger *l = arg;
    char message[64];
    for (int i = 0; i < LINES_PER_THREAD; i++) {
        snprintf(message, sizeof message, "thread %d line %d.", l->index, i);
        sbx_test_log_capture_fn(l->capture, SBX_LOG_DEBUG, "fixture", message);
    }
    return NULL;
}

static void test_wait_sees_lines_from_many_threads(void)
{
    sbx_test_log_capture *capture = sbx_test_log_capture_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(capture);
    pthread_t threads[THREADS];
    logger loggers[THREADS];
    for (int t = 0; t < THREADS; t++) {
        loggers[t] = (logger){capture, t};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[t], NULL, log_lines, &loggers[t]), 0);
    }
    /* Waits while the threads still log; returns when the line is there. */
    CU_ASSERT_EQUAL(sbx_test_log_wait(capture, "thread 7 line 49.", 10000), 1);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);

    char *text = sbx_test_log_text(capture);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    int lines = 0;
    for (const char *p = text; (p = strchr(p, '\n')) != NULL; p++)
        lines++;
    CU_ASSERT_EQUAL(lines, THREADS * LINES_PER_THREAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "DEBUG fixture: thread 0 line 0.\n"));
    free(text);
    CU_ASSERT_EQUAL(sbx_test_log_contains(capture, "thread 3 line 17."), 1);
    sbx_test_log_capture_free(capture);
}

static void test_wait_gives_up_at_the_deadline(void)
{
    sbx_test_log_capture *capture = sbx_test_log_capture_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(capture);
    sbx_test_log_capture_fn(capture, SBX_LOG_WARN, "fixture", "something else");
    CU_ASSERT_EQUAL(sbx_test_log_wait(capture, "never logged", 50), 0);
    CU_ASSERT_EQUAL(sbx_test_log_wait(capture, "something else", 50), 1);
    sbx_test_log_clear(capture);
    CU_ASSERT_EQUAL(sbx_test_log_contains(capture, "something else"), 0);
    sbx_test_log_capture_free(capture);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"wait sees lines from many threads", test_wait_sees_lines_from_many_threads},
        {"wait gives up at the deadline", test_wait_gives_up_at_the_deadline},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("log capture", NULL, NULL, tests);
}
