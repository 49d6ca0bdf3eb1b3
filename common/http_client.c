/* The shared libcurl client: a pool of keep-alive easy handles.  The safety
 * settings of http_client.h are fixed options, set once when a handle is
 * made; a request sets only what changes per call (URL, headers, method,
 * body, timeout), so the per-call cost stays near a bare libcurl loop. */
#include <config.h>

#include "common/http_client.h"

#include "common/dynbuf.h"

#include "common/printable.h"
#include "common/net_policy.h"
#include "common/redact.h"

#include <sbx/backend_support.h>

#include <curl/curl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The largest body libcurl sends without asking for 100-continue, in every
 * version (1024 bytes in old ones, 1 MiB since). */
#define SMALL_BODY 1024

/* Idle handles kept for reuse; more than this many concurrent calls still
 * work, the surplus handles are just closed when returned. */
#define COMMON_HTTP_POOL_MAX 32

/* libcurl's receive buffer, bytes (CURLOPT_BUFFERSIZE). */
#define HTTP_RECEIVE_BUFFER 131072L

struct common_http_client {
    char *base_url;
    char *shown_url;                  /* base_url without user:password@, for messages
                                       * (and without its path, when a capability) */
    char *secret_path;                /* that capability path, masked in libcurl's
                                       * texts (NULL: none) */
    char *unix_socket_path;
    char *ca_file;
    long connect_timeout_ms;
    size_t max_response_bytes;
    int bypass_proxy;
    struct curl_slist *plain_headers; /* caller's headers: GET, bodyless DELETE */
    struct curl_slist *empty_post_headers; /* + no content type: POST without a body */
    struct curl_slist *json_headers;  /* + JSON content type: a request with a body */
    struct curl_slist *small_json_headers; /* the same without "Expect:": a small body */
    const sbx_host_services *services; /* borrowed: outlives the client */
    char *log_name;

    size_t base_url_len;

    pthread_mutex_t pool_lock;        /* guards idle/idle_count only */
    struct pooled_handle *idle[COMMON_HTTP_POOL_MAX];
    size_t idle_count;
};

/* ------------------------------------------------------------ global init */

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_init_result = CURLE_FAILED_INIT;

static void global_init(void)
{
    global_init_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* ------------------------------------------------------------ helpers */

static char *dup_or_null(const char *s)
{
    return s == NULL ? NULL : strdup(s);
}

#define CLIENT_LOG(c, level, ...) \
    sbx_backend_log((c)->services, (level), (c)->log_name != NULL ? (c)->log_name : "http", \
                    __VA_ARGS__)

static int starts_with_nocase(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

/* Where the path of `url` (an http(s) URL) begins: after its authority. */
static const char *url_path(const char *url)
{
    const char *authority = strstr(url, "://") + 3;
    return authority + strcspn(authority, "/");
}

/* The base URL as messages show it: any "user:password@" dropped, and a
 * capability path as "/..." (`secret_path`: the base URL is a capability). */
static char *url_for_messages(const char *url, int secret_path)
{
    size_t start = 0, len = 0;
    if (!common_url_credentials(url, &start, &len))
        start = len = 0;
    const char *path = url_path(url);
    int hidden = secret_path && path[strspn(path, "/")] != '\0';
    size_t kept = hidden ? (size_t)(path - url) : strlen(url);
    size_t n = kept - len + sizeof "/...";
    char *shown = malloc(n);
    if (shown != NULL)
        snprintf(shown, n, "%.*s%.*s%s", (int)start, url, (int)(kept - start - len),
                 url + start + len, hidden ? "/..." : "");
    return shown;
}

const char *common_http_client_shown_url(const common_http_client *c)
{
    return c->shown_url;
}

static void strip_trailing_slashes(char *url)
{
    size_t len = strlen(url);
    while (len > 0 && url[len - 1] == '/')
        url[--len] = '\0';
}

/* A header must be "Name: value" with a token name; the value may not hold
 * CR or LF (header injection).  Messages name the header, never its value. */
static sbx_status check_header(const char *header, size_t index, sbx_error *err)
{
    const char *colon = strchr(header, ':');
    size_t name_len = colon == NULL ? 0 : (size_t)(colon - header);
    if (colon == NULL || name_len == 0)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "HTTP header #%zu is not of the form 'Name: value'", index);
    for (size_t i = 0; i < name_len; i++) {
        unsigned char ch = (unsigned char)header[i];
        if (ch <= ' ' || ch >= 127 || strchr("()<>@,;:\\\"/[]?={}", ch) != NULL)
            return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                         "HTTP header name '%.*s' has an invalid character",
                                         (int)(name_len > 64 ? 64 : name_len), header);
    }
    if (strpbrk(colon + 1, "\r\n") != NULL)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "HTTP header '%.*s' has a value containing CR or LF",
                                     (int)(name_len > 64 ? 64 : name_len), header);
    return SBX_OK;
}

