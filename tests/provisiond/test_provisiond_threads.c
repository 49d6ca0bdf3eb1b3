/* 16 client threads at once through the remote backend against
 * sbx-provisiond over the local backend: each creates, lists and destroys
 * its own sandboxes, and all of them race on one id for the same owner
 * (everyone gets the same sandbox) and on one id for 16 different owners
 * (exactly one gets it, the others are refused).  Afterwards the daemon's
 * list, the local backend's own state and what the threads kept agree: no
 * sandbox lost or duplicated, every answer well-formed (the remote backend
 * refuses any other as a protocol error).  Run under ThreadSanitizer in CI. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/cunit_main.h"
#include "tests/support/remote_helpers.h"

#define THREADS 16
#define PER_THREAD 6

typedef struct worker {
    sbx_backend *backend;
    int index;
    int failures;               /* calls that did not answer as expected */
    char shared_url[512];       /* the URL the shared id came back with */
    int contested;              /* SBX_OK: won the contested id; REFUSED: lost */
} worker;

static void note(worker *w, const char *what, sbx_status st, const sbx_error *err)
{
    w->failures++;
    fprintf(stderr, "thread %d: %s: %s: %s\n", w->index, what, sbx_status_name(st),
            err->message);
}

static sbx_status create(worker *w, const char *id, const char *user, const char *thread,
                         sbx_sandbox **out, sbx_error *err)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = id;
    req.user_id = user;
    req.thread_id = thread;
    return sbx_backend_create(w->backend, &req, out, err);
}

/* Whether the list holds `id` exactly `times` times. */
static int listed_times(const sbx_sandbox *list, size_t count, const char *id, int times)
{
    int seen = 0;
    for (size_t i = 0; i < count; i++)
        seen += strcmp(list[i].sandbox_id, id) == 0;
    return seen == times;
}

static void *work(void *arg)
{
    worker *w = arg;
    char user[32], thread[32], id[PER_THREAD][32];
    snprintf(user, sizeof user, "user-%d", w->index);
    snprintf(thread, sizeof thread, "thread-%d", w->index);
    sbx_error err;
    sbx_sandbox *s = NULL;
    for (int k = 0; k < PER_THREAD; k++) {
        snprintf(id[k], sizeof id[k], "w%d-%d", w->index, k);
        sbx_status st = create(w, id[k], user, thread, &s, &err);
        if (st != SBX_OK || strcmp(s->sandbox_id, id[k]) != 0 ||
            strcmp(s->user_id, user) != 0 || s->mount_contract_version != 2)
            note(w, "create", st, &err);
        if (st == SBX_OK)
            sbx_backend_free_sandboxes(w->backend, s, 1);
    }
    sbx_status st = create(w, "shared", "owner", "common", &s, &err);
    if (st == SBX_OK) {
        snprintf(w->shared_url, sizeof w->shared_url, "%s", s->sandbox_url);
        sbx_backend_free_sandboxes(w->backend, s, 1);
    } else {
        note(w, "create shared", st, &err);
    }
    w->contested = create(w, "contested", user, thread, &s, &err);
    if (w->contested == SBX_OK)
        sbx_backend_free_sandboxes(w->backend, s, 1);
    else if (w->contested != SBX_ERR_REFUSED)
        note(w, "create contested", w->contested, &err);
    sbx_sandbox *list = NULL;
    size_t count = 0;
    st = sbx_backend_list_running(w->backend, &list, &count, &err);
    if (st != SBX_OK)
        note(w, "list", st, &err);
    for (int k = 0; st == SBX_OK && k < PER_THREAD; k++) {
        if (!listed_times(list, count, id[k], 1))
            note(w, "list misses or repeats a sandbox", st, &err);
    }
    sbx_backend_free_sandboxes(w->backend, list, count);
    /* keep the first half, destroy the rest */
    for (int k = PER_THREAD / 2; k < PER_THREAD; k++) {
        st = sbx_backend_destroy(w->backend, id[k], &err);
        if (st != SBX_OK)
            note(w, "destroy", st, &err);
    }
    return NULL;
}

/* The ids every thread kept, plus the shared and contested ones, sorted
 * as provd_local_ids lists them. */
static char *expected_ids(void)
{
    const char *names[THREADS * PER_THREAD + 2];
    char storage[THREADS * PER_THREAD][32];
    size_t n = 0;
    names[n++] = "contested";
    names[n++] = "shared";
    for (int i = 0; i < THREADS; i++) {
        for (int k = 0; k < PER_THREAD / 2; k++) {
            char *slot = storage[i * PER_THREAD + k];
            snprintf(slot, 32, "w%d-%d", i, k);
            names[n++] = slot;
        }
    }
    for (size_t a = 0; a < n; a++) {
        for (size_t b = a + 1; b < n; b++) {
            if (strcmp(names[b], names[a]) < 0) {
                const char *t = names[a];
                names[a] = names[b];
                names[b] = t;
            }
        }
    }
    char *text = calloc(n, 34);
    for (size_t a = 0; a < n; a++) {
        if (a > 0)
            strcat(text, ",");
        strcat(text, names[a]);
    }
    return text;
}

static void test_sixteen_clients_at_once(void)
{
    provd_local d;
    static const char *const args[] = {"--threads", "4", NULL};
    if (!provd_local_start(&d, 1, args))
        return;
    sbx_host *host = NULL;
    sbx_error err;
    sbx_backend *backend = sbx_test_open_remote(&host, provd_url(d.proc), NULL, NULL, 0, &err);
    CU_ASSERT_PTR_NOT_NULL(backend);
    worker workers[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; backend != NULL && i < THREADS; i++) {
        workers[i] = (worker){.backend = backend, .index = i};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, work, &workers[i]), 0);
    }
    int winners = 0;
    for (int i = 0; backend != NULL && i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CU_ASSERT_EQUAL(workers[i].failures, 0);
        CU_ASSERT_STRING_EQUAL(workers[i].shared_url, workers[0].shared_url);
        winners += workers[i].contested == SBX_OK;
    }
    if (backend != NULL) {
        CU_ASSERT_EQUAL(winners, 1);
        char *expected = expected_ids();
        char *held = provd_local_ids(&d);
        CU_ASSERT_PTR_NOT_NULL(held);
        if (held != NULL)
            CU_ASSERT_STRING_EQUAL(held, expected);
        sbx_sandbox *list = NULL;
        size_t count = 0;
        CU_ASSERT_EQUAL(sbx_backend_list_running(backend, &list, &count, &err), SBX_OK);
        CU_ASSERT_EQUAL(count, (size_t)(THREADS * PER_THREAD / 2 + 2));
        sbx_backend_free_sandboxes(backend, list, count);
        free(held);
        free(expected);
    }
    sbx_backend_close(backend);
    sbx_host_free(host);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"sixteen_clients_at_once", test_sixteen_clients_at_once},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("provisiond_threads", NULL, NULL, tests);
}
