/* Fault queues, counters and holds share one lock and one condition
 * variable, so that a waiter sees counts and holds change atomically. */
#include <config.h>

#include "tools/provisioner-emu/emu_faults.h"

#include "tools/provisioner-emu/emu_alloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct fault_node {
    emu_fault fault;
    struct fault_node *next;
} fault_node;

struct emu_faults {
    pthread_mutex_t lock;
    pthread_cond_t changed;       /* any counter, release or shutdown */
    /* Shutdown alone: what a delay waits on.  On `changed`, every request
     * counted woke every delayed one (64 threads each delayed 5 ms ran at
     * 0.6 of 64 x one thread's rate, the emulator's CPU spent on wake-ups). */
    pthread_cond_t stopping;
    fault_node *head[PROV_ROUTE_COUNT];
    int received[PROV_ROUTE_COUNT];
    int held[PROV_ROUTE_COUNT];
    /* A release bumps its route's generation; a holder waits for a change. */
    unsigned long release_generation[PROV_ROUTE_COUNT];
    int shutting_down;
};

emu_faults *emu_faults_new(void)
{
    emu_faults *faults = emu_xmalloc(sizeof *faults, "the fault queues");
    memset(faults, 0, sizeof *faults);
    pthread_mutex_init(&faults->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&faults->changed, &attr);
    pthread_cond_init(&faults->stopping, &attr);
    pthread_condattr_destroy(&attr);
    return faults;
}

void emu_fault_clear(emu_fault *fault)
{
    free(fault->body);
    free(fault->content_type);
    free(fault->location);
    memset(fault, 0, sizeof *fault);
}

static void clear_queues_locked(emu_faults *faults)
{
    for (int r = 0; r < PROV_ROUTE_COUNT; r++) {
        while (faults->head[r] != NULL) {
            fault_node *node = faults->head[r];
            faults->head[r] = node->next;
            emu_fault_clear(&node->fault);
            free(node);
        }
    }
}

void emu_faults_free(emu_faults *faults)
{
    if (faults == NULL)
        return;
    clear_queues_locked(faults);
    pthread_cond_destroy(&faults->changed);
    pthread_cond_destroy(&faults->stopping);
    pthread_mutex_destroy(&faults->lock);
    free(faults);
}

static const struct {
    const char *name;
    emu_fault_action action;
} action_names[] = {
    {"respond", EMU_FAULT_RESPOND}, {"garbage", EMU_FAULT_GARBAGE},
    {"truncate", EMU_FAULT_TRUNCATE}, {"drop", EMU_FAULT_DROP},
    {"hold", EMU_FAULT_HOLD}, {"delay", EMU_FAULT_DELAY},
};

/* Optional member of a fault spec: 1 when present with the right type,
 * 0 when absent, -1 when present with another type. */
static int optional_member(json_object *spec, const char *key, json_type type,
                           json_object **value)
{
    if (!json_object_object_get_ex(spec, key, value))
        return 0;
    return json_object_is_type(*value, type) ? 1 : -1;
}

const char *emu_fault_parse(json_object *spec, prov_route *route,
                                emu_fault *out)
{
    memset(out, 0, sizeof *out);
    if (!json_object_is_type(spec, json_type_object))
        return "a fault is a JSON object";
    json_object *value = NULL;
    if (optional_member(spec, "route", json_type_string, &value) != 1)
        return "route must be one of health, capabilities, create, get, delete, list, reconcile";
    *route = prov_route_from_name(json_object_get_string(value));
    if (*route == PROV_ROUTE_NONE)
        return "route must be one of health, capabilities, create, get, delete, list, reconcile";

    if (optional_member(spec, "action", json_type_string, &value) != 1)
        return "action must be one of respond, garbage, truncate, drop, hold, delay";
    const char *action = json_object_get_string(value);
    for (size_t i = 0; i < sizeof action_names / sizeof action_names[0]; i++) {
        if (strcmp(action_names[i].name, action) == 0)
            out->action = action_names[i].action;
    }
    if (out->action == EMU_FAULT_NONE)
        return "action must be one of respond, garbage, truncate, drop, hold, delay";

    out->status = 500;
    int has = optional_member(spec, "status", json_type_int, &value);
    if (has < 0 || (has > 0 && (json_object_get_int(value) < 100 ||
                                json_object_get_int(value) > 599)))
        return "status must be an integer from 100 to 599";
    if (has > 0)
        out->status = (unsigned)json_object_get_int(value);

    out->times = 1;
    has = optional_member(spec, "times", json_type_int, &value);
    if (has < 0 || (has > 0 && json_object_get_int(value) < 1 &&
                    json_object_get_int(value) != -1))
        return "times must be a positive integer or -1 (every request)";
    if (has > 0)
        out->times = json_object_get_int(value);

    has = optional_member(spec, "delay_ms", json_type_int, &value);
    if (has < 0 || (has > 0 && json_object_get_int64(value) < 0))
        return "delay_ms must be a non-negative integer";
    if (has > 0)
        out->delay_ms = (long)json_object_get_int64(value);

    has = optional_member(spec, "body", json_type_string, &value);
    if (has < 0)
        return "body must be a string";
    if (has > 0)
        out->body = emu_xstrdup(json_object_get_string(value), "a fault's body");

    has = optional_member(spec, "content_type", json_type_string, &value);
    if (has < 0) {
        emu_fault_clear(out);
        return "content_type must be a string";
    }
    if (has > 0)
        out->content_type =
            emu_xstrdup(json_object_get_string(value), "a fault's content type");

    has = optional_member(spec, "location", json_type_string, &value);
    if (has < 0) {
        emu_fault_clear(out);
        return "location must be a string";
    }
    if (has > 0)
        out->location = emu_xstrdup(json_object_get_string(value), "a fault's location");
    return NULL;
}