/* Headers may hold secrets: zero them before the memory is released. */
static void free_header_list(struct curl_slist *list)
{
    for (struct curl_slist *node = list; node != NULL; node = node->next)
        memset(node->data, 0, strlen(node->data));
    curl_slist_free_all(list);
}

static sbx_status append_header(struct curl_slist **list, const char *header,
                                sbx_error *err)
{
    struct curl_slist *grown = curl_slist_append(*list, header);
    if (grown == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory building HTTP headers");
    *list = grown;
    return SBX_OK;
}

static sbx_status build_header_lists(common_http_client *c, const common_http_client_options *o,
                                     sbx_error *err)
{
    for (size_t i = 0; i < o->header_count; i++) {
        if (o->headers[i] == NULL)
            return sbx_backend_error_set(err, SBX_ERR_CONFIG, "HTTP header #%zu is NULL", i);
        sbx_status st = check_header(o->headers[i], i, err);
        if (st == SBX_OK)
            st = append_header(&c->plain_headers, o->headers[i], err);
        if (st == SBX_OK)
            st = append_header(&c->empty_post_headers, o->headers[i], err);
        if (st == SBX_OK)
            st = append_header(&c->json_headers, o->headers[i], err);
        if (st == SBX_OK)
            st = append_header(&c->small_json_headers, o->headers[i], err);
        if (st != SBX_OK)
            return st;
    }
    /* "Expect:" stops libcurl from waiting for 100-continue on large bodies;
     * "Content-Type:" stops it from labelling a bodyless POST as a form.  A
     * request without a body needs neither, and every custom header costs
     * libcurl a scan of the list per header it considers adding: a body of
     * at most SMALL_BODY bytes, which libcurl never sends with "Expect:",
     * goes without it. */
    sbx_status st = append_header(&c->empty_post_headers, "Expect:", err);
    if (st == SBX_OK)
        st = append_header(&c->empty_post_headers, "Content-Type:", err);
    if (st == SBX_OK)
        st = append_header(&c->json_headers, "Expect:", err);
    if (st == SBX_OK)
        st = append_header(&c->json_headers, "Content-Type: application/json", err);
    if (st == SBX_OK)
        st = append_header(&c->small_json_headers, "Content-Type: application/json", err);
    return st;
}

/* ------------------------------------------------------------ create/free */

typedef struct pooled_handle pooled_handle;
static void free_handle(pooled_handle *ph);

sbx_status common_http_client_new(const common_http_client_options *o, common_http_client **out,
                                  sbx_error *err)
{
    *out = NULL;
    if (o == NULL || o->base_url == NULL ||
        !(starts_with_nocase(o->base_url, "http://") ||
          starts_with_nocase(o->base_url, "https://")))
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "HTTP base URL must begin with http:// or https://");
    if (o->header_count > 0 && o->headers == NULL)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG, "HTTP headers missing");

    pthread_once(&global_once, global_init);
    if (global_init_result != CURLE_OK)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "libcurl initialisation failed: %s",
                                     curl_easy_strerror(global_init_result));

    common_http_client *c = calloc(1, sizeof *c);
    if (c == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    if (pthread_mutex_init(&c->pool_lock, NULL) != 0) {
        free(c);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot create a mutex");
    }
    c->connect_timeout_ms = o->connect_timeout_ms;
    c->max_response_bytes = o->max_response_bytes > 0 ? o->max_response_bytes
                                                      : COMMON_HTTP_DEFAULT_MAX_RESPONSE;
    c->services = o->services;
    c->base_url = strdup(o->base_url);
    c->shown_url = url_for_messages(o->base_url, o->base_path_is_capability);
    c->unix_socket_path = dup_or_null(o->unix_socket_path);
    c->ca_file = dup_or_null(o->ca_file);
    c->log_name = dup_or_null(o->log_name);
    if (c->base_url == NULL || c->shown_url == NULL ||
        (o->unix_socket_path != NULL && c->unix_socket_path == NULL) ||
        (o->ca_file != NULL && c->ca_file == NULL) ||
        (o->log_name != NULL && c->log_name == NULL)) {
        common_http_client_free(c);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    strip_trailing_slashes(c->base_url);
    strip_trailing_slashes(c->shown_url);
    c->base_url_len = strlen(c->base_url);
    if (o->base_path_is_capability && (c->secret_path = strdup(url_path(c->base_url))) == NULL) {
        common_http_client_free(c);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }

    sbx_status st = build_header_lists(c, o, err);
    if (st != SBX_OK) {
        common_http_client_free(c);
        return st;
    }
    if (c->unix_socket_path != NULL) {
        c->bypass_proxy = 1;
    } else {
        st = common_url_host_bypasses_proxy(c->base_url, &c->bypass_proxy, err);
        if (st != SBX_OK) {
            common_http_client_free(c);
            return st;
        }
    }
    *out = c;
    return SBX_OK;
}

void common_http_client_free(common_http_client *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->idle_count; i++)
        free_handle(c->idle[i]);
    pthread_mutex_destroy(&c->pool_lock);
    free_header_list(c->plain_headers);
    free_header_list(c->empty_post_headers);
    free_header_list(c->json_headers);
    free_header_list(c->small_json_headers);
    free(c->base_url);
    free(c->shown_url);
    free(c->secret_path);
    free(c->unix_socket_path);
    free(c->ca_file);
    free(c->log_name);
    free(c);
}

