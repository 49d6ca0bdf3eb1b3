/* Retrying HTTP GET for tests (see http_probe.h). */
#include "tests/local-backend/http_probe.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Upper bound on attempts, so the loop ends even if the clock misbehaves. */
#define MAX_ATTEMPTS 200000L

typedef struct body_buf {
    char *data;
    size_t len;
} body_buf;

static size_t collect(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    body_buf *b = userdata;
    size_t n = size * nmemb;
    char *grown = realloc(b->data, b->len + n + 1);
    if (grown == NULL)
        return 0;
    memcpy(grown + b->len, ptr, n);
    b->len += n;
    grown[b->len] = '\0';
    b->data = grown;
    return n;
}

static long monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static long get_once(const char *url, long timeout_ms, body_buf *b)
{
    CURL *h = curl_easy_init();
    if (h == NULL)
        return -1;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 1L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, b);
    long status = -1;
    if (curl_easy_perform(h) == CURLE_OK)
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(h);
    return status;
}

long sbx_test_http_get_once(const char *url, long timeout_ms)
{
    body_buf b = { NULL, 0 };
    long status = get_once(url, timeout_ms, &b);
    free(b.data);
    return status;
}

long sbx_test_http_get(const char *url, long timeout_ms, char **body)
{
    long deadline = monotonic_ms() + timeout_ms;
    long status = -1;
    body_buf b = { NULL, 0 };
    for (long attempt = 0; attempt < MAX_ATTEMPTS && status < 0; attempt++) {
        long left = deadline - monotonic_ms();
        if (left <= 0)
            break;
        free(b.data);
        b.data = NULL;
        b.len = 0;
        status = get_once(url, left < 2000 ? left : 2000, &b);
    }
    if (body != NULL && status >= 0)
        *body = b.data ? b.data : strdup("");
    else
        free(b.data);
    return status;
}
