/*
 * Concurrency soak (issue 5): N threads x M mixed operations (create,
 * is_alive, discover, list, destroy, capabilities, reconcile) on ONE remote
 * backend instance against the emulator, while the test injects faults and
 * switches the mount contract mid-run through the emulator's control API.
 *
 * Every operation's outcome is counted.  An outcome is expected when the
 * backend's contract says so for the state of the sandbox (each thread owns
 * its sandbox ids and tracks them: present, absent, or unknown after a
 * failed call), or when one of the events already injected explains it, and
 * only with the kind and HTTP status that event produces.  Each fault that
 * surely reached the backend is found in the counts as often as it was
 * queued.  After the contract switch the provisioner refuses (409) every
 * sandbox made under the old contract, as the real one refuses a Pod of
 * another contract, until it is destroyed: those outcomes are "stale".
 * Leaks are left to the sanitizer builds and `make check-valgrind`;
 * races to the ThreadSanitizer build (docs/hardening.md).
 *
 * Size: SBX_SOAK_THREADS (default 8) x SBX_SOAK_OPS (default 200); the
 * whole run is bounded by SBX_SOAK_TIMEOUT_MS (default 60 s + 10 ms per op).
 */
#include <config.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/remote/remote_fixture.h"
#include "tests/remote/remote_threads.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/log_capture.h"

#define SOAK_DEFAULT_THREADS 8
#define SOAK_DEFAULT_OPS 200
#define SOAK_MAX_THREADS 256
#define SOAK_MAX_OPS 1000000
#define SOAK_IDS_PER_THREAD 4
#define SOAK_SAMPLES 3          /* unexpected outcomes kept per thread for the log */
#define SOAK_CONTRACT_BEFORE 2  /* the emulator's contract at start ... */
#define SOAK_CONTRACT_AFTER 3   /* ... and after the switch */
#define SOAK_DEFAULT_USER "default"

typedef enum soak_op {
    OP_CREATE, OP_IS_ALIVE, OP_DISCOVER, OP_LIST, OP_DESTROY, OP_CAPABILITIES,
    OP_RECONCILE, OP_COUNT
} soak_op;

static const char *const op_names[OP_COUNT] = {
    "create", "is_alive", "discover", "list", "destroy", "capabilities", "reconcile"
};
/* Relative frequency of each operation in the mix. */
static const unsigned op_weights[OP_COUNT] = { 3, 3, 2, 1, 2, 1, 2 };

/* What an operation ended with: the successful answers, then error kinds. */
typedef enum soak_outcome {
    OUT_OK, OUT_ALIVE, OUT_DEAD, OUT_FOUND, OUT_ABSENT, OUT_UNKNOWN, OUT_KNOWN,
    OUT_UNVERIFIED, OUT_NOT_FOUND, OUT_CONTRACT_CHANGED, OUT_REFUSED, OUT_PROVISIONER,
    OUT_PROTOCOL, OUT_TRANSPORT, OUT_OTHER_ERROR, OUT_STALE, OUT_COUNT
} soak_outcome;

static const char *const outcome_names[OUT_COUNT] = {
    "ok", "alive", "dead", "found", "absent", "unknown", "known", "unverif",
    "not_found", "contract", "refused", "provisnr", "protocol", "transport", "other",
    "stale"
};

/* Events the test injects mid-run; a worker reads them after a call returns,
 * so an outcome caused by an event always sees its bit (the bit is set
 * before the event is sent to the emulator). */
enum {
    EV_FAULTS_A = 1,   /* HTTP error answers on list, get, delete, reconcile */
    EV_CAP_FAULT = 2,  /* the next capability probe answers 503 */
    EV_SWITCH = 4,     /* the provisioner's contract moves 2 -> 3 */
    EV_FAULTS_B = 8    /* broken transport and bodies on create, get, list, reconcile */
};

/* One queued fault and what it must produce: `times` outcomes `outcome` of
 * the operations using `route`, exactly, or for a "drop" at most (libcurl
 * resends a request once on a fresh connection when a reused keep-alive
 * connection closes before any answer, so a drop may go unseen). */
typedef struct soak_fault {
    int event;
    const char *route;
    const char *json;
    int times;
    soak_outcome outcome;   /* OUT_COUNT: produces no error (a delay) */
    int exact;
} soak_fault;