/* ------------------------------------------------------------ body sink */

typedef struct body_sink {
    common_dynbuf body;            /* a buffered answer, limited to `limit` */
    size_t limit;
    size_t received;               /* bytes of body so far, buffered or streamed */
    const common_http_body_sink *stream; /* NULL, or where an expected answer goes */
    CURL *curl;                    /* to read the status when the body begins */
    int streaming;                 /* this answer's body goes to stream */
    int oversize;
    int out_of_memory;
    int stream_stopped;
} body_sink;

/* At the body's first bytes: whether it streams, and room for the length
 * its Content-Length announces (bounded by the limit), told to the stream
 * or made in the buffer at once rather than by doubling as libcurl's
 * chunks arrive.  A reserve that fails changes nothing: adds still grow. */
static void expect_body(body_sink *sink)
{
    if (sink->stream != NULL) {
        long status = 0;
        curl_easy_getinfo(sink->curl, CURLINFO_RESPONSE_CODE, &status);
        sink->streaming = status == sink->stream->status;
    }
    curl_off_t announced = -1;
    if (curl_easy_getinfo(sink->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced) !=
            CURLE_OK || announced <= 0)
        return;
    size_t length = (uint64_t)announced < sink->limit ? (size_t)announced : sink->limit;
    if (!sink->streaming)
        common_dynbuf_reserve(&sink->body, length);
    else if (sink->stream->expect != NULL)
        sink->stream->expect(sink->stream->ctx, length);
}

static size_t sink_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    body_sink *sink = userdata;
    size_t n = size * nmemb; /* libcurl guarantees size == 1 */
    if (n > sink->limit - sink->received) {
        sink->oversize = 1;
        return 0; /* aborts the transfer: the bound is never exceeded */
    }
    if (sink->received == 0)
        expect_body(sink);
    sink->received += n;
    if (sink->streaming) {
        if (sink->stream->write(sink->stream->ctx, ptr, n) != 0) {
            sink->stream_stopped = 1;
            return 0;
        }
        return n;
    }
    /* Within the limit already checked: only memory can fail it. */
    if (common_dynbuf_add(&sink->body, ptr, n) != COMMON_DYNBUF_OK) {
        sink->out_of_memory = 1;
        return 0;
    }
    return n;
}

/* ------------------------------------------------------------ handle pool */

/* An easy handle and what its fixed options point to: the sink and the
 * error buffer live as long as the handle, so they are set once.  The rest
 * remembers the per-call options the handle holds, so that a call sets only
 * those that change.  Between calls the handle never holds a caller's
 * body (CURLOPT_POSTFIELDS is NULL), but may be left in POST mode. */
