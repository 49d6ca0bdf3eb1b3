/* Traffic control of the emulator: per-route fault queues (FIFO), the count
 * of requests each route received, held requests and their release, and the
 * long-poll wait on those counters.
 * Thread-safe: one mutex and one condition variable inside; hold, delay and
 * wait block only the calling thread. */
#ifndef SBX_EMU_FAULTS_H
#define SBX_EMU_FAULTS_H

#include <json-c/json.h>

#include "tools/provisioner-common/prov_routes.h"

typedef enum sbx_emu_fault_action {
    SBX_EMU_FAULT_NONE = 0,    /* no fault: answer normally */
    SBX_EMU_FAULT_RESPOND,     /* answer status/body/content_type verbatim */
    SBX_EMU_FAULT_GARBAGE,     /* 200 with bytes that are not JSON */
    SBX_EMU_FAULT_TRUNCATE,    /* 200, fewer bytes than announced, close */
    SBX_EMU_FAULT_DROP,        /* close without answering */
    SBX_EMU_FAULT_HOLD,        /* wait for a release, then answer normally */
    SBX_EMU_FAULT_DELAY        /* only the delay, then answer normally */
} sbx_emu_fault_action;

/* One queued fault.  Strings are owned by the struct. */
typedef struct sbx_emu_fault {
    sbx_emu_fault_action action;
    unsigned status;        /* RESPOND */
    char *body;             /* RESPOND; NULL is empty */
    char *content_type;     /* RESPOND; NULL means application/json */
    char *location;         /* RESPOND; NULL: no Location header (redirect tests) */
    long delay_ms;          /* before the action, any action */
    int times;              /* requests it applies to; -1: every request */
} sbx_emu_fault;

typedef struct sbx_emu_faults sbx_emu_faults;

/* A controller with empty queues and zero counts. */
sbx_emu_faults *sbx_emu_faults_new(void);

/* Free it.  No thread may be inside any other call. */
void sbx_emu_faults_free(sbx_emu_faults *faults);

/* Parse a fault from the control API's JSON ({"route","action",...}).
 * On success fills *route and *out (release with sbx_emu_fault_clear) and
 * returns NULL; else returns a static message saying what is wrong. */
const char *sbx_emu_fault_parse(json_object *spec, sbx_prov_route *route,
                                 sbx_emu_fault *out);

/* Release the strings a fault owns. */
void sbx_emu_fault_clear(sbx_emu_fault *fault);

/* Queue `fault` (moved in: the caller's copy is emptied) behind the
 * route's other faults.  Returns the route's queue length. */
int sbx_emu_faults_add(sbx_emu_faults *faults, sbx_prov_route route, sbx_emu_fault *fault);

/* Count one request of `route` and take the fault that applies to it (a
 * copy in *out, release with sbx_emu_fault_clear; action NONE when the
 * queue is empty). */
void sbx_emu_faults_take(sbx_emu_faults *faults, sbx_prov_route route, sbx_emu_fault *out);

/* Block the calling request for `delay_ms` (ends early on shutdown). */
void sbx_emu_faults_delay(sbx_emu_faults *faults, long delay_ms);

/* Block the calling request, counted as held on `route`, until that route
 * is released, the controller is reset, or shut down. */
void sbx_emu_faults_hold(sbx_emu_faults *faults, sbx_prov_route route);

/* Release every request held on `route`; returns how many there were. */
int sbx_emu_faults_release(sbx_emu_faults *faults, sbx_prov_route route);

/* Empty every queue, zero the received counts and release every hold. */
void sbx_emu_faults_reset(sbx_emu_faults *faults);

/* Release everything and make hold/delay/wait return at once from now on
 * (the server is stopping). */
void sbx_emu_faults_shutdown(sbx_emu_faults *faults);

/* {"routes":{NAME:received,...},"held":{NAME:held,...}}; caller puts. */
json_object *sbx_emu_faults_stats(sbx_emu_faults *faults);

/* Wait until `route` has received >= `received` requests and (when
 * `held` >= 0) has >= `held` requests held, at most `timeout_ms`.
 * Returns 1 when met, 0 at the deadline or on shutdown. */
int sbx_emu_faults_wait(sbx_emu_faults *faults, sbx_prov_route route, int received,
                        int held, long timeout_ms);

#endif
