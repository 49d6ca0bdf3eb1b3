/*
 * The HTTP clients of the sandboxes' AIO APIs, one per sandbox_url, kept
 * between operations so that their keep-alive connections are reused.
 * A client is found by the URL discover answered for this very operation,
 * never by a sandbox id, so which sandbox an address belongs to is still
 * asked every time (remote_endpoint.h).  Beside the transport, a client
 * keeps the home directory GET /v1/sandbox answered at its URL, with the
 * id and the incarnation (discover's incarnation_id) it was answered for:
 * a sandbox made again under the same id is a new incarnation, asked
 * again, and without an incarnation nothing is kept.  At most
 * REMOTE_SANDBOX_CLIENTS_MAX clients are kept (the least recently used
 * one not in use goes first).
 * Thread-safe: a lock guards the table and the kept homes, never held
 * during a transfer.
 */
#ifndef SBX_REMOTE_SANDBOX_CLIENTS_H
#define SBX_REMOTE_SANDBOX_CLIENTS_H

#include <sbx/backend.h>

#include "common/http_client.h"

#include <pthread.h>

/* Clients kept; more sandboxes in use at once still work, the surplus
 * clients are freed when their last call returns. */
#define REMOTE_SANDBOX_CLIENTS_MAX 16

/* One sandbox_url's client, held by the calls that use it. */
typedef struct remote_sandbox_client {
    char *url;
    common_http_client *http;
    unsigned holders;                   /* calls using it now */
    int dropped;                        /* out of the table: freed by its last holder */
    char *home_of;                      /* the sandbox id `home` was answered for; NULL: none */
    char *home_incarnation;             /* and its incarnation */
    char *home;                         /* its home directory at this URL */
    struct remote_sandbox_client *next; /* most recently used first */
} remote_sandbox_client;

/* Makes the client of `url` on first use (the caller's headers, TLS and
 * bounds); SBX_OK or the error it set. */
typedef sbx_status (*remote_client_maker)(void *ctx, const char *url, common_http_client **out,
                                          sbx_error *err);

typedef struct remote_sandbox_clients {
    pthread_mutex_t lock;
    remote_sandbox_client *head;
    size_t count;
    remote_client_maker make;
    void *make_ctx;
} remote_sandbox_clients;

/* An empty table whose clients `make` builds.  SBX_ERR_INTERNAL when the
 * lock cannot be made. */
sbx_status remote_sandbox_clients_init(remote_sandbox_clients *t, remote_client_maker make,
                                       void *make_ctx, sbx_error *err);

/* Free every client; no call may hold one. */
void remote_sandbox_clients_destroy(remote_sandbox_clients *t);

/* The client of `url`, made when the table has none, held until
 * remote_sandbox_clients_release.  The maker's error otherwise. */
sbx_status remote_sandbox_clients_acquire(remote_sandbox_clients *t, const char *url,
                                          remote_sandbox_client **out, sbx_error *err);

/* Give back a held client (NULL is accepted).  `unreachable`: a call
 * through it could not reach its address (the sandbox there is likely
 * gone), so it leaves the table and its connections close with its last
 * holder. */
void remote_sandbox_clients_release(remote_sandbox_clients *t, remote_sandbox_client *c,
                                    int unreachable);

/* One incarnation of one sandbox: whose home directory is kept. */
typedef struct remote_home_key {
    const char *sandbox_id;
    const char *incarnation;    /* discover's incarnation_id */
} remote_home_key;

/* The home directory `c` keeps for `key`, as a malloc'd copy (the
 * caller's), or NULL when it keeps none for that id and incarnation (or
 * memory ran out: the caller asks the sandbox). */
char *remote_sandbox_clients_home(remote_sandbox_clients *t, remote_sandbox_client *c,
                                  remote_home_key key);

/* Keep `home` as `key`'s home directory at `c`'s URL (all copied; nothing
 * kept when memory runs out). */
void remote_sandbox_clients_keep_home(remote_sandbox_clients *t, remote_sandbox_client *c,
                                      remote_home_key key, const char *home);

/* Forget every home kept for `sandbox_id` (its destroy through this
 * instance: whatever URL its next incarnation gets). */
void remote_sandbox_clients_forget_homes(remote_sandbox_clients *t, const char *sandbox_id);

#endif /* SBX_REMOTE_SANDBOX_CLIENTS_H */
