/* Connection tracking: deadlines, the cap, and the cut at a drain's end. */
#include <config.h>

#include "tools/provisioner-common/prov_conns.h"

#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_shown.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* What a request stuck in the handler at a drain's end is answered, written
 * straight to its socket: the HTTP library has sent nothing on it yet. */
static const char shutting_down_answer[] =
    "HTTP/1.1 503 Service Unavailable\r\n"
    "Content-Type: application/json\r\n"
    "Content-Length: 40\r\n"
    "Connection: close\r\n"
    "\r\n"
    "{\"detail\":\"the server is shutting down\"}";

typedef enum conn_phase {
    PHASE_READING,      /* waiting for (the rest of) a request */
    PHASE_ANSWERING,    /* the request is in the program's handler */
    PHASE_SENDING,      /* the answer is queued */
} conn_phase;

struct prov_conn {
    prov_conn *prev, *next;
    int fd;
    conn_phase phase;
    long reading_since_ms;  /* the request deadline counts from here */
    int begun;              /* its headers were accepted */
    int cut;                /* shut down by the tracker */
    char what[128];         /* "METHOD /path" of the request begun, as shown */
};

struct prov_conns {
    pthread_mutex_t lock;
    pthread_cond_t changed;     /* a deadline may have moved, or quit */
    prov_conn *head;        /* oldest first: the order they arrived in */
    prov_conn *tail;
    unsigned live;              /* tracked and not cut (those are on their way out) */
    unsigned max_connections;
    unsigned request_timeout_ms;
    int tls;
    int closing;                /* a drain ended: nothing enters the handler */
    int quit;
    int idle;                   /* the deadline thread waits with no deadline */
    int has_thread;
    pthread_t thread;
};

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Lock held.  The socket stays open (the HTTP library closes it when it
 * sees the end), so its number cannot be reused under another entry. */
static void cut(prov_conns *conns, prov_conn *c)
{
    if (c->cut)
        return;
    c->cut = 1;
    conns->live--;
    shutdown(c->fd, SHUT_RDWR);
}

/* Cuts the requests past their deadline and returns when the next one
 * falls due (-1: none pending).  Lock held. */
static long cut_overdue(prov_conns *conns, long now)
{
    long next = -1;
    for (prov_conn *c = conns->head; c != NULL; c = c->next) {
        if (c->phase != PHASE_READING || c->cut)
            continue;
        long due = c->reading_since_ms + (long)conns->request_timeout_ms;
        if (due <= now)
            cut(conns, c);
        else if (next < 0 || due < next)
            next = due;
    }
    return next;
}

static void *deadline_main(void *arg)
{
    prov_conns *conns = arg;
    pthread_mutex_lock(&conns->lock);
    while (!conns->quit) {
        long next = cut_overdue(conns, now_ms());
        if (next < 0) {
            conns->idle = 1;
            pthread_cond_wait(&conns->changed, &conns->lock);
            conns->idle = 0;
            continue;
        }
        struct timespec until = {next / 1000, (next % 1000) * 1000000L};
        pthread_cond_timedwait(&conns->changed, &conns->lock, &until);
    }
    pthread_mutex_unlock(&conns->lock);
    return NULL;
}

prov_conns *prov_conns_new(unsigned max_connections, unsigned request_timeout_ms, int tls)
{
    prov_conns *conns = prov_malloc(sizeof *conns);
    if (conns == NULL)
        return NULL;
    memset(conns, 0, sizeof *conns);
    conns->max_connections = max_connections;
    conns->request_timeout_ms = request_timeout_ms;
    conns->tls = tls;
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_mutex_init(&conns->lock, NULL);
    pthread_cond_init(&conns->changed, &monotonic);
    pthread_condattr_destroy(&monotonic);
    if (request_timeout_ms > 0) {
        conns->has_thread = pthread_create(&conns->thread, NULL, deadline_main, conns) == 0;
        if (!conns->has_thread) {
            prov_conns_free(conns);
            return NULL;
        }
    }
    return conns;
}

void prov_conns_free(prov_conns *conns)
{
    if (conns == NULL)
        return;
    pthread_mutex_lock(&conns->lock);
    conns->quit = 1;
    pthread_cond_broadcast(&conns->changed);
    pthread_mutex_unlock(&conns->lock);
    if (conns->has_thread)
        pthread_join(conns->thread, NULL);
    while (conns->head != NULL) {
        prov_conn *c = conns->head;
        conns->head = c->next;
        free(c);
    }
    pthread_cond_destroy(&conns->changed);
    pthread_mutex_destroy(&conns->lock);
    free(conns);
}