static const soak_fault soak_faults[] = {
    { EV_FAULTS_A, "list", "{\"route\":\"list\",\"action\":\"respond\",\"status\":503,"
      "\"body\":\"{\\\"detail\\\":\\\"soak: list unavailable\\\"}\",\"times\":3}",
      3, OUT_PROVISIONER, 1 },
    { EV_FAULTS_A, "get", "{\"route\":\"get\",\"action\":\"respond\",\"status\":500,"
      "\"body\":\"{\\\"detail\\\":\\\"soak: get failed\\\"}\",\"times\":2}",
      2, OUT_PROVISIONER, 1 },
    { EV_FAULTS_A, "delete", "{\"route\":\"delete\",\"action\":\"respond\",\"status\":502,"
      "\"body\":\"bad gateway\",\"content_type\":\"text/plain\",\"times\":2}",
      2, OUT_PROVISIONER, 1 },
    { EV_FAULTS_A, "reconcile", "{\"route\":\"reconcile\",\"action\":\"respond\","
      "\"status\":503,\"body\":\"{\\\"detail\\\":\\\"soak\\\"}\",\"times\":2}",
      2, OUT_UNKNOWN, 1 },
    { EV_CAP_FAULT, "capabilities", "{\"route\":\"capabilities\",\"action\":\"respond\","
      "\"status\":503,\"body\":\"{\\\"detail\\\":\\\"soak\\\"}\",\"times\":1}",
      1, OUT_COUNT, 0 },
    { EV_FAULTS_B, "create", "{\"route\":\"create\",\"action\":\"truncate\",\"times\":1}",
      1, OUT_TRANSPORT, 1 },
    { EV_FAULTS_B, "create", "{\"route\":\"create\",\"action\":\"drop\",\"times\":2}",
      2, OUT_TRANSPORT, 0 },
    { EV_FAULTS_B, "get", "{\"route\":\"get\",\"action\":\"garbage\",\"times\":2}",
      2, OUT_PROTOCOL, 1 },
    { EV_FAULTS_B, "list", "{\"route\":\"list\",\"action\":\"truncate\",\"times\":1}",
      1, OUT_TRANSPORT, 1 },
    { EV_FAULTS_B, "reconcile", "{\"route\":\"reconcile\",\"action\":\"garbage\",\"times\":1}",
      1, OUT_UNKNOWN, 1 },
    { EV_FAULTS_B, "delete", "{\"route\":\"delete\",\"action\":\"delay\",\"delay_ms\":20,"
      "\"times\":3}", 3, OUT_COUNT, 0 },
};
#define SOAK_FAULT_COUNT (sizeof soak_faults / sizeof soak_faults[0])

/* HTTP status of the "respond" fault on an operation's route (0: none). */
static int fault_http_status(soak_op op)
{
    switch (op) {
    case OP_LIST: return 503;
    case OP_IS_ALIVE: case OP_DISCOVER: return 500;
    case OP_DESTROY: return 502;
    default: return 0;
    }
}

/* Whether `op` sends its request on the emulator route `route`. */
static int op_uses_route(soak_op op, const char *route)
{
    static const char *const routes[OP_COUNT] = {
        "create", "get", "get", "list", "delete", "capabilities", "reconcile"
    };
    return strcmp(routes[op], route) == 0;
}

typedef enum sandbox_state { SB_ABSENT, SB_PRESENT, SB_UNKNOWN } sandbox_state;

typedef struct soak_run {
    sbx_rt *rt;
    int ops_per_thread;
    atomic_int events;      /* EV_* injected so far */
    atomic_int stop;        /* the deadline passed: workers end early */
    sbx_rt_latch ops_done;  /* one arrival per finished operation */
    sbx_rt_latch done;      /* one arrival per finished worker */
} soak_run;

/* One worker: its sandboxes, its tally, what went wrong. */
typedef struct soak_worker {
    soak_run *run;
    int index;
    unsigned rng;
    char ids[SOAK_IDS_PER_THREAD][32];
    char threads[SOAK_IDS_PER_THREAD][40];
    char user[32];
    sandbox_state state[SOAK_IDS_PER_THREAD];
    /* 1 while the id's sandbox was made under the contract before the
     * switch: the provisioner then refuses it (409) until it is destroyed,
     * as the real one refuses a Pod of another contract */
    int old_contract[SOAK_IDS_PER_THREAD];
    int tally[OP_COUNT][OUT_COUNT];
    int ops;
    int unexpected;
    char samples[SOAK_SAMPLES][SBX_ERROR_MESSAGE_MAX + 160];
} soak_worker;

/* xorshift32: a cheap per-thread sequence, reproducible from the index. */
static unsigned next_random(soak_worker *w)
{
    unsigned x = w->rng;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return w->rng = x;
}

