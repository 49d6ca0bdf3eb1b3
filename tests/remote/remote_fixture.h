/*
 * Fixture shared by the tests/remote suites: one provisioner emulator process
 * plus one "remote" backend opened on it through the public host API, and
 * small helpers to script the emulator (faults, contract, stored sandboxes)
 * and to read what went over the wire (its request log).
 *
 * Every test starts its own fixture (a fresh emulator and a fresh backend, so
 * no capability cache or fault leaks between tests) and stops it at the end.
 *
 * With SBX_RT_PROVISIOND set in the environment the fixture serves the same
 * suites with sbx-provisiond instead of the emulator
 * (tests/provisiond/test_seed_on_provisiond.sh), over the local backend,
 * or over the docker backend when it is "docker" (on the engine that
 * SBX_DOCKER_SOCKET and SBX_DOCKER_IMAGE name).  Only the cases that are
 * meaningful against a real provisioner run (the fixture's table; the
 * others script faults or answers, and say they are skipped; SEED_MAP.md
 * says why, case by case).  Against the daemon, a stored sandbox is one
 * the fixture creates through it, and the request log is the daemon's
 * --verbose lines: methods and paths, no headers or bodies.
 * Helpers never longjmp: they report failures with non-fatal CUnit asserts
 * and return 0, so a test can always reach sbx_rt_stop() and no emulator
 * process outlives its test.
 */
#ifndef SBX_TESTS_REMOTE_FIXTURE_H
#define SBX_TESTS_REMOTE_FIXTURE_H

#include <stddef.h>
#include <json-c/json.h>
#include <sbx/host.h>

#include "tests/support/emulator.h"
#include "tests/support/log_capture.h"

struct provd_local;

/* One emulator (or sbx-provisiond) and one backend opened on it.
 * Zero-initialise, then start. */
typedef struct sbx_rt {
    sbx_test_emu *emu;
    struct provd_local *provd;  /* the daemon instead of the emulator */
    sbx_host *host;
    sbx_backend *backend;
    sbx_test_log_capture *log;  /* what the backend logged (the host's callback) */
    /* against the daemon: */
    const char *api_key;        /* its --api-key (borrowed from the arguments) */
    int own_creates;            /* creates the fixture sent itself */
    int own_lookups;            /* GETs of own_lookup_path it sent itself */
    char own_lookup_path[128];  /* sbx_rt_url's last GET /api/sandboxes/ID */
    char *url;                  /* sbx_rt_url's last answer */
    char mount_dir[256];        /* over docker: where sbx_rt_mounts puts host paths */
    sbx_mount *mounts;          /* sbx_rt_mounts' last answer */
    size_t mount_count;
} sbx_rt;

/* Start an emulator with the NULL-terminated `emu_args` (NULL: none) and
 * open a remote backend on it with `api_key` (NULL: none) and `extra`
 * options.  Returns 1, or 0 after a CUnit failure (everything released),
 * or 0 without one for a case skipped against sbx-provisiond. */
int sbx_rt_start(sbx_rt *rt, const char *const *emu_args, const char *api_key,
                 const sbx_option *extra, size_t n_extra);

/* Only the emulator half of sbx_rt_start (no backend yet), for tests of
 * sbx_rt_open itself.  Returns 1, or 0 after a CUnit failure. */
int sbx_rt_start_emulator(sbx_rt *rt, const char *const *emu_args);

/* Open the remote backend on the fixture's emulator through the host
 * library (provisioner_url, then api_key when not NULL, then `extra`), with
 * the fixture's log capture.  Returns what the open returned; on success
 * rt->host and rt->backend are set. */
sbx_status sbx_rt_open(sbx_rt *rt, const char *api_key, const sbx_option *extra,
                       size_t n_extra, sbx_error *err);

/* Close the backend, free the host, stop the emulator.  Safe on a fixture
 * that failed to start or was already stopped. */
void sbx_rt_stop(sbx_rt *rt);

/* Whether the emulator serves the fixture: scripting it (faults, answers,
 * contract changes) and reading the headers and bodies of its request log
 * are possible.  Against sbx-provisiond the provisioner answers for itself
 * and those calls are CUnit failures. */
int sbx_rt_is_emulator(const sbx_rt *rt);

/* The URL the provisioner serves `sandbox_id` at: `scripted_url` (what the
 * case scripted the emulator to answer), or against the daemon the URL it
 * answers for the sandbox to a client of the test's own (its sandbox API
 * address, BASE/s/TOKEN).  Owned by `rt` until the next call. */
const char *sbx_rt_url(sbx_rt *rt, const char *sandbox_id, const char *scripted_url);

/* `mounts` as the provisioner can serve them: as given, or against the
 * daemon over docker with every host path moved under the fixture's
 * directory (the daemon's --mount-base is its /state) and created there.
 * Owned by `rt` (or the caller's `mounts`) until the next call. */
