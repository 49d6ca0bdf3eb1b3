/* Log capture: one growing text buffer, a mutex and a condition variable
 * that waiters sleep on until a new line or their deadline. */
#include <config.h>

#include "tests/support/log_capture.h"

#include "tests/support/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct sbx_test_log_capture {
    pthread_mutex_t lock;
    pthread_cond_t appended;
    char *text;
    size_t len, cap;
};

/* What the calling thread logged since its last sbx_test_log_thread_reset
 * (the newest bytes when it logged more than fits). */
static _Thread_local char thread_lines[4096];

static const char *level_name(sbx_log_level level)
{
    switch (level) {
    case SBX_LOG_ERROR: return "ERROR";
    case SBX_LOG_WARN: return "WARN";
    case SBX_LOG_INFO: return "INFO";
    case SBX_LOG_DEBUG: return "DEBUG";
    }
    return "?";
}

sbx_test_log_capture *sbx_test_log_capture_new(void)
{
    sbx_test_log_capture *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->text = calloc(1, 1);
    if (c->text == NULL) {
        free(c);
        return NULL;
    }
    c->cap = 1;
    pthread_mutex_init(&c->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&c->appended, &attr);
    pthread_condattr_destroy(&attr);
    return c;
}

void sbx_test_log_capture_free(sbx_test_log_capture *capture)
{
    if (capture == NULL)
        return;
    pthread_cond_destroy(&capture->appended);
    pthread_mutex_destroy(&capture->lock);
    free(capture->text);
    free(capture);
}

void sbx_test_log_capture_fn(void *log_ctx, sbx_log_level level, const char *backend,
                             const char *message)
{
    sbx_test_log_capture *c = log_ctx;
    char line[2048];
    int n = snprintf(line, sizeof line, "%s %s: %s\n", level_name(level),
                     backend != NULL ? backend : "-", message != NULL ? message : "");
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    fputs(line, stderr);
    size_t kept = strlen(thread_lines);
    if (kept + len >= sizeof thread_lines)
        kept = 0;
    memcpy(thread_lines + kept, line, len + 1);
    pthread_mutex_lock(&c->lock);
    if (c->len + len + 1 > c->cap) {
        size_t cap = (c->len + len + 1) * 2;
        char *grown = realloc(c->text, cap);
        if (grown == NULL) {
            pthread_mutex_unlock(&c->lock);
            return;
        }
        c->text = grown;
        c->cap = cap;
    }
    memcpy(c->text + c->len, line, len + 1);
    c->len += len;
    pthread_cond_broadcast(&c->appended);
    pthread_mutex_unlock(&c->lock);
}

int sbx_test_log_wait(sbx_test_log_capture *capture, const char *substring, int timeout_ms)
{
    struct timespec deadline = sbx_test_deadline_in(timeout_ms);
    pthread_mutex_lock(&capture->lock);
    int found = strstr(capture->text, substring) != NULL;
    while (!found &&
           pthread_cond_timedwait(&capture->appended, &capture->lock, &deadline) != ETIMEDOUT)
        found = strstr(capture->text, substring) != NULL;
    found = found || strstr(capture->text, substring) != NULL;
    pthread_mutex_unlock(&capture->lock);
    return found;
}

int sbx_test_log_contains(sbx_test_log_capture *capture, const char *substring)
{
    pthread_mutex_lock(&capture->lock);
    int found = strstr(capture->text, substring) != NULL;
    pthread_mutex_unlock(&capture->lock);
    return found;
}

char *sbx_test_log_text(sbx_test_log_capture *capture)
{
    pthread_mutex_lock(&capture->lock);
    char *copy = strdup(capture->text);
    pthread_mutex_unlock(&capture->lock);
    return copy;
}

void sbx_test_log_clear(sbx_test_log_capture *capture)
{
    pthread_mutex_lock(&capture->lock);
    capture->len = 0;
    capture->text[0] = '\0';
    pthread_mutex_unlock(&capture->lock);
}

void sbx_test_log_thread_reset(void)
{
    thread_lines[0] = '\0';
}

int sbx_test_log_thread_contains(const char *substring)
{
    return strstr(thread_lines, substring) != NULL;
}