static soak_op pick_op(soak_worker *w)
{
    unsigned total = 0;
    for (int op = 0; op < OP_COUNT; op++)
        total += op_weights[op];
    unsigned r = next_random(w) % total;
    int op = 0;
    while (r >= op_weights[op])
        r -= op_weights[op++];
    return (soak_op)op;
}

/* Odd ids belong to the default user, even ones to the thread's own user
 * (a sandbox keeps its user: the emulator ignores a repeat's fields). */
static const char *user_of(const soak_worker *w, int id)
{
    return id % 2 ? NULL : w->user;
}

/* Count one outcome; when `wrong` is a message the outcome was not expected. */
static void tally(soak_worker *w, soak_op op, soak_outcome outcome, const char *id,
                  const char *wrong, const sbx_error *err)
{
    w->tally[op][outcome]++;
    if (wrong == NULL)
        return;
    if (w->unexpected < SOAK_SAMPLES) {
        /* formatted apart: `id` lives inside `w` too */
        char line[sizeof w->samples[0]];
        snprintf(line, sizeof line, "%s %s: %s (%s, http %d: %s)", op_names[op], id, wrong,
                 outcome_names[outcome], err != NULL ? err->http_status : 0,
                 err != NULL ? err->message : "");
        memcpy(w->samples[w->unexpected], line, sizeof line);
    }
    w->unexpected++;
}

static soak_outcome error_outcome(sbx_status st)
{
    switch (st) {
    case SBX_ERR_NOT_FOUND: return OUT_NOT_FOUND;
    case SBX_ERR_CONTRACT_CHANGED: return OUT_CONTRACT_CHANGED;
    case SBX_ERR_REFUSED: return OUT_REFUSED;
    case SBX_ERR_PROVISIONER: return OUT_PROVISIONER;
    case SBX_ERR_PROTOCOL: return OUT_PROTOCOL;
    case SBX_ERR_TRANSPORT: return OUT_TRANSPORT;
    default: return OUT_OTHER_ERROR;
    }
}

/* A contract version a create may freeze or be told: 2, 3 after the switch,
 * 0 while a failed probe leaves the contract unverified. */
static int version_possible(int version, int events)
{
    return version == SOAK_CONTRACT_BEFORE ||
           (version == SOAK_CONTRACT_AFTER && (events & EV_SWITCH)) ||
           (version == 0 && (events & EV_CAP_FAULT));
}

/* NULL when the events injected so far explain error `st` of `op` (on a
 * sandbox of user `user`), else why not. */
static const char *unexplained_error(soak_op op, sbx_status st, const sbx_error *err,
                                     const char *user, int events)
{
    if (err->kind != st || err->message[0] == '\0')
        return "the error record does not match the status";
    switch (op) {
    case OP_CREATE:
        if (st == SBX_ERR_CONTRACT_CHANGED)
            return (events & (EV_SWITCH | EV_CAP_FAULT)) &&
                   version_possible(err->expected_contract, events) &&
                   version_possible(err->actual_contract, events) &&
                   err->expected_contract != err->actual_contract &&
                   (err->http_status == 409 || err->http_status == 200)
                       ? NULL : "contract change nothing explains";
        if (st == SBX_ERR_REFUSED)
            return (events & EV_CAP_FAULT) && user != NULL ? NULL
                                                           : "refused without a failed probe";
        return st == SBX_ERR_TRANSPORT && (events & EV_FAULTS_B) ? NULL : "unexpected error";
    case OP_IS_ALIVE: case OP_DISCOVER: case OP_LIST: case OP_DESTROY:
        if (st == SBX_ERR_PROVISIONER && (events & EV_FAULTS_A))
            return err->http_status == fault_http_status(op) ? NULL : "wrong HTTP status";
        if (st == SBX_ERR_PROTOCOL && (events & EV_FAULTS_B) &&
            (op == OP_IS_ALIVE || op == OP_DISCOVER))
            return NULL;
        return st == SBX_ERR_TRANSPORT && (events & EV_FAULTS_B) && op == OP_LIST
                   ? NULL : "unexpected error";
    default:
        return "this operation never fails";
    }
}

/* Check an authoritative answer "exists" / "does not exist" about sandbox
 * `id` against what the worker knows; then know it. */
static const char *observe(soak_worker *w, int id, int exists)
{
    sandbox_state known = w->state[id];
    w->state[id] = exists ? SB_PRESENT : SB_ABSENT;
    if (!exists)
        w->old_contract[id] = 0;
    if (known == SB_PRESENT && !exists)
        return "a sandbox it created and did not destroy is missing";
    if (known == SB_ABSENT && exists)
        return "a sandbox it destroyed (or never created) exists";
    return NULL;
}

