/* Raw HTTP for tests and the emulator's control calls. */
#include <config.h>

#include "tests/support/http_probe.h"

#include "tests/support/clock.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Upper bound on GET attempts, so the loop ends even if the clock misbehaves. */
#define MAX_GET_ATTEMPTS 200000L

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void init_curl(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t collect(char *data, size_t size, size_t nmemb, void *userdata)
{
    sbx_test_http_result *r = userdata;
    size_t n = size * nmemb;
    if (r->body_len + n + 1 > r->body_cap) {
        /* Doubling: a large answer (tens of MiB under a sanitizer's
         * realloc, which always copies) must not cost its size squared. */
        size_t cap = r->body_cap > 0 ? r->body_cap : 4096;
        while (cap < r->body_len + n + 1)
            cap *= 2;
        char *grown = realloc(r->body, cap);
        if (grown == NULL)
            return 0;
        r->body = grown;
        r->body_cap = cap;
    }
    memcpy(r->body + r->body_len, data, n);
    r->body_len += n;
    r->body[r->body_len] = '\0';
    return n;
}

void sbx_test_http_result_clear(sbx_test_http_result *result)
{
    free(result->body);
    free(result->content_type);
    free(result->redirect_url);
    memset(result, 0, sizeof *result);
}

/* Where a request goes and how its TLS peer is checked. */
typedef struct probe_route {
    const char *socket_path;  /* NULL: TCP */
    int test_certificate;     /* 1: verify the chain against ca_file only, never the name */
    const char *ca_file;      /* with test_certificate: NULL = no verification */
} probe_route;

/* What a request sends: `body_len` bytes of `body` (none when NULL). */
typedef struct probe_request {
    const char *method;
    const char *url;
    const char *const *headers;
    const char *body;
    size_t body_len;
    long timeout_ms;
} probe_request;

static int perform(const probe_route *route, const probe_request *req,
                   sbx_test_http_result *out);

static size_t text_length(const char *body)
{
    return body != NULL ? strlen(body) : 0;
}

int sbx_test_http(const char *method, const char *url, const char *const *headers,
                  const char *body, long timeout_ms, sbx_test_http_result *out)
{
    probe_route route = {NULL, 0, NULL};
    probe_request req = {method, url, headers, body, text_length(body), timeout_ms};
    return perform(&route, &req, out);
}

int sbx_test_http_post_bytes(const char *url, const char *const *headers, const char *body,
                             size_t body_len, long timeout_ms, sbx_test_http_result *out)
{
    probe_route route = {NULL, 0, NULL};
    probe_request req = {"POST", url, headers, body, body_len, timeout_ms};
    return perform(&route, &req, out);
}

int sbx_test_http_unix(const char *socket_path, const char *method, const char *url,
                       const char *body, long timeout_ms, sbx_test_http_result *out)
{
    probe_route route = {socket_path, 0, NULL};
    probe_request req = {method, url, NULL, body, text_length(body), timeout_ms};
    return perform(&route, &req, out);
}

int sbx_test_http_trusting(const char *ca_file, const char *method, const char *url,
                           const char *body, long timeout_ms, sbx_test_http_result *out)
{
    probe_route route = {NULL, 1, ca_file};
    probe_request req = {method, url, NULL, body, text_length(body), timeout_ms};
    return perform(&route, &req, out);
}

static int perform(const probe_route *route, const probe_request *req,
                   sbx_test_http_result *out)
{
    pthread_once(&curl_once, init_curl);
    memset(out, 0, sizeof *out);
    out->curl_code = CURLE_OUT_OF_MEMORY;
    CURL *curl = curl_easy_init();
    if (curl == NULL)
        return -1;
    struct curl_slist *list = NULL;
    int has_content_type = 0;
    for (size_t i = 0; req->headers != NULL && req->headers[i] != NULL; i++) {
        list = curl_slist_append(list, req->headers[i]);
        if (strncasecmp(req->headers[i], "Content-Type:", 13) == 0)
            has_content_type = 1;
    }
    if (req->body != NULL && !has_content_type)
        list = curl_slist_append(list, "Content-Type: application/json");

    curl_easy_setopt(curl, CURLOPT_URL, req->url);
    if (route->socket_path != NULL)
        curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, route->socket_path);
    if (route->test_certificate) {
        curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
        if (route->ca_file != NULL)
            curl_easy_setopt(curl, CURLOPT_CAINFO, route->ca_file);
        else
            curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    }
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req->method);
    if (strcmp(req->method, "GET") == 0)
        curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    if (req->body != NULL) {
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, req->body);
    }
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
    curl_easy_setopt(curl, CURLOPT_PROXY, "");
    curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, req->timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, out);

    out->curl_code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out->status);
    char *content_type = NULL;
    curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &content_type);
    if (content_type != NULL)
        out->content_type = strdup(content_type);
    char *redirect_url = NULL;
    curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &redirect_url);
    if (redirect_url != NULL)
        out->redirect_url = strdup(redirect_url);
    if (out->body == NULL)
        out->body = calloc(1, 1);
    curl_slist_free_all(list);
    curl_easy_cleanup(curl);
    return out->curl_code == CURLE_OK ? 0 : -1;
}

/* One GET into *r: the HTTP status, or -1 without a complete answer.  A
 * zero timeout would mean none to libcurl, so it is at least 1 ms. */
static long get_status(const char *url, long timeout_ms, sbx_test_http_result *r)
{
    int rc = sbx_test_http("GET", url, NULL, NULL, timeout_ms > 0 ? timeout_ms : 1L, r);
    return rc == 0 ? r->status : -1;
}

long sbx_test_http_get_once(const char *url, long timeout_ms)
{
    sbx_test_http_result r;
    long status = get_status(url, timeout_ms, &r);
    sbx_test_http_result_clear(&r);
    return status;
}

long sbx_test_http_get(const char *url, long timeout_ms, char **body)
{
    long deadline = sbx_test_now_ms() + timeout_ms;
    long status = -1;
    sbx_test_http_result r;
    memset(&r, 0, sizeof r);
    for (long attempt = 0; attempt < MAX_GET_ATTEMPTS && status < 0; attempt++) {
        long left = deadline - sbx_test_now_ms();
        if (left <= 0)
            break;
        sbx_test_http_result_clear(&r);
        status = get_status(url, left < 2000 ? left : 2000, &r);
    }
    if (body != NULL && status >= 0) {
        *body = r.body != NULL ? r.body : strdup("");
        r.body = NULL;
    }
    sbx_test_http_result_clear(&r);
    return status;
}