struct pooled_handle {
    CURL *curl;
    body_sink sink;
    char errbuf[CURL_ERROR_SIZE];
    char *url;                   /* the base URL + the last path; libcurl holds a copy */
    size_t url_len, url_cap;     /* url_len 0: no URL set yet */
    long timeout_ms;             /* CURLOPT_TIMEOUT_MS as set (0: none, libcurl's default) */
    struct curl_slist *headers;  /* CURLOPT_HTTPHEADER as set */
    int custom_method;           /* CURLOPT_CUSTOMREQUEST is set */
    int post_mode;               /* CURLOPT_POST is set (else CURLOPT_HTTPGET) */
};

static void free_handle(pooled_handle *ph)
{
    if (ph == NULL)
        return;
    if (ph->curl != NULL)
        curl_easy_cleanup(ph->curl);
    common_dynbuf_free(&ph->sink.body);
    free(ph->url);
    free(ph);
}

/* The options every request of this client shares: the safety settings of
 * http_client.h and the handle's own sink and error buffer. */
static CURLcode set_fixed_options(const common_http_client *c, pooled_handle *ph)
{
    CURL *h = ph->curl;
    CURLcode rc = CURLE_OK;
#define SET(opt, val) do { if (rc == CURLE_OK) rc = curl_easy_setopt(h, opt, val); } while (0)
    SET(CURLOPT_NOSIGNAL, 1L);
    SET(CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
    SET(CURLOPT_PROTOCOLS_STR, "http,https");
#else
    SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    SET(CURLOPT_SSL_VERIFYPEER, 1L);
    SET(CURLOPT_SSL_VERIFYHOST, 2L);
    if (c->ca_file != NULL)
        SET(CURLOPT_CAINFO, c->ca_file);
    if (c->unix_socket_path != NULL)
        SET(CURLOPT_UNIX_SOCKET_PATH, c->unix_socket_path);
    /* "" disables proxies, environment included; "*" spares libcurl reading
     * no_proxy from the environment on every transfer to learn no more. */
    if (c->bypass_proxy) {
        SET(CURLOPT_PROXY, "");
        SET(CURLOPT_NOPROXY, "*");
    }
    if (c->connect_timeout_ms > 0)
        SET(CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms);
    /* Refuses early when Content-Length already says too much; the write
     * callback enforces the bound either way. */
    if (c->max_response_bytes <= (size_t)INT64_MAX)
        SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)c->max_response_bytes);
    /* A 100 KiB file in one or two reads rather than seven of the 16 KiB
     * default: 20-30 us less a read here.  libcurl holds the buffer only
     * during a transfer, so idle pooled handles do not keep it. */
    SET(CURLOPT_BUFFERSIZE, HTTP_RECEIVE_BUFFER);
    SET(CURLOPT_WRITEFUNCTION, sink_write);
    SET(CURLOPT_WRITEDATA, &ph->sink);
    SET(CURLOPT_ERRORBUFFER, ph->errbuf);
#undef SET
    return rc;
}

/* A new handle with the fixed options set, or NULL (*rc says why when
 * libcurl refused an option; CURLE_OUT_OF_MEMORY otherwise). */
static pooled_handle *new_handle(const common_http_client *c, CURLcode *rc)
{
    *rc = CURLE_OUT_OF_MEMORY;
    pooled_handle *ph = calloc(1, sizeof *ph);
    if (ph == NULL)
        return NULL;
    ph->curl = curl_easy_init();
    if (ph->curl == NULL || (*rc = set_fixed_options(c, ph)) != CURLE_OK) {
        free_handle(ph);
        return NULL;
    }
    return ph;
}

/* An idle handle (its live connections are the reuse), else a new one. */
static pooled_handle *take_handle(common_http_client *c, CURLcode *rc)
{
    pooled_handle *ph = NULL;
    pthread_mutex_lock(&c->pool_lock);
    if (c->idle_count > 0)
        ph = c->idle[--c->idle_count];
    pthread_mutex_unlock(&c->pool_lock);
    return ph != NULL ? ph : new_handle(c, rc);
}

