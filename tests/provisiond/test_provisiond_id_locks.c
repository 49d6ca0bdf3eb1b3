/* sbx-provisiond's per-id serialisation, seen from clients: a create held
 * in the backend's readiness wait delays the creates and deletes of no
 * other id (128 of them complete while it waits), and many clients on one
 * id still take turns (nobody is answered with another's sandbox).  The
 * stalled sandbox is the local backend's with a command that does not
 * listen until the test lets it go.  Run under ThreadSanitizer in CI. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/subprocess.h"

/* How long the others may take while the create waits: generous for a
 * loaded machine under ThreadSanitizer (5 s unloaded, 13 s beside a CPU
 * hog, 40 s beside a hog under TSan).  The stalled create's own wait is
 * twice that, so that it cannot end by itself while they run. */
#define OTHERS_DEADLINE_MS 120000
/* A request never waits longer than the stalled create may. */
#define REQUEST_TIMEOUT_MS (2L * OTHERS_DEADLINE_MS)
#define CLIENTS 8
#define IDS_PER_CLIENT 16       /* 128 other ids */
#define SAME_ID_CLIENTS 16
#define SAME_ID_ROUNDS 6

static long destroy(const char *base, const char *id)
{
    char path[128];
    snprintf(path, sizeof path, "/api/sandboxes/%s", id);
    return provd_request(base, (provd_send){"DELETE", path, NULL}, REQUEST_TIMEOUT_MS, NULL, 0);
}

/* What the clients share with the test's thread. */
typedef struct shared {
    const char *base;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int finished;               /* clients done */
    int failures;
    long stalled_status;        /* 0 until the stalled create is answered */
} shared;

typedef struct client {
    shared *s;
    int index;
} client;

static void fail(shared *s, const char *what, const char *id, long status)
{
    pthread_mutex_lock(&s->lock);
    s->failures++;
    pthread_mutex_unlock(&s->lock);
    fprintf(stderr, "%s %s: HTTP %ld\n", what, id, status);
}

static void *other_ids(void *arg)
{
    client *c = arg;
    for (int k = 0; k < IDS_PER_CLIENT; k++) {
        char id[32], user[32];
        snprintf(id, sizeof id, "other-%d-%d", c->index, k);
        snprintf(user, sizeof user, "user-%d", c->index);
        long status = provd_create(c->s->base, id, user, REQUEST_TIMEOUT_MS, NULL, 0);
        if (status != 200)
            fail(c->s, "create", id, status);
        status = destroy(c->s->base, id);
        if (status != 200)
            fail(c->s, "delete", id, status);
    }
    pthread_mutex_lock(&c->s->lock);
    c->s->finished++;
    pthread_cond_broadcast(&c->s->changed);
    pthread_mutex_unlock(&c->s->lock);
    return NULL;
}

