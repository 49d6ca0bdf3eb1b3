/*
 * Test helper: fetch a URL from a freshly started server, retrying while it
 * is not listening yet, without pausing between tries: each one is a short libcurl
 * transfer; the loop is bounded by a deadline and an attempt count.
 * Shared by the local-backend and docker suites.
 */
#ifndef SBX_TEST_HTTP_PROBE_H
#define SBX_TEST_HTTP_PROBE_H

#include <stddef.h>

/* GET `url` until it answers (any HTTP status) or timeout_ms pass.  Returns
 * the HTTP status (and a malloc'ed NUL-terminated body in *body when body is
 * not NULL; the caller frees it), or -1 when nothing answered in time. */
long sbx_test_http_get(const char *url, long timeout_ms, char **body);

/* One GET attempt without retrying: the HTTP status, or -1 when the
 * connection failed (refused, reset, timed out). */
long sbx_test_http_get_once(const char *url, long timeout_ms);

#endif
