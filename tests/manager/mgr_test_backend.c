/* The "mgrtest" backend (see mgr_test_backend.h). */
#include <config.h>

#include "tests/manager/mgr_test_backend.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/support/clock.h"

#define MT_SLOTS 256

typedef struct mt_sandbox {
    int used, alive;
    int processes;                 /* running processes the test says it has */
    char id[64], user[72], thread[72];
    int has_thread;
} mt_sandbox;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    mt_sandbox boxes[MT_SLOTS];
    mt_stats stats;
    int failing[MT_OP_COUNT];
    int hold[MT_OP_COUNT], waiting[MT_OP_COUNT];
    char url_base[128];            /* "": mem://<id> */
} mt = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {{0}}, {0}, {0}, {0}, {0}, ""};

struct sbx_backend_instance {
    int unused;
};

static mt_sandbox *find(const char *id)
{
    for (int i = 0; i < MT_SLOTS; i++)
        if (mt.boxes[i].used && strcmp(mt.boxes[i].id, id) == 0)
            return &mt.boxes[i];
    return NULL;
}

static mt_sandbox *add(const char *id, const char *user, const char *thread)
{
    for (int i = 0; i < MT_SLOTS; i++) {
        mt_sandbox *b = &mt.boxes[i];
        if (b->used)
            continue;
        memset(b, 0, sizeof *b);
        b->used = b->alive = 1;
        strncpy(b->id, id, sizeof b->id - 1);
        strncpy(b->user, user != NULL ? user : "default", sizeof b->user - 1);
        b->has_thread = thread != NULL;
        if (thread != NULL)
            strncpy(b->thread, thread, sizeof b->thread - 1);
        return b;
    }
    return NULL;
}

