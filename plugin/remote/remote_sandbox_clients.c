/* The sandboxes' AIO clients, kept by URL (see remote_sandbox_clients.h). */
#include <config.h>

#include "plugin/remote/remote_sandbox_clients.h"

#include <sbx/backend_support.h>

#include <stdlib.h>
#include <string.h>

/* Drop the home `c` keeps (the lock held, or `c` no one else's). */
static void drop_home(remote_sandbox_client *c)
{
    free(c->home_of);
    free(c->home_incarnation);
    free(c->home);
    c->home_of = c->home_incarnation = c->home = NULL;
}

static void free_client(remote_sandbox_client *c)
{
    drop_home(c);
    common_http_client_free(c->http);
    free(c->url);
    free(c);
}

sbx_status remote_sandbox_clients_init(remote_sandbox_clients *t, remote_client_maker make,
                                       void *make_ctx, sbx_error *err)
{
    memset(t, 0, sizeof *t);
    t->make = make;
    t->make_ctx = make_ctx;
    if (pthread_mutex_init(&t->lock, NULL) != 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot create a mutex");
    return SBX_OK;
}

void remote_sandbox_clients_destroy(remote_sandbox_clients *t)
{
    for (remote_sandbox_client *c = t->head, *next; c != NULL; c = next) {
        next = c->next;
        free_client(c);
    }
    t->head = NULL;
    t->count = 0;
    pthread_mutex_destroy(&t->lock);
}

/* Take `c` out of the list (the lock held); it is freed by its last holder,
 * or here when it has none. */
static void unlink_client(remote_sandbox_clients *t, remote_sandbox_client *c)
{
    for (remote_sandbox_client **p = &t->head; *p != NULL; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            t->count--;
            c->dropped = 1;
            if (c->holders == 0)
                free_client(c);
            return;
        }
    }
}

/* While over the bound: the least recently used client no call holds goes
 * (the lock held). */
static void trim(remote_sandbox_clients *t)
{
    while (t->count > REMOTE_SANDBOX_CLIENTS_MAX) {
        remote_sandbox_client *idle = NULL;
        for (remote_sandbox_client *c = t->head; c != NULL; c = c->next)
            if (c->holders == 0)
                idle = c;
        if (idle == NULL)
            return; /* every one is in use: the last release trims */
        unlink_client(t, idle);
    }
}

sbx_status remote_sandbox_clients_acquire(remote_sandbox_clients *t, const char *url,
                                          remote_sandbox_client **out, sbx_error *err)
{
    *out = NULL;
    sbx_status st = SBX_OK;
    pthread_mutex_lock(&t->lock);
    remote_sandbox_client **p = &t->head;
    while (*p != NULL && strcmp((*p)->url, url) != 0)
        p = &(*p)->next;
    remote_sandbox_client *c = *p;
    if (c != NULL) {
        *p = c->next; /* to the front: most recently used */
    } else {
        /* Made under the lock: a client is memory and libcurl settings, no
         * I/O, and two threads must not make two clients of one URL. */
        c = calloc(1, sizeof *c);
        if (c == NULL || (c->url = strdup(url)) == NULL) {
            free(c);
            c = NULL;
            st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        } else if ((st = t->make(t->make_ctx, url, &c->http, err)) != SBX_OK) {
            free_client(c);
            c = NULL;
        } else {
            t->count++;
        }
    }
    if (c != NULL) {
        c->next = t->head;
        t->head = c;
        c->holders++;
        trim(t);
    }
    pthread_mutex_unlock(&t->lock);
    *out = c;
    return st;
}

void remote_sandbox_clients_release(remote_sandbox_clients *t, remote_sandbox_client *c,
                                    int unreachable)
{
    if (c == NULL)
        return;
    pthread_mutex_lock(&t->lock);
    c->holders--;
    if (c->dropped) {
        if (c->holders == 0)
            free_client(c);
    } else if (unreachable) {
        unlink_client(t, c);
    } else {
        trim(t);
    }
    pthread_mutex_unlock(&t->lock);
}

char *remote_sandbox_clients_home(remote_sandbox_clients *t, remote_sandbox_client *c,
                                  remote_home_key key)
{
    pthread_mutex_lock(&t->lock);
    char *home = c->home_of != NULL && strcmp(c->home_of, key.sandbox_id) == 0 &&
                         strcmp(c->home_incarnation, key.incarnation) == 0
                     ? strdup(c->home)
                     : NULL;
    pthread_mutex_unlock(&t->lock);
    return home;
}

void remote_sandbox_clients_keep_home(remote_sandbox_clients *t, remote_sandbox_client *c,
                                      remote_home_key key, const char *home)
{
    char *id = strdup(key.sandbox_id), *incarnation = strdup(key.incarnation);
    char *dir = strdup(home);
    pthread_mutex_lock(&t->lock);
    drop_home(c);
    if (id != NULL && incarnation != NULL && dir != NULL) {
        c->home_of = id;
        c->home_incarnation = incarnation;
        c->home = dir;
        id = incarnation = dir = NULL;
    }
    pthread_mutex_unlock(&t->lock);
    free(id);
    free(incarnation);
    free(dir);
}

void remote_sandbox_clients_forget_homes(remote_sandbox_clients *t, const char *sandbox_id)
{
    pthread_mutex_lock(&t->lock);
    for (remote_sandbox_client *c = t->head; c != NULL; c = c->next)
        if (c->home_of != NULL && strcmp(c->home_of, sandbox_id) == 0)
            drop_home(c);
    pthread_mutex_unlock(&t->lock);
}