/* Whether error `st` is the provisioner refusing a sandbox of the old
 * contract after the switch, or discover hiding one: the provisioner
 * answered the GET under the old contract, and the backend, whose probe
 * already saw the new one, reports it not found (no 404 was answered).
 * Such an outcome is tallied as "stale". */
static int stale_refusal(const soak_worker *w, int id, sbx_status st, const sbx_error *err,
                         int events)
{
    if (!(events & EV_SWITCH) || !w->old_contract[id])
        return 0;
    return (st == SBX_ERR_REFUSED && err->http_status == 409) ||
           (st == SBX_ERR_NOT_FOUND && err->http_status != 404);
}

static void do_create(soak_worker *w, int id)
{
    sbx_create_request request =
        sbx_rt_create_request(w->ids[id], w->threads[id], user_of(w, id));
    sbx_sandbox *sandbox = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_create(w->run->rt->backend, &request, &sandbox, &err);
    int events = atomic_load(&w->run->events);
    if (stale_refusal(w, id, st, &err, events)) {
        tally(w, OP_CREATE, OUT_STALE, w->ids[id], NULL, &err);
        return;
    }
    if (st != SBX_OK) {
        const char *wrong = unexplained_error(OP_CREATE, st, &err, user_of(w, id), events);
        if (st == SBX_ERR_TRANSPORT)
            w->state[id] = SB_UNKNOWN;      /* it may have been created */
        else if (st == SBX_ERR_CONTRACT_CHANGED && err.http_status == 200) {
            w->state[id] = SB_PRESENT;      /* it exists under the version it answered */
            w->old_contract[id] = err.actual_contract == SOAK_CONTRACT_BEFORE;
        }
        tally(w, OP_CREATE, error_outcome(st), w->ids[id], wrong, &err);
        return;
    }
    const char *wanted_user = user_of(w, id) != NULL ? user_of(w, id) : SOAK_DEFAULT_USER;
    const char *wrong = NULL;
    if (sandbox == NULL || !sbx_rt_str_eq(sandbox->sandbox_id, w->ids[id]) ||
        sandbox->sandbox_url == NULL)
        wrong = "the answer is not the sandbox asked for";
    else if (!sbx_rt_str_eq(sandbox->user_id, wanted_user) ||
             !sbx_rt_str_eq(sandbox->thread_id, w->threads[id]))
        wrong = "the answer names another user or thread";
    else if (sandbox->mount_contract_version == 0 ||
             !version_possible(sandbox->mount_contract_version, events))
        wrong = "created under a contract nobody offered";
    w->state[id] = SB_PRESENT;
    w->old_contract[id] = sandbox != NULL &&
                          sandbox->mount_contract_version == SOAK_CONTRACT_BEFORE;
    sbx_backend_free_sandboxes(w->run->rt->backend, sandbox, 1);
    tally(w, OP_CREATE, OUT_OK, w->ids[id], wrong, NULL);
}

static void do_is_alive(soak_worker *w, int id)
{
    int alive = -1;
    sbx_error err;
    sbx_status st = sbx_backend_is_alive(w->run->rt->backend, w->ids[id], &alive, &err);
    int events = atomic_load(&w->run->events);
    if (stale_refusal(w, id, st, &err, events)) {
        tally(w, OP_IS_ALIVE, OUT_STALE, w->ids[id], NULL, &err);
        return;
    }
    if (st != SBX_OK) {
        tally(w, OP_IS_ALIVE, error_outcome(st), w->ids[id],
              unexplained_error(OP_IS_ALIVE, st, &err, NULL, events), &err);
        return;
    }
    const char *wrong = alive == 0 || alive == 1 ? observe(w, id, alive) : "alive is not 0 or 1";
    tally(w, OP_IS_ALIVE, alive == 1 ? OUT_ALIVE : OUT_DEAD, w->ids[id], wrong, NULL);
}

static void do_discover(soak_worker *w, int id)
{
    sbx_sandbox *sandbox = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_discover(w->run->rt->backend, w->ids[id], &sandbox, &err);
    int events = atomic_load(&w->run->events);
    if (stale_refusal(w, id, st, &err, events)) {
        tally(w, OP_DISCOVER, OUT_STALE, w->ids[id], NULL, &err);
    } else if (st == SBX_ERR_NOT_FOUND) {
        tally(w, OP_DISCOVER, OUT_NOT_FOUND, w->ids[id], observe(w, id, 0), &err);
    } else if (st != SBX_OK) {
        tally(w, OP_DISCOVER, error_outcome(st), w->ids[id],
              unexplained_error(OP_DISCOVER, st, &err, NULL, events), &err);
    } else {
        const char *wrong = sandbox != NULL && sbx_rt_str_eq(sandbox->sandbox_id, w->ids[id])
                                ? observe(w, id, 1) : "the answer is not the sandbox asked for";
        sbx_backend_free_sandboxes(w->run->rt->backend, sandbox, 1);
        tally(w, OP_DISCOVER, OUT_FOUND, w->ids[id], wrong, NULL);
    }
}