const sbx_mount *sbx_rt_mounts(sbx_rt *rt, const sbx_mount *mounts, size_t count);

/* Queue a "respond" fault: `route` answers `status` with `body` verbatim
 * (`content_type` NULL: application/json), for the next `times` requests
 * (-1: all).  Returns 1 when the emulator accepted it. */
int sbx_rt_respond(sbx_rt *rt, const char *route, int status, const char *body,
                   const char *content_type, int times);

/* Queue a body-less fault ("drop", "garbage", "truncate", "hold") on
 * `route` for `times` requests.  Returns 1 when accepted.  A "drop" meant
 * as "the provisioner is unreachable" needs times -1: libcurl resends a
 * request once on a fresh connection when a reused keep-alive connection
 * closes before any answer, so a single drop can go unseen. */
int sbx_rt_fault(sbx_rt *rt, const char *route, const char *action, int times);

/* PUT /_emu/contract {"version": version}.  Returns 1 when accepted. */
int sbx_rt_set_contract(sbx_rt *rt, int version);

/* PUT /_emu/sandboxes/{id} with `sandbox_json` (an object); against the
 * daemon, create `sandbox_id` through it for the user_id and thread_id of
 * `sandbox_json` (absent: the default user, anonymous).  Returns 1 when
 * accepted. */
int sbx_rt_put_sandbox(sbx_rt *rt, const char *sandbox_id, const char *sandbox_json);

/* POST /_emu/release for `route`.  Returns 1 when accepted. */
int sbx_rt_release(sbx_rt *rt, const char *route);

/* Requests received so far that have `method` and exactly `path` (method
 * NULL: any).  Counts from the emulator's request log, or the daemon's
 * (without the creates of sbx_rt_put_sandbox). */
int sbx_rt_count_requests(sbx_rt *rt, const char *method, const char *path);

/* Requests of any kind received so far (/_emu/ control calls excluded). */
int sbx_rt_total_requests(sbx_rt *rt);

/* The last logged request with `method` and `path`, as a new json object
 * (the caller puts it), or NULL when there is none.  Its headers and
 * body are the emulator's to log: a CUnit failure against the daemon. */
json_object *sbx_rt_last_request(sbx_rt *rt, const char *method, const char *path);

/* The parsed JSON body of the last POST /api/sandboxes (caller puts), or
 * NULL when none was sent or its body is not JSON. */
json_object *sbx_rt_last_create_body(sbx_rt *rt);

/* The backend's mount contract version after a capabilities call: the
 * version when known, -2 when the backend reports it unknown, -3 when the
 * call failed. */
int sbx_rt_contract(sbx_rt *rt);

/* Assert the aftermath of a create refused because the contract moved
 * under it: the request carried required_mount_contract_version `frozen`,
 * and the next capabilities call probes again and learns `now`. */
void sbx_rt_expect_reprobe_after_create(sbx_rt *rt, int frozen, int now);

/* 1 when one capabilities call on the backend sends a new probe to the
 * emulator (the cache was stale), 0 when it answers from its cache. */
int sbx_rt_capabilities_call_probes(sbx_rt *rt);

/* A create request for `sandbox_id`/`thread_id`/`user_id` (borrowed), other
 * fields at their defaults. */
sbx_create_request sbx_rt_create_request(const char *sandbox_id, const char *thread_id,
                                         const char *user_id);

/* Create with `request`, asserting (non-fatally) that it returns SBX_OK
 * with a sandbox.  Returns the sandbox (NULL when none came back); the
 * caller releases it with sbx_backend_free_sandboxes(rt->backend, s, 1). */
sbx_sandbox *sbx_rt_create_ok(sbx_rt *rt, const sbx_create_request *request, sbx_error *err);

/* Create with `request`; the sandbox (if any) is released and only the
 * status and `err` are kept. */
sbx_status sbx_rt_create_discarding(sbx_rt *rt, const sbx_create_request *request,
                                    sbx_error *err);

/* NULL-safe string comparisons for assertions: equal (both NULL counts),
 * and `needle` in `haystack` (NULL haystack: no). */
int sbx_rt_str_eq(const char *a, const char *b);
int sbx_rt_contains(const char *haystack, const char *needle);

/* JSON field checks for assertions on request bodies: the string field
 * equals `expected` (NULL: the field is JSON null), the boolean / integer
 * field equals, the field exists, and the number of fields. */
int sbx_rt_json_string_is(json_object *obj, const char *key, const char *expected);
int sbx_rt_json_bool_is(json_object *obj, const char *key, int expected);
int sbx_rt_json_int_is(json_object *obj, const char *key, int expected);
int sbx_rt_json_has(json_object *obj, const char *key);
int sbx_rt_json_field_count(json_object *obj);

/* Assert two possibly-NULL strings are equal (reports the caller's line). */
#define SBX_RT_ASSERT_STR(actual, expected) \
    CU_ASSERT(sbx_rt_str_eq((actual), (expected)))

#endif