static void return_handle(common_http_client *c, pooled_handle *ph)
{
    int kept = 0;
    pthread_mutex_lock(&c->pool_lock);
    if (c->idle_count < COMMON_HTTP_POOL_MAX) {
        c->idle[c->idle_count++] = ph;
        kept = 1;
    }
    pthread_mutex_unlock(&c->pool_lock);
    if (!kept)
        free_handle(ph);
}

/* ------------------------------------------------------------ request */

/* ph->url = base URL + path, growing the buffer when needed.  1 when the
 * URL changed (libcurl must be told), 0 when it is the last call's, -1
 * when out of memory. */
static int set_url_buffer(const common_http_client *c, pooled_handle *ph, const char *path)
{
    size_t path_len = strlen(path);
    size_t len = c->base_url_len + path_len;
    if (len == ph->url_len && memcmp(ph->url + c->base_url_len, path, path_len) == 0)
        return 0;
    if (len + 1 > ph->url_cap) {
        char *grown = realloc(ph->url, len + 1);
        if (grown == NULL)
            return -1;
        if (ph->url == NULL)
            memcpy(grown, c->base_url, c->base_url_len);
        ph->url = grown;
        ph->url_cap = len + 1;
    }
    memcpy(ph->url + c->base_url_len, path, path_len + 1);
    ph->url_len = len;
    return 1;
}

/* The per-call options, each set only when it differs from what the handle
 * holds (a keep-alive loop of one GET sets none, one of a POST only its
 * body).  The method is switched only when it changes. */
static CURLcode configure(const common_http_client *c, pooled_handle *ph, const char *method,
                          const char *json_body, long timeout_ms, int url_changed)
{
    CURL *h = ph->curl;
    CURLcode rc = CURLE_OK;
    int is_post = strcmp(method, "POST") == 0;
    size_t body_len = json_body != NULL ? strlen(json_body) : 0;
    struct curl_slist *headers = json_body != NULL && body_len <= SMALL_BODY
                                     ? c->small_json_headers
                                 : json_body != NULL ? c->json_headers
                                 : is_post         ? c->empty_post_headers
                                                   : c->plain_headers;
    const char *custom = is_post || strcmp(method, "GET") == 0 ? NULL : method;
    long timeout = timeout_ms > 0 ? timeout_ms : 0L;
#define SET(opt, val) do { if (rc == CURLE_OK) rc = curl_easy_setopt(h, opt, val); } while (0)
    if (url_changed)
        SET(CURLOPT_URL, ph->url);
    if (timeout != ph->timeout_ms)
        SET(CURLOPT_TIMEOUT_MS, timeout);
    if (headers != ph->headers)
        SET(CURLOPT_HTTPHEADER, headers);
    int post_mode = is_post || json_body != NULL;
    if (post_mode) {
        if (!ph->post_mode)
            SET(CURLOPT_POST, 1L);
        SET(CURLOPT_POSTFIELDS, json_body != NULL ? json_body : "");
        SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    } else if (ph->post_mode) {
        SET(CURLOPT_HTTPGET, 1L);
    }
    if (custom != NULL || ph->custom_method)
        SET(CURLOPT_CUSTOMREQUEST, custom);
#undef SET
    ph->timeout_ms = timeout;
    ph->headers = headers;
    ph->custom_method = custom != NULL;
    ph->post_mode = post_mode;
    return rc;
}

/* After a POST (or any call with a body): the handle must not keep the
 * caller's pointer.  It stays in POST mode: the next call sets a body or
 * switches to GET before its transfer (configure). */
static void forget_body(pooled_handle *ph)
{
    curl_easy_setopt(ph->curl, CURLOPT_POSTFIELDS, NULL);
}

/* The error of a failed transfer of `call`, with libcurl's text (errbuf)
 * or its code's. */
