/* Raw HTTP requests from a test, with libcurl, to a server on 127.0.0.1
 * or a unix socket (never through a proxy): what a user's client would
 * see.  The one HTTP client of every suite.  Thread-safe: each call uses
 * its own handle. */
#ifndef SBX_TEST_HTTP_PROBE_H
#define SBX_TEST_HTTP_PROBE_H

#include <stddef.h>
#include <curl/curl.h>

/* What came back.  body is NUL-terminated (also when empty); content_type
 * is NULL when the answer had no Content-Type.  All owned by the struct. */
typedef struct sbx_test_http_result {
    CURLcode curl_code;     /* CURLE_OK, or why no complete answer arrived */
    long status;            /* HTTP status; 0 when none arrived */
    char *body;
    size_t body_len;
    size_t body_cap;        /* bytes allocated at body */
    char *content_type;
    char *redirect_url;     /* where a Location header points (never followed); NULL if none */
} sbx_test_http_result;

/* Send `method` to `url` with `headers` ("Name: value", NULL-terminated,
 * may be NULL) and `body` (NULL: none; else sent with Content-Type:
 * application/json unless `headers` name one), waiting at most
 * `timeout_ms`.  Returns 0 when a complete answer arrived, -1 otherwise
 * (out->curl_code says why).  Release *out with sbx_test_http_result_clear. */
int sbx_test_http(const char *method, const char *url, const char *const *headers,
                  const char *body, long timeout_ms, sbx_test_http_result *out);

/* sbx_test_http of a POST whose body is `body_len` bytes, which may hold
 * NUL bytes. */
int sbx_test_http_post_bytes(const char *url, const char *const *headers, const char *body,
                             size_t body_len, long timeout_ms, sbx_test_http_result *out);

/* sbx_test_http without extra headers through the unix socket
 * `socket_path` (a Docker Engine API, whose URLs are
 * "http://localhost/..."). */
int sbx_test_http_unix(const char *socket_path, const char *method, const char *url,
                       const char *body, long timeout_ms, sbx_test_http_result *out);

/* sbx_test_http without extra headers to an https server the test started
 * itself on 127.0.0.1 with a throw-away certificate: the chain is verified
 * against the PEM file `ca_file` (NULL: not verified at all), the host
 * name is not (a test may serve a certificate for another name on
 * purpose, and knows whom it talks to).  Plain http URLs work too. */
int sbx_test_http_trusting(const char *ca_file, const char *method, const char *url,
                           const char *body, long timeout_ms, sbx_test_http_result *out);

/* Release what a result holds; it may be reused afterwards. */
void sbx_test_http_result_clear(sbx_test_http_result *result);

/* GET `url` until it answers (any HTTP status) or timeout_ms pass, for a
 * freshly started server: tries again at once while nothing listens (each
 * try is a short transfer, bounded by the deadline and an attempt count,
 * so no pause is needed).  Returns the HTTP status (and a malloc'ed
 * NUL-terminated body in *body when body is not NULL; the caller frees
 * it), or -1 when nothing answered in time. */
long sbx_test_http_get(const char *url, long timeout_ms, char **body);

/* One GET attempt without retrying: the HTTP status, or -1 when the
 * connection failed (refused, reset, timed out). */
long sbx_test_http_get_once(const char *url, long timeout_ms);

#endif