/* Lock held: wake the deadline thread for a connection that starts
 * reading now.  Its deadline is the latest of all (every one is the same
 * timeout after a start), so a thread waiting for an earlier one needs no
 * wake: only an idle one does.  A wake per request would cost the daemon a
 * context switch per request. */
static void reading_started(prov_conns *conns)
{
    if (conns->idle)
        pthread_cond_signal(&conns->changed);
}

/* Lock held: the connection to shut down for a newcomer over the cap. */
static prov_conn *displaced(prov_conns *conns, prov_conn *newcomer)
{
    for (prov_conn *c = conns->head; c != NULL && c != newcomer; c = c->next)
        if (c->phase == PHASE_READING && !c->begun && !c->cut)
            return c;
    return newcomer;
}

prov_conn *prov_conns_add(prov_conns *conns, int fd)
{
    prov_conn *c = prov_malloc(sizeof *c);
    if (c == NULL) {
        shutdown(fd, SHUT_RDWR);
        return NULL;
    }
    memset(c, 0, sizeof *c);
    c->fd = fd;
    c->phase = PHASE_READING;
    c->reading_since_ms = now_ms();
    pthread_mutex_lock(&conns->lock);
    c->prev = conns->tail;
    if (conns->tail != NULL)
        conns->tail->next = c;
    else
        conns->head = c;
    conns->tail = c;
    conns->live++;
    if (conns->max_connections > 0 && conns->live > conns->max_connections)
        cut(conns, displaced(conns, c));
    if (conns->closing)
        cut(conns, c);
    reading_started(conns);
    pthread_mutex_unlock(&conns->lock);
    return c;
}

void prov_conns_remove(prov_conns *conns, prov_conn *conn)
{
    if (conn == NULL)
        return;
    pthread_mutex_lock(&conns->lock);
    if (conn->prev != NULL)
        conn->prev->next = conn->next;
    else
        conns->head = conn->next;
    if (conn->next != NULL)
        conn->next->prev = conn->prev;
    else
        conns->tail = conn->prev;
    if (!conn->cut)
        conns->live--;
    pthread_mutex_unlock(&conns->lock);
    free(conn);
}

void prov_conns_begun(prov_conns *conns, prov_conn *conn, const char *method,
                          const char *path)
{
    if (conn == NULL)
        return;
    pthread_mutex_lock(&conns->lock);
    conn->begun = 1;
    /* Named as the drain reports it: tokens masked (prov_shown.h). */
    prov_shown_request(method, path, conn->what, sizeof conn->what);
    pthread_mutex_unlock(&conns->lock);
}

int prov_conns_answering(prov_conns *conns, prov_conn *conn)
{
    pthread_mutex_lock(&conns->lock);
    int go_on = !conns->closing;
    if (conn != NULL)
        conn->phase = go_on ? PHASE_ANSWERING : PHASE_SENDING;
    pthread_mutex_unlock(&conns->lock);
    return go_on;
}

int prov_conns_answered(prov_conns *conns, prov_conn *conn)
{
    if (conn == NULL)
        return 1;
    pthread_mutex_lock(&conns->lock);
    conn->phase = PHASE_SENDING;
    int send = !conn->cut;
    pthread_mutex_unlock(&conns->lock);
    return send;
}

void prov_conns_completed(prov_conns *conns, prov_conn *conn)
{
    if (conn == NULL)
        return;
    pthread_mutex_lock(&conns->lock);
    conn->phase = PHASE_READING;
    conn->begun = 0;
    conn->reading_since_ms = now_ms();
    reading_started(conns);
    pthread_mutex_unlock(&conns->lock);
}

/* Best effort on a non-blocking socket: the answer is far smaller than a
 * socket buffer, and a client that cannot take it gets its EOF. */
static void write_answer(int fd)
{
    size_t done = 0;
    while (done < sizeof shutting_down_answer - 1) {
        ssize_t n = send(fd, shutting_down_answer + done, sizeof shutting_down_answer - 1 - done,
                         MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += (size_t)n;
    }
}

unsigned prov_conns_cut_answering(prov_conns *conns,
                                      void (*report)(void *ctx, const char *what), void *ctx)
{
    unsigned answering = 0;
    pthread_mutex_lock(&conns->lock);
    conns->closing = 1;
    for (prov_conn *c = conns->head; c != NULL; c = c->next) {
        if (c->phase != PHASE_ANSWERING)
            continue;
        answering++;
        if (!c->cut && !conns->tls)
            write_answer(c->fd);
        cut(conns, c);
        report(ctx, c->what);
    }
    pthread_mutex_unlock(&conns->lock);
    return answering;
}
