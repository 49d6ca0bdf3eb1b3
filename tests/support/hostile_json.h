/* Create bodies that a provisioner must refuse whole (422 json_invalid,
 * nothing created, nothing handed over): what json-c reads but RFC 8259
 * does not allow, names that repeat, NUL in names and ids (escaped and
 * raw), lone surrogates, bytes that are not UTF-8 and numbers out of
 * range.  Shared by the emulator's and sbx-provisiond's suites, which run
 * it after alice created "own1" with thread "t1": a reader that cut or
 * merged a body would create "h1" or answer with own1. */
#ifndef SBX_TEST_HOSTILE_JSON_H
#define SBX_TEST_HOSTILE_JSON_H

#include <stddef.h>

/* What the suites create first, so that a cut id or user would reach it. */
#define SBX_TEST_HOSTILE_SETUP_BODY \
    "{\"sandbox_id\":\"own1\",\"user_id\":\"alice\",\"thread_id\":\"t1\"}"

/* Strict JSON of every form (escapes, a surrogate pair, numbers, the
 * literals, one name in several objects): created as "ok1" for alice. */
#define SBX_TEST_STRICT_BODY                                                              \
    "{\"sandbox_id\":\"ok1\",\"user_id\":\"al\\u0069ce\",\"extra_mounts\":[],"           \
    "\"x\":{\"a\":[0,-0,1.5e-3,-2E+2,9223372036854775807,-9223372036854775808,"         \
    "1.7976931348623157e308,true,false,null,\"\\ud83d\\ude00\\u00e9\\/\"]},"            \
    "\"y\":{\"a\":{\"a\":1}}, \"z\" : [ ] }\r\n"

typedef struct sbx_test_hostile_body {
    const char *what;
    const char *body;
    size_t len;      /* its bytes (0: strlen(body)) */
    const char *why; /* words of the 422's ctx.error (NULL: any json_invalid) */
} sbx_test_hostile_body;

extern const sbx_test_hostile_body sbx_test_hostile_bodies[];
extern const size_t sbx_test_hostile_body_count;

/* POST the row's body to `base_url`/api/sandboxes with `headers` (NULL-
 * terminated): 1 when it answered 422 json_invalid with row->why in its
 * ctx.error, else 0 after a line on stderr naming the row. */
int sbx_test_hostile_body_refused(const char *base_url, const char *const *headers,
                                  const sbx_test_hostile_body *row);

#endif