/* Whether the listing holds `sandbox_id`. */
static int listed(const sbx_sandbox *sandboxes, size_t count, const char *sandbox_id)
{
    for (size_t i = 0; i < count; i++)
        if (sbx_rt_str_eq(sandboxes[i].sandbox_id, sandbox_id))
            return 1;
    return 0;
}

static void do_list(soak_worker *w)
{
    sbx_sandbox *sandboxes = NULL;
    size_t count = 0;
    sbx_error err;
    sbx_status st = sbx_backend_list_running(w->run->rt->backend, &sandboxes, &count, &err);
    int events = atomic_load(&w->run->events);
    if (st != SBX_OK) {
        tally(w, OP_LIST, error_outcome(st), "*",
              unexplained_error(OP_LIST, st, &err, NULL, events), &err);
        return;
    }
    /* only this thread touches its ids, so the listing must agree */
    const char *wrong = NULL;
    for (int id = 0; id < SOAK_IDS_PER_THREAD; id++) {
        const char *why = observe(w, id, listed(sandboxes, count, w->ids[id]));
        if (wrong == NULL)
            wrong = why;
    }
    sbx_backend_free_sandboxes(w->run->rt->backend, sandboxes, count);
    tally(w, OP_LIST, OUT_OK, "*", wrong, NULL);
}

static void do_destroy(soak_worker *w, int id)
{
    sbx_error err;
    sbx_status st = sbx_backend_destroy(w->run->rt->backend, w->ids[id], &err);
    int events = atomic_load(&w->run->events);
    if (st != SBX_OK) {
        w->state[id] = SB_UNKNOWN;
        tally(w, OP_DESTROY, error_outcome(st), w->ids[id],
              unexplained_error(OP_DESTROY, st, &err, NULL, events), &err);
        return;
    }
    w->state[id] = SB_ABSENT;
    w->old_contract[id] = 0;
    tally(w, OP_DESTROY, OUT_OK, w->ids[id], NULL, NULL);
}

static void do_capabilities(soak_worker *w)
{
    sbx_capabilities caps = { SBX_CONTRACT_NONE, 0 };
    sbx_error err;
    sbx_status st = sbx_backend_capabilities(w->run->rt->backend, &caps, &err);
    int events = atomic_load(&w->run->events);
    if (st != SBX_OK) {
        tally(w, OP_CAPABILITIES, error_outcome(st), "*",
              unexplained_error(OP_CAPABILITIES, st, &err, NULL, events), &err);
    } else if (!caps.known) {
        tally(w, OP_CAPABILITIES, OUT_UNVERIFIED, "*",
              events & EV_CAP_FAULT ? NULL : "unverified without a failed probe", NULL);
    } else {
        tally(w, OP_CAPABILITIES, OUT_KNOWN, "*",
              caps.mount_contract_version != 0 &&
                      version_possible(caps.mount_contract_version, events)
                  ? NULL : "a version nobody offered", NULL);
    }
}

static void do_reconcile(soak_worker *w, int id)
{
    sbx_reconciliation result;
    sbx_error err;
    sbx_test_log_thread_reset();
    sbx_status st = sbx_backend_reconcile(w->run->rt->backend, w->ids[id], &result, &err);
    int events = atomic_load(&w->run->events);
    if (st != SBX_OK) {
        tally(w, OP_RECONCILE, error_outcome(st), w->ids[id],
              unexplained_error(OP_RECONCILE, st, &err, NULL, events), &err);
        return;
    }
    soak_outcome outcome = OUT_UNKNOWN;
    const char *wrong = NULL;
    if (result.status == SBX_RECONCILE_FOUND) {
        outcome = OUT_FOUND;
        if (result.sandbox == NULL || !sbx_rt_str_eq(result.sandbox->sandbox_id, w->ids[id]) ||
            result.incarnation_id == NULL || result.backend_namespace == NULL)
            wrong = "FOUND without the sandbox, incarnation and namespace";
        else
            wrong = observe(w, id, 1);
    } else if (result.status == SBX_RECONCILE_ABSENT) {
        outcome = OUT_ABSENT;
        wrong = result.backend_namespace == NULL ? "ABSENT without a namespace"
                                                 : observe(w, id, 0);
    } else if ((events & EV_SWITCH) && w->old_contract[id] &&
               sbx_test_log_thread_contains(" -> HTTP 409 (")) {
        /* The provisioner's 409 for a Pod of the old contract; the answer
         * is read from this thread's log, as a queued fault (503, garbage)
         * on such a Pod also ends in unknown and must be counted as one. */
        outcome = OUT_STALE;
    } else if (!(events & (EV_FAULTS_A | EV_FAULTS_B))) {
        wrong = "unknown without a fault";
    }
    sbx_backend_clear_reconciliation(w->run->rt->backend, &result);
    tally(w, OP_RECONCILE, outcome, w->ids[id], wrong, NULL);
}