int emu_faults_add(emu_faults *faults, prov_route route, emu_fault *fault)
{
    fault_node *node = emu_xmalloc(sizeof *node, "a queued fault");
    node->fault = *fault;
    node->next = NULL;
    memset(fault, 0, sizeof *fault);

    pthread_mutex_lock(&faults->lock);
    int length = 1;
    fault_node **tail = &faults->head[route];
    while (*tail != NULL) {
        tail = &(*tail)->next;
        length++;
    }
    *tail = node;
    pthread_mutex_unlock(&faults->lock);
    return length;
}

void emu_faults_take(emu_faults *faults, prov_route route, emu_fault *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&faults->lock);
    faults->received[route]++;
    fault_node *node = faults->head[route];
    if (node != NULL) {
        *out = node->fault;
        out->body = emu_xstrdup(node->fault.body, "a fault's body");
        out->content_type = emu_xstrdup(node->fault.content_type, "a fault's content type");
        out->location = emu_xstrdup(node->fault.location, "a fault's location");
        if (node->fault.times > 0 && --node->fault.times == 0) {
            faults->head[route] = node->next;
            emu_fault_clear(&node->fault);
            free(node);
        }
    }
    pthread_cond_broadcast(&faults->changed);
    pthread_mutex_unlock(&faults->lock);
}

static struct timespec deadline_after(long timeout_ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += timeout_ms / 1000;
    t.tv_nsec += (timeout_ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

void emu_faults_delay(emu_faults *faults, long delay_ms)
{
    if (delay_ms <= 0)
        return;
    struct timespec deadline = deadline_after(delay_ms);
    pthread_mutex_lock(&faults->lock);
    int timed_out = 0;
    while (!faults->shutting_down && !timed_out)
        timed_out = pthread_cond_timedwait(&faults->stopping, &faults->lock, &deadline) == ETIMEDOUT;
    pthread_mutex_unlock(&faults->lock);
}

void emu_faults_hold(emu_faults *faults, prov_route route)
{
    pthread_mutex_lock(&faults->lock);
    unsigned long generation = faults->release_generation[route];
    faults->held[route]++;
    pthread_cond_broadcast(&faults->changed);
    while (!faults->shutting_down && faults->release_generation[route] == generation)
        pthread_cond_wait(&faults->changed, &faults->lock);
    faults->held[route]--;
    pthread_cond_broadcast(&faults->changed);
    pthread_mutex_unlock(&faults->lock);
}

int emu_faults_release(emu_faults *faults, prov_route route)
{
    pthread_mutex_lock(&faults->lock);
    int released = faults->held[route];
    faults->release_generation[route]++;
    pthread_cond_broadcast(&faults->changed);
    pthread_mutex_unlock(&faults->lock);
    return released;
}

void emu_faults_reset(emu_faults *faults)
{
    pthread_mutex_lock(&faults->lock);
    clear_queues_locked(faults);
    for (int r = 0; r < PROV_ROUTE_COUNT; r++) {
        faults->received[r] = 0;
        faults->release_generation[r]++;
    }
    pthread_cond_broadcast(&faults->changed);
    pthread_mutex_unlock(&faults->lock);
}

void emu_faults_shutdown(emu_faults *faults)
{
    pthread_mutex_lock(&faults->lock);
    faults->shutting_down = 1;
    pthread_cond_broadcast(&faults->changed);
    pthread_cond_broadcast(&faults->stopping);
    pthread_mutex_unlock(&faults->lock);
}

static json_object *counters_locked(const int counts[PROV_ROUTE_COUNT])
{
    json_object *obj = json_object_new_object();
    for (int r = 0; r < PROV_ROUTE_COUNT; r++)
        json_object_object_add(obj, prov_route_name((prov_route)r),
                               json_object_new_int(counts[r]));
    return obj;
}

json_object *emu_faults_stats(emu_faults *faults)
{
    json_object *stats = json_object_new_object();
    pthread_mutex_lock(&faults->lock);
    json_object_object_add(stats, "routes", counters_locked(faults->received));
    json_object_object_add(stats, "held", counters_locked(faults->held));
    pthread_mutex_unlock(&faults->lock);
    return stats;
}

int emu_faults_wait(emu_faults *faults, prov_route route, int received,
                        int held, long timeout_ms)
{
    struct timespec deadline = deadline_after(timeout_ms);
    int met = 0;
    pthread_mutex_lock(&faults->lock);
    for (;;) {
        met = faults->received[route] >= received &&
              (held < 0 || faults->held[route] >= held);
        if (met || faults->shutting_down)
            break;
        if (pthread_cond_timedwait(&faults->changed, &faults->lock, &deadline) == ETIMEDOUT) {
            met = faults->received[route] >= received &&
                  (held < 0 || faults->held[route] >= held);
            break;
        }
    }
    pthread_mutex_unlock(&faults->lock);
    return met;
}