static void *stalled_create(void *arg)
{
    shared *s = arg;
    long status = provd_create(s->base, "stalled", "ann", REQUEST_TIMEOUT_MS, NULL, 0);
    pthread_mutex_lock(&s->lock);
    s->stalled_status = status;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Wait until `clients` have finished or the deadline passes; whether the
 * stalled create was still unanswered when they all had. */
static int others_finish_first(shared *s, int clients, long deadline_ms)
{
    struct timespec until = sbx_test_deadline_in((int)deadline_ms);
    pthread_mutex_lock(&s->lock);
    int timed_out = 0;
    while (s->finished < clients && !timed_out)
        timed_out = pthread_cond_timedwait(&s->changed, &s->lock, &until) == ETIMEDOUT;
    int first = s->finished == clients && s->stalled_status == 0;
    pthread_mutex_unlock(&s->lock);
    return first;
}

static void test_a_create_in_its_readiness_wait_delays_no_other_id(void)
{
    char gates[] = "/tmp/sbx-provd-gate-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(gates));
    char started_path[128], release_path[128];
    snprintf(started_path, sizeof started_path, "%s/started", gates);
    snprintf(release_path, sizeof release_path, "%s/release", gates);
    CU_ASSERT_EQUAL_FATAL(mkfifo(started_path, 0600), 0);
    CU_ASSERT_EQUAL_FATAL(mkfifo(release_path, 0600), 0);
    /* Read-write ends never block to open and never see a hang-up. */
    int started = open(started_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    int release = open(release_path, O_RDWR | O_CLOEXEC);
    CU_ASSERT_FATAL(started >= 0 && release >= 0);
    /* Sandbox "stalled" says it runs, then waits for the test and exits
     * without ever listening; every other one serves at once. */
    char command[1024], ready[64];
    snprintf(command, sizeof command,
             "command=case {dir} in */stalled) echo started > '%s'; read go < '%s'; exit 3;; "
             "esac; exec busybox httpd -f -p 127.0.0.1:{port} -h {dir}",
             started_path, release_path);
    snprintf(ready, sizeof ready, "ready_timeout_ms=%d", 2 * OTHERS_DEADLINE_MS);
    /* isolation=none: the stalled command talks to the test through FIFOs
     * in the host's /tmp, which an isolated sandbox cannot see. */
    const char *const extra[] = {"--set", command, "--set", ready, "--set", "isolation=none",
                                 NULL};
    provd_local d;
    if (!provd_local_start(&d, 1, extra))
        return;
    shared s = {.base = provd_url(d.proc)};
    pthread_mutex_init(&s.lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&s.changed, &attr);
    pthread_t stall;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&stall, NULL, stalled_create, &s), 0);
    CU_ASSERT_EQUAL(sbx_test_wait_readable(started, sbx_test_now_ms() + OTHERS_DEADLINE_MS), 1);

    long begun = sbx_test_now_ms();
    client clients[CLIENTS];
    pthread_t threads[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        clients[i] = (client){&s, i};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, other_ids, &clients[i]), 0);
    }
    CU_ASSERT_TRUE(others_finish_first(&s, CLIENTS, OTHERS_DEADLINE_MS));
    fprintf(stderr, "%d creates and deletes of other ids took %ld ms while one create waited\n",
            CLIENTS * IDS_PER_CLIENT, sbx_test_now_ms() - begun);

    CU_ASSERT_EQUAL(write(release, "go\n", 3), 3);
    for (int i = 0; i < CLIENTS; i++)
        pthread_join(threads[i], NULL);
    pthread_join(stall, NULL);
    CU_ASSERT_EQUAL(s.failures, 0);
    /* Its command exited before listening: the backend's transport error. */
    CU_ASSERT_EQUAL(s.stalled_status, 503);
    CU_ASSERT_EQUAL(destroy(s.base, "stalled"), 200);
    char *left = provd_local_ids(&d);
    CU_ASSERT_STRING_EQUAL(left != NULL ? left : "(cannot list)", "");
    free(left);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
    pthread_cond_destroy(&s.changed);
    pthread_condattr_destroy(&attr);
    pthread_mutex_destroy(&s.lock);
    close(started);
    close(release);
    unlink(started_path);
    unlink(release_path);
    rmdir(gates);
}

static void *same_id(void *arg)
{
    client *c = arg;
    char user[32], answer[4096], want[64];
    snprintf(user, sizeof user, "user-%d", c->index);
    snprintf(want, sizeof want, "\"user_id\":\"%s\"", user);
    for (int round = 0; round < SAME_ID_ROUNDS; round++) {
        long status =
            provd_create(c->s->base, "same", user, REQUEST_TIMEOUT_MS, answer, sizeof answer);
        if (status == 409)
            continue;   /* another client holds it now */
        if (status != 200 || strstr(answer, want) == NULL) {
            fail(c->s, "create (wrong owner?)", answer, status);
            continue;
        }
        status = provd_request(c->s->base, (provd_send){"GET", "/api/sandboxes/same", NULL},
                               REQUEST_TIMEOUT_MS, answer, sizeof answer);
        if (status != 200 || strstr(answer, want) == NULL)
            fail(c->s, "get (wrong owner?)", answer, status);
        status = destroy(c->s->base, "same");
        if (status != 200)
            fail(c->s, "delete", "same", status);
    }
    return NULL;
}

static void test_clients_on_one_id_take_turns(void)
{
    provd_local d;
    if (!provd_local_start(&d, 1, NULL))
        return;
    shared s = {.base = provd_url(d.proc)};
    pthread_mutex_init(&s.lock, NULL);
    client clients[SAME_ID_CLIENTS];
    pthread_t threads[SAME_ID_CLIENTS];
    for (int i = 0; i < SAME_ID_CLIENTS; i++) {
        clients[i] = (client){&s, i};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, same_id, &clients[i]), 0);
    }
    for (int i = 0; i < SAME_ID_CLIENTS; i++)
        pthread_join(threads[i], NULL);
    CU_ASSERT_EQUAL(s.failures, 0);
    char *left = provd_local_ids(&d);
    CU_ASSERT_STRING_EQUAL(left != NULL ? left : "(cannot list)", "");
    free(left);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
    pthread_mutex_destroy(&s.lock);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"a_create_in_its_readiness_wait_delays_no_other_id",
         test_a_create_in_its_readiness_wait_delays_no_other_id},
        {"clients_on_one_id_take_turns", test_clients_on_one_id_take_turns},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("provisiond_id_locks", NULL, NULL, tests);
}
