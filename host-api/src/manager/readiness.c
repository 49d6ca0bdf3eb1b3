/*
 * Rule 6: after a create, wait until an http(s) sandbox serves.  The probe is
 * the shared HTTP client (common/http_client.h), so the readiness GET gets
 * the same proxy rules as every control-plane request: loopback, private and
 * cluster-local sandbox hosts bypass the environment's proxy.
 */
#include <config.h>

#include "host-api/src/manager/readiness.h"

#include "host-api/src/manager/manager_internal.h"
#include "host-api/src/manager/manager_events.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/http_client.h"

/* Rule 6: each try bounded by 5 s. */
#define READY_TRY_MAX_MS 5000L
/* A readiness answer is a status line; its body is never read. */
#define READY_MAX_BODY ((size_t)64 * 1024)

static int64_t monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void pause_ms(int64_t ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int is_http_url(const char *url)
{
    return url != NULL &&
           (strncasecmp(url, "http://", 7) == 0 || strncasecmp(url, "https://", 8) == 0);
}

sbx_status mgr_wait_ready(sbx_manager *m, const sbx_sandbox *sandbox, sbx_error *err)
{
    int64_t timeout = m->config.ready_timeout_ms;
    if (timeout == 0 || !is_http_url(sandbox->sandbox_url))
        return SBX_OK;
    common_http_client_options o = {
        .base_url = sandbox->sandbox_url,
        .max_response_bytes = READY_MAX_BODY,
        .services = &m->log_services, .log_name = "manager",
        /* It may be a capability (sbx-provisiond's BASE/s/TOKEN): messages
         * show its scheme, host and port only. */
        .base_path_is_capability = 1,
    };
    common_http_client *client = NULL;
    sbx_status st = common_http_client_new(&o, &client, err);
    if (st != SBX_OK) {
        return sbx_backend_error_prefix(err, "sandbox %s: cannot probe its URL",
                                        sandbox->sandbox_id);
    }
    int64_t deadline = monotonic_ms() + timeout;
    /* The last status the sandbox answered and, apart, how the last try
     * failed: a final try clipped to the few ms left usually times out, and
     * the answer the sandbox did give is what tells the user why. */
    long last_status = 0;
    char last_failure[SBX_ERROR_MESSAGE_MAX] = "";
    int ready = 0;
    for (;;) {
        int64_t started = monotonic_ms();
        int64_t left = deadline - started;
        if (left <= 0)
            break;
        common_http_response resp = { 0, NULL, 0 };
        sbx_error try_err;
        long bound = left < READY_TRY_MAX_MS ? (long)left : READY_TRY_MAX_MS;
        common_http_call probe = {.method = "GET", .path = m->ready_path, .timeout_ms = bound};
        if (common_http_perform(client, &probe, &resp, &try_err) == SBX_OK) {
            ready = resp.status == 200;
            last_status = resp.status;
            last_failure[0] = '\0';
            common_http_response_clear(&resp);
        } else {
            memcpy(last_failure, try_err.message, sizeof last_failure);
        }
        if (ready)
            break;
        /* One try per ready_interval, counted from the start of the try. */
        int64_t next = started + m->config.ready_interval_ms;
        int64_t now = monotonic_ms();
        if (next >= deadline)
            break;
        if (next > now)
            pause_ms(next - now);
    }
    const char *shown = common_http_client_shown_url(client);
    if (!ready) {
        char answer[32] = "none";
        if (last_status != 0)
            snprintf(answer, sizeof answer, "HTTP %ld", last_status);
        st = sbx_error_set(err, SBX_ERR_TRANSPORT,
                           "sandbox %s did not become ready: GET %s%s gave no 200 within %lld ms "
                           "(ready_timeout; last answer: %s%s%s)", sandbox->sandbox_id, shown,
                           m->ready_path, (long long)timeout, answer,
                           last_failure[0] != '\0' ? "; then: " : "", last_failure);
    } else
        mgr_log(m, SBX_LOG_DEBUG, "sandbox %s is ready (GET %s%s)", sandbox->sandbox_id, shown,
                m->ready_path);
    common_http_client_free(client);
    return st;
}
