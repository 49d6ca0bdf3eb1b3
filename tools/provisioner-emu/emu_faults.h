/* Traffic control of the emulator: per-route fault queues (FIFO), the count
 * of requests each route received, held requests and their release, and the
 * long-poll wait on those counters.
 * Thread-safe: one mutex and one condition variable inside; hold, delay and
 * wait block only the calling thread. */
#ifndef EMU_FAULTS_H
#define EMU_FAULTS_H

#include <json-c/json.h>

#include "tools/provisioner-common/prov_routes.h"

typedef enum emu_fault_action {
    EMU_FAULT_NONE = 0,    /* no fault: answer normally */
    EMU_FAULT_RESPOND,     /* answer status/body/content_type verbatim */
    EMU_FAULT_GARBAGE,     /* 200 with bytes that are not JSON */
    EMU_FAULT_TRUNCATE,    /* 200, fewer bytes than announced, close */
    EMU_FAULT_DROP,        /* close without answering */
    EMU_FAULT_HOLD,        /* wait for a release, then answer normally */
    EMU_FAULT_DELAY        /* only the delay, then answer normally */
} emu_fault_action;

/* One queued fault.  Strings are owned by the struct. */
typedef struct emu_fault {
    emu_fault_action action;
    unsigned status;        /* RESPOND */
    char *body;             /* RESPOND; NULL is empty */
    char *content_type;     /* RESPOND; NULL means application/json */
    char *location;         /* RESPOND; NULL: no Location header (redirect tests) */
    long delay_ms;          /* before the action, any action */
    int times;              /* requests it applies to; -1: every request */
} emu_fault;

typedef struct emu_faults emu_faults;

/* A controller with empty queues and zero counts. */
emu_faults *emu_faults_new(void);

/* Free it.  No thread may be inside any other call. */
void emu_faults_free(emu_faults *faults);

/* Parse a fault from the control API's JSON ({"route","action",...}).
 * On success fills *route and *out (release with emu_fault_clear) and
 * returns NULL; else returns a static message saying what is wrong. */
const char *emu_fault_parse(json_object *spec, prov_route *route,
                                 emu_fault *out);

/* Release the strings a fault owns. */
void emu_fault_clear(emu_fault *fault);

/* Queue `fault` (moved in: the caller's copy is emptied) behind the
 * route's other faults.  Returns the route's queue length. */
int emu_faults_add(emu_faults *faults, prov_route route, emu_fault *fault);

/* Count one request of `route` and take the fault that applies to it (a
 * copy in *out, release with emu_fault_clear; action NONE when the
 * queue is empty). */
void emu_faults_take(emu_faults *faults, prov_route route, emu_fault *out);

/* Block the calling request for `delay_ms` (ends early on shutdown). */
void emu_faults_delay(emu_faults *faults, long delay_ms);

/* Block the calling request, counted as held on `route`, until that route
 * is released, the controller is reset, or shut down. */
void emu_faults_hold(emu_faults *faults, prov_route route);

/* Release every request held on `route`; returns how many there were. */
int emu_faults_release(emu_faults *faults, prov_route route);

/* Empty every queue, zero the received counts and release every hold. */
void emu_faults_reset(emu_faults *faults);

/* Release everything and make hold/delay/wait return at once from now on
 * (the server is stopping). */
void emu_faults_shutdown(emu_faults *faults);

/* {"routes":{NAME:received,...},"held":{NAME:held,...}}; caller puts. */
json_object *emu_faults_stats(emu_faults *faults);

/* Wait until `route` has received >= `received` requests and (when
 * `held` >= 0) has >= `held` requests held, at most `timeout_ms`.
 * Returns 1 when met, 0 at the deadline or on shutdown. */
int emu_faults_wait(emu_faults *faults, prov_route route, int received,
                        int held, long timeout_ms);

#endif