static sbx_status map_curl_error(const common_http_client *c, CURLcode rc,
                                 const body_sink *sink, const common_http_call *call,
                                 const char *errbuf, sbx_error *err)
{
    const char *method = call->method, *path = call->path;
    /* libcurl names hosts, not paths, in its texts: masking the capability
     * there too is the last defence should one ever quote the URL. */
    char detail[CURL_ERROR_SIZE * (sizeof COMMON_REDACT_MASK - 1)];
    common_redact_secret(errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc), c->secret_path,
                         detail, sizeof detail);
    if (sink->oversize || rc == CURLE_FILESIZE_EXCEEDED)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "%s %s: response body exceeds max_response_bytes (%zu bytes)",
                                     method, path, c->max_response_bytes);
    if (sink->out_of_memory)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "%s %s: out of memory", method, path);
    if (sink->stream_stopped)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                     "%s %s: out of memory reading the answer",
                                     method, path);
    /* During a transfer libcurl also says "out of memory" for an answer it
     * will not hold (a header over its limit): that is the peer's doing, and
     * must count against it, never as our own failure. */
    if (rc == CURLE_OUT_OF_MEMORY)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "%s %s%s: libcurl could not hold the answer (%s; an oversize "
                                     "header?)", method, c->shown_url, path, detail);
    if (rc == CURLE_OPERATION_TIMEDOUT)
        return sbx_backend_error_set(err, SBX_ERR_TRANSPORT, "%s %s%s: timed out after %ld ms (%s)",
                                     method, c->shown_url, path, call->timeout_ms, detail);
    return sbx_backend_error_set(err, SBX_ERR_TRANSPORT, "%s %s%s: %s", method, c->shown_url,
                                 path, detail);
}

sbx_status common_http_perform(common_http_client *c, const common_http_call *call,
                               common_http_response *resp, sbx_error *err)
{
    const char *method = call->method, *path = call->path, *json_body = call->json_body;
    long timeout_ms = call->timeout_ms;
    const common_http_body_sink *stream = call->sink;
    resp->status = 0;
    resp->body = NULL;
    resp->body_len = 0;
    if (method == NULL || path == NULL || path[0] != '/')
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "HTTP request path must begin with '/'");

    CURLcode rc = CURLE_OK;
    pooled_handle *ph = take_handle(c, &rc);
    if (ph == NULL)
        return rc == CURLE_OUT_OF_MEMORY
                   ? sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot create a libcurl handle")
                   : sbx_backend_error_set(err, SBX_ERR_INTERNAL, "libcurl refused an option: %s",
                                           curl_easy_strerror(rc));
    int url_changed = set_url_buffer(c, ph, path);
    if (url_changed < 0) {
        return_handle(c, ph);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    ph->sink = (body_sink){ .limit = c->max_response_bytes, .stream = stream, .curl = ph->curl };
    common_dynbuf_init(&ph->sink.body, c->max_response_bytes);
    ph->errbuf[0] = '\0';
    rc = configure(c, ph, method, json_body, timeout_ms, url_changed);
    if (rc != CURLE_OK) {
        /* What the handle holds is unknown now: it is not reused. */
        free_handle(ph);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "libcurl refused an option: %s",
                                     curl_easy_strerror(rc));
    }
    rc = curl_easy_perform(ph->curl);
    long status = 0;
    if (rc == CURLE_OK)
        curl_easy_getinfo(ph->curl, CURLINFO_RESPONSE_CODE, &status);
    if (json_body != NULL || strcmp(method, "POST") == 0)
        forget_body(ph);
    body_sink sink = ph->sink;
    size_t body_len;
    char *body = common_dynbuf_take(&ph->sink.body, &body_len); /* the caller's, or freed */

    if (rc != CURLE_OK) {
        free(body);
        /* Our own memory ran out reading an answer: the peer answered (and
         * acted), which a caller may need to say. */
        if (sink.out_of_memory || sink.stream_stopped)
            curl_easy_getinfo(ph->curl, CURLINFO_RESPONSE_CODE, &resp->status);
        sbx_status st = map_curl_error(c, rc, &sink, call, ph->errbuf, err);
        return_handle(c, ph);
        CLIENT_LOG(c, SBX_LOG_DEBUG, "%s %s failed: %s", method, path,
                   err->message);
        return st;
    }
    return_handle(c, ph);
    if (body == NULL) {
        body = calloc(1, 1);
        if (body == NULL) {
            resp->status = status;
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        }
    }
    resp->status = status;
    resp->body = body;
    resp->body_len = body_len;
    CLIENT_LOG(c, SBX_LOG_DEBUG, "%s %s -> HTTP %ld (%zu bytes%s)", method, path, status,
               sink.received, sink.streaming ? ", streamed" : "");
    return SBX_OK;
}

void common_http_response_clear(common_http_response *resp)
{
    if (resp == NULL)
        return;
    free(resp->body);
    resp->body = NULL;
    resp->body_len = 0;
    resp->status = 0;
}