static void run_one_op(soak_worker *w)
{
    int id = (int)(next_random(w) % SOAK_IDS_PER_THREAD);
    switch (pick_op(w)) {
    case OP_CREATE: do_create(w, id); break;
    case OP_IS_ALIVE: do_is_alive(w, id); break;
    case OP_DISCOVER: do_discover(w, id); break;
    case OP_LIST: do_list(w); break;
    case OP_DESTROY: do_destroy(w, id); break;
    case OP_CAPABILITIES: do_capabilities(w); break;
    default: do_reconcile(w, id); break;
    }
}

static void *worker_main(void *arg)
{
    soak_worker *w = arg;
    for (int i = 0; i < w->run->ops_per_thread && !atomic_load(&w->run->stop); i++) {
        run_one_op(w);
        w->ops++;
        sbx_rt_latch_arrive(&w->run->ops_done);
    }
    sbx_rt_latch_arrive(&w->run->done);
    return NULL;
}

static void init_worker(soak_worker *w, soak_run *run, int index)
{
    memset(w, 0, sizeof *w);
    w->run = run;
    w->index = index;
    w->rng = 2463534242u ^ (unsigned)(index + 1) * 2654435761u;
    if (w->rng == 0)
        w->rng = 1;
    snprintf(w->user, sizeof w->user, "soak-user-%d", index);
    for (int id = 0; id < SOAK_IDS_PER_THREAD; id++) {
        snprintf(w->ids[id], sizeof w->ids[id], "soak-%d-%d", index, id);
        snprintf(w->threads[id], sizeof w->threads[id], "soak-thread-%d-%d", index, id);
        w->state[id] = SB_ABSENT;
    }
}

/* A positive integer from the environment, or `fallback` when unset;
 * values out of [1, max] are clamped. */
static long env_count(const char *name, long fallback, long max)
{
    const char *text = getenv(name);
    if (text == NULL || *text == '\0')
        return fallback;
    long value = strtol(text, NULL, 10);
    return value < 1 ? 1 : value > max ? max : value;
}

/* Per route, after the last fault queued on it: requests received so far. */
typedef struct route_mark {
    const char *route;
    int received_after;
} route_mark;

static void mark_route(route_mark *marks, size_t *n, sbx_test_emu *emu, const char *route)
{
    size_t i = 0;
    while (i < *n && strcmp(marks[i].route, route) != 0)
        i++;
    if (i == *n)
        marks[(*n)++].route = route;
    marks[i].received_after = sbx_test_emu_received(emu, route);
}

/* Set `event` (before the emulator can show its effect), then queue its
 * faults.  Returns 1 when every control call was accepted. */
static int inject(soak_run *run, int event, route_mark *marks, size_t *n_marks)
{
    atomic_fetch_or(&run->events, event);
    int ok = 1;
    for (size_t i = 0; i < SOAK_FAULT_COUNT; i++) {
        if (soak_faults[i].event != event)
            continue;
        ok &= sbx_test_emu_fault(run->rt->emu, soak_faults[i].json) == 200;
        mark_route(marks, n_marks, run->rt->emu, soak_faults[i].route);
    }
    if (event == EV_SWITCH)
        ok &= sbx_rt_set_contract(run->rt, SOAK_CONTRACT_AFTER);
    return ok;
}

/* Inject the events at 1/4, 1/2 (probe fault, then the switch) and 3/4 of
 * the operations, each once that many have finished (waiting on the latch,
 * bounded by `deadline_ms`). */