static char *dup_or_null(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

static void fill(sbx_sandbox *out, const mt_sandbox *b)
{
    char url[200];
    if (mt.url_base[0] != '\0')
        snprintf(url, sizeof url, "%s", mt.url_base);
    else
        snprintf(url, sizeof url, "mem://%s", b->id);
    out->sandbox_id = strdup(b->id);
    out->sandbox_url = strdup(url);
    out->user_id = strdup(b->user);
    out->thread_id = b->has_thread ? dup_or_null(b->thread) : NULL;
    out->status = strdup(b->alive ? "Running" : "Stopped");
    out->mount_contract_version = SBX_CONTRACT_NONE;
}

/* Wait while `op` is held.  Under the lock. */
static void wait_while_held(mt_op op)
{
    mt.waiting[op]++;
    pthread_cond_broadcast(&mt.changed);
    while (mt.hold[op])
        pthread_cond_wait(&mt.changed, &mt.lock);
    mt.waiting[op]--;
}

static sbx_status failing(mt_op op, const char *what, sbx_error *err)
{
    if (!mt.failing[op])
        return SBX_OK;
    pthread_mutex_unlock(&mt.lock);
    return sbx_error_set(err, SBX_ERR_TRANSPORT, "mgrtest: %s failed (injected)", what);
}

static sbx_status mt_open(const sbx_option *options, size_t n, const sbx_host_services *svc,
                          sbx_backend_instance **out, sbx_error *err)
{
    (void)options, (void)svc;
    if (n != 0)
        return sbx_error_set(err, SBX_ERR_CONFIG, "mgrtest takes no options");
    static sbx_backend_instance instance;
    pthread_mutex_lock(&mt.lock);
    memset(mt.boxes, 0, sizeof mt.boxes);
    memset(&mt.stats, 0, sizeof mt.stats);
    memset(mt.failing, 0, sizeof mt.failing);
    memset(mt.hold, 0, sizeof mt.hold);
    mt.url_base[0] = '\0';
    pthread_mutex_unlock(&mt.lock);
    *out = &instance;
    return SBX_OK;
}

static void mt_close(sbx_backend_instance *inst)
{
    (void)inst;
}

static sbx_status mt_create(sbx_backend_instance *inst, const sbx_create_request *req,
                            sbx_sandbox **out, sbx_error *err)
{
    (void)inst;
    pthread_mutex_lock(&mt.lock);
    mt.stats.creates++;
    wait_while_held(MT_CREATE);
    sbx_status st = failing(MT_CREATE, "create", err);
    if (st != SBX_OK)
        return st;
    mt_sandbox *b = find(req->sandbox_id);
    if (b == NULL)
        b = add(req->sandbox_id, req->user_id, req->thread_id);
    *out = b != NULL ? calloc(1, sizeof **out) : NULL;
    if (*out != NULL)
        fill(*out, b);
    pthread_mutex_unlock(&mt.lock);
    return *out != NULL ? SBX_OK : sbx_error_set(err, SBX_ERR_INTERNAL, "mgrtest: full");
}

static sbx_status mt_destroy(sbx_backend_instance *inst, const char *id, sbx_error *err)
{
    (void)inst;
    pthread_mutex_lock(&mt.lock);
    mt.stats.destroys++;
    wait_while_held(MT_DESTROY);
    sbx_status st = failing(MT_DESTROY, "destroy", err);
    if (st != SBX_OK)
        return st;
    mt_sandbox *b = find(id);
    if (b != NULL)
        b->used = 0;
    pthread_mutex_unlock(&mt.lock);
    return SBX_OK;
}

static sbx_status mt_is_alive(sbx_backend_instance *inst, const char *id, int *alive,
                              sbx_error *err)
{
    (void)inst;
    pthread_mutex_lock(&mt.lock);
    mt.stats.is_alive_calls++;
    wait_while_held(MT_IS_ALIVE);
    sbx_status st = failing(MT_IS_ALIVE, "is_alive", err);
    if (st != SBX_OK)
        return st;
    mt_sandbox *b = find(id);
    *alive = b != NULL && b->alive;
    pthread_mutex_unlock(&mt.lock);
    return SBX_OK;
}

static sbx_status mt_discover(sbx_backend_instance *inst, const char *id, sbx_sandbox **out,
                              sbx_error *err)
{
    (void)inst;
    pthread_mutex_lock(&mt.lock);
    mt.stats.discovers++;
    sbx_status st = failing(MT_DISCOVER, "discover", err);
    if (st != SBX_OK)
        return st;
    mt_sandbox *b = find(id);
    *out = b != NULL ? calloc(1, sizeof **out) : NULL;
    if (*out != NULL)
        fill(*out, b);
    pthread_mutex_unlock(&mt.lock);
    return *out != NULL ? SBX_OK : sbx_error_set(err, SBX_ERR_NOT_FOUND, "mgrtest: no %s", id);
}

static sbx_status mt_list(sbx_backend_instance *inst, sbx_sandbox **out, size_t *count,
                          sbx_error *err)
{
    (void)inst;
    pthread_mutex_lock(&mt.lock);
    mt.stats.lists++;
    sbx_status st = failing(MT_LIST, "list_running", err);
    if (st != SBX_OK)
        return st;
    *out = calloc(MT_SLOTS, sizeof **out);
    *count = 0;
    for (int i = 0; *out != NULL && i < MT_SLOTS; i++)
        if (mt.boxes[i].used && mt.boxes[i].alive)
            fill(&(*out)[(*count)++], &mt.boxes[i]);
    wait_while_held(MT_LIST);
    pthread_mutex_unlock(&mt.lock);
    return *out != NULL ? SBX_OK : sbx_error_set(err, SBX_ERR_INTERNAL, "mgrtest: no memory");
}

static void mt_free(sbx_sandbox *s, size_t n)
{
    for (size_t i = 0; s != NULL && i < n; i++) {
        free(s[i].sandbox_id);
        free(s[i].sandbox_url);
        free(s[i].user_id);
        free(s[i].thread_id);
        free(s[i].status);
    }
    free(s);
}

/* Processes are the test's (mt_set_processes): start is refused. */
static sbx_status mt_process_start(sbx_backend_instance *inst, const char *id,
                                   const sbx_process_request *req, sbx_process_info **out,
                                   sbx_error *err)
{
    (void)inst, (void)id, (void)req, (void)out;
    return sbx_error_set(err, SBX_ERR_REFUSED, "mgrtest: processes are set by the test");
}

static void mt_free_processes(sbx_process_info *p)
{
    while (p != NULL) {
        sbx_process_info *next = p->next;
        free(p->process_id);
        free(p->argv);
        free(p);
        p = next;
    }
}

static void mt_free_output(sbx_process_output *o)
{
    if (o != NULL)
        free(o->data);
    free(o);
}

/* One running info "p<n>" with an empty argv; NULL when out of memory. */
static sbx_process_info *running_info(int n)
{
    sbx_process_info *p = calloc(1, sizeof *p);
    char id[16];
    snprintf(id, sizeof id, "p%d", n);
    if (p == NULL || (p->process_id = strdup(id)) == NULL ||
        (p->argv = calloc(1, sizeof *p->argv)) == NULL) {
        mt_free_processes(p);
        return NULL;
    }
    p->struct_size = sizeof *p;
    p->state = SBX_PROCESS_RUNNING;
    p->started_at = p->ended_at = SBX_TIME_UNKNOWN;
    p->exit_code = -1;
    return p;
}

static sbx_status mt_process_list(sbx_backend_instance *inst, const char *id,
                                  sbx_process_info **out, size_t *count, sbx_error *err)
{
    (void)inst;
    pthread_mutex_lock(&mt.lock);
    mt.stats.process_lists++;
    sbx_status st = failing(MT_PROCESS_LIST, "process_list", err);
    if (st != SBX_OK)
        return st;
    mt_sandbox *b = find(id);
    int n = b != NULL ? b->processes : 0;
    pthread_mutex_unlock(&mt.lock);
    if (b == NULL)
        return sbx_error_set(err, SBX_ERR_NOT_FOUND, "mgrtest: no sandbox %s", id);
    for (int i = n; i >= 1; i--) {
        sbx_process_info *p = running_info(i);
        if (p == NULL) {
            mt_free_processes(*out);
            *out = NULL;
            *count = 0;
            return sbx_error_set(err, SBX_ERR_INTERNAL, "mgrtest: no memory");
        }
        p->next = *out;
        *out = p;
        (*count)++;
    }
    return SBX_OK;
}

static sbx_status mt_operations_info(sbx_backend_instance *inst, sbx_operations_info *out,
                                     sbx_error *err)
{
    (void)inst, (void)err;
    out->operations = SBX_OP_PROCESS;
    return SBX_OK;
}

static const sbx_backend_descriptor descriptor = {
    .abi_major = SBX_BACKEND_ABI_MAJOR,
    .abi_minor = SBX_BACKEND_ABI_MINOR,
    .struct_size = sizeof(sbx_backend_descriptor),
    .name = "mgrtest",
    .version = "1.0.0",
    .open = mt_open,
    .close = mt_close,
    .create = mt_create,
    .destroy = mt_destroy,
    .is_alive = mt_is_alive,
    .discover = mt_discover,
    .list_running = mt_list,
    .free_sandboxes = mt_free,
    .operations_info = mt_operations_info,
    .process_start = mt_process_start,
    .process_list = mt_process_list,
    .free_processes = mt_free_processes,
    .free_process_output = mt_free_output,
};

const sbx_backend_descriptor *mt_descriptor(void)
{
    return &descriptor;
}

mt_stats mt_get_stats(void)
{
    pthread_mutex_lock(&mt.lock);
    mt_stats s = mt.stats;
    pthread_mutex_unlock(&mt.lock);
    return s;
}

void mt_set_failing(mt_op op, int on)
{
    pthread_mutex_lock(&mt.lock);
    mt.failing[op] = on;
    pthread_mutex_unlock(&mt.lock);
}

void mt_add_running(const char *id, const char *user, const char *thread)
{
    pthread_mutex_lock(&mt.lock);
    add(id, user, thread);
    pthread_mutex_unlock(&mt.lock);
}

void mt_set_processes(const char *id, int running)
{
    pthread_mutex_lock(&mt.lock);
    mt_sandbox *b = find(id);
    if (b != NULL)
        b->processes = running;
    pthread_mutex_unlock(&mt.lock);
}

void mt_set_alive(const char *id, int alive)
{
    pthread_mutex_lock(&mt.lock);
    mt_sandbox *b = find(id);
    if (b != NULL)
        b->alive = alive;
    pthread_mutex_unlock(&mt.lock);
}

int mt_exists(const char *id)
{
    pthread_mutex_lock(&mt.lock);
    int found = find(id) != NULL;
    pthread_mutex_unlock(&mt.lock);
    return found;
}

int mt_count(void)
{
    pthread_mutex_lock(&mt.lock);
    int n = 0;
    for (int i = 0; i < MT_SLOTS; i++)
        n += mt.boxes[i].used;
    pthread_mutex_unlock(&mt.lock);
    return n;
}

void mt_hold(mt_op op, int hold)
{
    pthread_mutex_lock(&mt.lock);
    mt.hold[op] = hold;
    pthread_cond_broadcast(&mt.changed);
    pthread_mutex_unlock(&mt.lock);
}

int mt_wait_held(mt_op op, int timeout_ms)
{
    long deadline = sbx_test_now_ms() + timeout_ms;
    pthread_mutex_lock(&mt.lock);
    while (mt.waiting[op] == 0 && sbx_test_now_ms() < deadline) {
        /* The condition variable uses CLOCK_REALTIME here; the deadline is
         * re-checked on the monotonic clock after every wake-up. */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 20 * 1000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&mt.changed, &mt.lock, &until);
    }
    int waiting = mt.waiting[op] > 0;
    pthread_mutex_unlock(&mt.lock);
    return waiting;
}

void mt_set_url(const char *url)
{
    pthread_mutex_lock(&mt.lock);
    snprintf(mt.url_base, sizeof mt.url_base, "%s", url != NULL ? url : "");
    pthread_mutex_unlock(&mt.lock);
}
