/* Test support: run sbx-provisioner-emu ($EMU_BIN) as a real process on
 * 127.0.0.1 and drive its control API (docs/emulator.md).
 * Thread safety: one sbx_test_emu may be used from many threads at once
 * (each call uses its own HTTP handle), except sbx_test_emu_stop, which
 * runs after every other call on it has returned. */
#ifndef SBX_TEST_EMULATOR_H
#define SBX_TEST_EMULATOR_H

#include <json-c/json.h>

typedef struct sbx_test_emu sbx_test_emu;

/* Start the emulator with the extra command-line `args` (NULL-terminated,
 * may be NULL), wait (bounded) for its listening line and check with one
 * control call that it answers there, starting another (at most 3 in all)
 * when its port leads elsewhere.  Returns NULL (with a message on stderr)
 * when it cannot; else stop it with sbx_test_emu_stop.  Given --tls-cert/--tls-key it serves https, and the
 * control calls below do not verify its certificate. */
sbx_test_emu *sbx_test_emu_start(const char *const *args);

/* sbx_test_emu_start for an https emulator (`args` name its --tls-cert and
 * --tls-key): the control calls verify its certificate chain against the
 * PEM file `ca_file` (copied; NULL: no verification), not its host name,
 * so that a test may serve a certificate for another name on purpose. */
sbx_test_emu *sbx_test_emu_start_trusting(const char *const *args, const char *ca_file);

/* Its base URL, "http://127.0.0.1:PORT" ("https://..." when it serves
 * https); owned by `emu`. */
const char *sbx_test_emu_url(const sbx_test_emu *emu);

/* SIGTERM it, wait for it to end (SIGKILL after 5 s) and free `emu`.
 * NULL is accepted. */
void sbx_test_emu_stop(sbx_test_emu *emu);

/* Send a control request (`path` like "/_emu/reset"; `json_body` may be
 * NULL).  Returns the HTTP status, or -1 when no answer came.  When
 * `answer` is not NULL it receives the parsed JSON answer (NULL when the
 * body is not JSON); the caller puts it. */
int sbx_test_emu_control(sbx_test_emu *emu, const char *method, const char *path,
                         const char *json_body, struct json_object **answer);

/* Queue a fault (POST /_emu/faults with `fault_json`); returns the status
 * (200 when queued). */
int sbx_test_emu_fault(sbx_test_emu *emu, const char *fault_json);

/* The request log ({"requests":[...],"count":N}), or NULL when it cannot
 * be read; the caller puts it. */
struct json_object *sbx_test_emu_requests(sbx_test_emu *emu);

/* How many requests route `route` ("create", "capabilities", ...) has
 * received since start or reset; -1 when the stats cannot be read. */
int sbx_test_emu_received(sbx_test_emu *emu, const char *route);

/* Long-poll until `route` has received >= `received` requests and, when
 * `held` >= 0, has >= `held` held; at most `timeout_ms`.  Returns 1 when
 * the condition was met, 0 when it was not (timeout or error). */
int sbx_test_emu_wait(sbx_test_emu *emu, const char *route, int received, int held,
                      int timeout_ms);

#endif