static void drive_events(soak_run *run, int total_ops, long deadline_ms, route_mark *marks,
                         size_t *n_marks)
{
    static const struct { int event; int quarter; } plan[] = {
        { EV_FAULTS_A, 1 }, { EV_CAP_FAULT, 2 }, { EV_SWITCH, 2 }, { EV_FAULTS_B, 3 }
    };
    for (size_t i = 0; i < sizeof plan / sizeof plan[0]; i++) {
        long left = deadline_ms - sbx_test_now_ms();
        int target = total_ops / 4 * plan[i].quarter;
        if (!sbx_rt_latch_wait(&run->ops_done, target, left > 0 ? (int)left : 0)) {
            CU_FAIL("the soak did not reach its next event before the deadline");
            return;
        }
        CU_ASSERT(inject(run, plan[i].event, marks, n_marks));
    }
}

/* Sum of the tallies of `workers`. */
static void sum_tallies(const soak_worker *workers, int n, int sum[OP_COUNT][OUT_COUNT])
{
    memset(sum, 0, sizeof(int) * OP_COUNT * OUT_COUNT);
    for (int i = 0; i < n; i++)
        for (int op = 0; op < OP_COUNT; op++)
            for (int out = 0; out < OUT_COUNT; out++)
                sum[op][out] += workers[i].tally[op][out];
}

static void print_tally(int sum[OP_COUNT][OUT_COUNT])
{
    printf("%-13s", "op");
    for (int out = 0; out < OUT_COUNT; out++)
        printf(" %9s", outcome_names[out]);
    printf("\n");
    for (int op = 0; op < OP_COUNT; op++) {
        printf("%-13s", op_names[op]);
        for (int out = 0; out < OUT_COUNT; out++)
            printf(" %9d", sum[op][out]);
        printf("\n");
    }
}

/* Whether faults `a` and `b` are counted together: the same route and the
 * same outcome (e.g. two kinds of fault that both make reconcile unknown). */
static int same_group(const soak_fault *a, const soak_fault *b)
{
    return strcmp(a->route, b->route) == 0 && a->outcome == b->outcome;
}

/* How many requests were queued faults on `route`. */
static int faults_queued_on(const char *route)
{
    int queued = 0;
    for (size_t f = 0; f < SOAK_FAULT_COUNT; f++)
        if (strcmp(soak_faults[f].route, route) == 0)
            queued += soak_faults[f].times;
    return queued;
}

/* Outcomes of the group of fault `f` (see same_group) the counts must show:
 * at most *high, and at least *low once every fault reached the backend. */
static void group_bounds(size_t f, int *low, int *high)
{
    *low = *high = 0;
    for (size_t g = 0; g < SOAK_FAULT_COUNT; g++)
        if (same_group(&soak_faults[g], &soak_faults[f])) {
            *high += soak_faults[g].times;
            *low += soak_faults[g].exact ? soak_faults[g].times : 0;
        }
}

/* Each fault that surely reached the backend (its route received at least
 * as many requests as were queued on it after the last fault was queued)
 * shows in the counts as often as it was queued; any fault at most so. */
static void check_fault_counts(sbx_test_emu *emu, int sum[OP_COUNT][OUT_COUNT],
                               const route_mark *marks, size_t n_marks)
{
    for (size_t f = 0; f < SOAK_FAULT_COUNT; f++) {
        const soak_fault *fault = &soak_faults[f];
        size_t first = 0;
        while (!same_group(&soak_faults[first], fault))
            first++;
        if (fault->outcome == OUT_COUNT || first != f)
            continue;   /* no error to count, or the group was checked */
        size_t m = 0;
        while (m < n_marks && strcmp(marks[m].route, fault->route) != 0)
            m++;
        int consumed = m < n_marks && sbx_test_emu_received(emu, fault->route) -
                                              marks[m].received_after >=
                                          faults_queued_on(fault->route);
        int low, high, seen = 0;
        group_bounds(f, &low, &high);
        for (int op = 0; op < OP_COUNT; op++)
            if (op_uses_route((soak_op)op, fault->route))
                seen += sum[op][fault->outcome];
        printf("faults on %-12s -> %-9s: %d seen, %d..%d expected%s\n", fault->route,
               outcome_names[fault->outcome], seen, consumed ? low : 0, high,
               consumed ? "" : " (not all reached the backend)");
        CU_ASSERT(seen <= high);
        if (consumed)
            CU_ASSERT(seen >= low);
    }
}

/* After the switch the backend settles on the new contract: a probe fault
 * or a stale cache clears within a few creates (a refused create marks the
 * cache stale).  In a short run create faults may still be queued: each
 * costs one more attempt and may end in a transport error. */
static void expect_contract_converges(sbx_rt *rt)
{
    int leftover = faults_queued_on("create"), broken = 0;
    int version = sbx_rt_contract(rt);
    for (int attempt = 0; attempt < 4 + leftover && version != SOAK_CONTRACT_AFTER; attempt++) {
        sbx_create_request request = sbx_rt_create_request("soak-final", NULL, NULL);
        sbx_error err;
        sbx_status st = sbx_rt_create_discarding(rt, &request, &err);
        broken += st == SBX_ERR_TRANSPORT;
        CU_ASSERT(st == SBX_OK || st == SBX_ERR_CONTRACT_CHANGED || st == SBX_ERR_TRANSPORT);
        version = sbx_rt_contract(rt);
    }
    CU_ASSERT(broken <= leftover);
    CU_ASSERT_EQUAL(version, SOAK_CONTRACT_AFTER);
}

/* Report the run and assert nothing unexpected happened. */
static void report(soak_worker *workers, int started, int threads, int ops, long elapsed_ms)
{
    int total = 0, unexpected = 0;
    for (int i = 0; i < started; i++) {
        total += workers[i].ops;
        unexpected += workers[i].unexpected;
        for (int s = 0; s < workers[i].unexpected && s < SOAK_SAMPLES; s++)
            fprintf(stderr, "soak worker %d: unexpected: %s\n", i, workers[i].samples[s]);
    }
    printf("soak: %d threads x %d ops: %d ops in %.2f s (%.0f ops/s), %d unexpected\n",
           threads, ops, total, elapsed_ms / 1000.0,
           elapsed_ms > 0 ? total * 1000.0 / elapsed_ms : 0.0, unexpected);
    CU_ASSERT_EQUAL(started, threads);
    CU_ASSERT_EQUAL(total, started * ops);
    CU_ASSERT_EQUAL(unexpected, 0);
}

static void test_soak_one_instance(void)
{
    int threads = (int)env_count("SBX_SOAK_THREADS", SOAK_DEFAULT_THREADS, SOAK_MAX_THREADS);
    int ops = (int)env_count("SBX_SOAK_OPS", SOAK_DEFAULT_OPS, SOAK_MAX_OPS);
    long timeout_ms = env_count("SBX_SOAK_TIMEOUT_MS", 60000 + 10L * threads * ops, 86400000L);
    static const char *const args[] = { "--contract", "2", "--initial-status", "Running", NULL };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, args, NULL, NULL, 0))
        return;
    soak_run run = { .rt = &rt, .ops_per_thread = ops };
    atomic_init(&run.events, 0);
    atomic_init(&run.stop, 0);
    if (!sbx_rt_latch_init_or_stop(&rt, &run.ops_done))
        return;
    if (!sbx_rt_latch_init(&run.done)) {
        CU_FAIL("latch");
        sbx_rt_latch_destroy(&run.ops_done);
        sbx_rt_stop(&rt);
        return;
    }
    soak_worker *workers = calloc((size_t)threads, sizeof *workers);
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    CU_ASSERT(workers != NULL && ids != NULL);
    if (workers == NULL || ids == NULL)
        threads = 0;
    for (int i = 0; i < threads; i++)
        init_worker(&workers[i], &run, i);

    long start_ms = sbx_test_now_ms();
    long deadline_ms = start_ms + timeout_ms;
    int started = sbx_rt_start_threads(ids, threads, worker_main, workers, sizeof *workers);
    route_mark marks[SOAK_FAULT_COUNT];
    size_t n_marks = 0;
    drive_events(&run, started * ops, deadline_ms, marks, &n_marks);
    long left = deadline_ms - sbx_test_now_ms();
    if (!sbx_rt_latch_wait(&run.done, started, left > 0 ? (int)left : 0)) {
        CU_FAIL("the soak did not finish before its deadline");
        atomic_store(&run.stop, 1);
    }
    sbx_rt_finish_threads(&rt, ids, started, &run.done, 30000);
    long elapsed_ms = sbx_test_now_ms() - start_ms;

    int sum[OP_COUNT][OUT_COUNT];
    sum_tallies(workers, started, sum);
    report(workers, started, threads, ops, elapsed_ms);
    print_tally(sum);
    if (rt.emu != NULL) {
        check_fault_counts(rt.emu, sum, marks, n_marks);
        printf("capability probes sent: %d\n", sbx_test_emu_received(rt.emu, "capabilities"));
        expect_contract_converges(&rt);
    }
    fflush(stdout);
    free(ids);
    free(workers);
    sbx_rt_latch_destroy(&run.done);
    sbx_rt_latch_destroy(&run.ops_done);
    sbx_rt_stop(&rt);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "soak_one_instance", test_soak_one_instance },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("remote_soak", NULL, NULL, tests);
}
