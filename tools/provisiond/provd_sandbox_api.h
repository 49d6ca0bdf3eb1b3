/* The AIO sandbox API of sbx-provisiond's sandboxes (docs/provisiond.md,
 * "The sandbox API"): each sandbox the daemon creates gets a capability
 * token, its sandbox_url is BASE/s/TOKEN (BASE: --public-url, else the
 * listen address), and the AIO routes under it
 * (tools/aio-api/aio_server.h) run as the backend's sandbox
 * operations on that sandbox only.  The token is the only thing that
 * names the sandbox there: a wrong, short or destroyed one answers 404
 * and touches nothing.  Tokens are never logged.  Thread-safe. */
#ifndef SBX_PROVD_SANDBOX_API_H
#define SBX_PROVD_SANDBOX_API_H

#include <stddef.h>
#include <stdint.h>
#include <sbx/host.h>

#include "tools/provisioner-common/prov_reply.h"
#include "tools/provisioner-common/prov_server.h"
#include "tools/provisiond/provd_owners.h"

/* The path prefix of the sandbox API: /s/TOKEN/v1/... */
#define PROVD_SANDBOX_PREFIX "/s/"

/* A token: 256 bits from getrandom(), as lowercase hex. */
#define PROVD_TOKEN_LEN 64

/* The longest sandbox_url: --public-url is refused beyond PROVD_BASE_MAX. */
#define PROVD_BASE_MAX 1024
#define PROVD_URL_MAX (PROVD_BASE_MAX + sizeof PROVD_SANDBOX_PREFIX + PROVD_TOKEN_LEN)

typedef struct provd_sandbox_api provd_sandbox_api;

/* What the API serves with.  Pointers are borrowed and must outlive it. */
typedef struct provd_sandbox_api_options {
    sbx_backend *backend;
    provd_owners *owners;       /* where the tokens are kept */
    const char *api_key;        /* --sandbox-api-key (NULL: none): X-AIO-API-Key */
    const char *public_url;     /* --public-url (NULL: the listen address) */
    int64_t exec_timeout_ms;    /* --exec-timeout: an exec without hard_timeout */
    size_t max_answer_bytes;    /* --max-answer-bytes */
    const char *state_dir;      /* --state-dir (NULL: none): where the AIO bash
                                 * sessions are kept (provd_bash_store.h) */
    void (*warn)(void *, const char *); /* told what cannot be kept there */
    void *warn_ctx;
} provd_sandbox_api_options;

/* Whether the daemon serves the API over `backend`: it reports sandbox
 * operations (ABI 1.3).  A backend without them (a module built for an
 * older ABI, or one whose operations are still to come) keeps its own
 * sandbox_url: its sandbox may serve the AIO API itself. */
int provd_sandbox_api_wanted(sbx_backend *backend);

/* The bytes a file call of the API may move on the HTTP worker that read
 * it (prov_server_options.worker_bytes): `asked` (--worker-file-bytes)
 * when the backend's file calls are local system calls
 * (sbx_operations_info.file_calls_local), else 0: each goes to the pool,
 * as a network or container call may take long. */
size_t provd_sandbox_api_worker_bytes(sbx_backend *backend, size_t asked);

/* The API, with the bash sessions kept in options->state_dir loaded
 * (those of sandboxes gone dropped), or NULL with the reason in `why`
 * (`why_len` bytes). */
provd_sandbox_api *provd_sandbox_api_new(const provd_sandbox_api_options *options, char *why,
                                         size_t why_len);

/* Free it.  NULL is accepted. */
void provd_sandbox_api_free(provd_sandbox_api *api);

/* The daemon listens on ADDRESS:PORT (numeric; https when `https`): the
 * URLs' base unless --public-url gave one.  Called once the port is
 * bound, before the listening line tells clients where it is. */
void provd_sandbox_api_listening(provd_sandbox_api *api, int https, const char *address,
                                 unsigned port);

/* A fresh token in `out` (PROVD_TOKEN_LEN + 1 bytes).  Returns 1, or 0
 * when the kernel gives no random bytes. */
int provd_sandbox_token_new(char *out);

/* The sandbox_url of `token` into `out` (PROVD_URL_MAX bytes). */
void provd_sandbox_api_url(provd_sandbox_api *api, const char *token, char *out);

/* Answer `req` when its path is under PROVD_SANDBOX_PREFIX (returns 1):
 * the AIO route on the sandbox its token names (404 {"detail":...} when
 * none does; 401 without the --sandbox-api-key).  Returns 0 for other
 * paths. */
int provd_sandbox_api_answer(provd_sandbox_api *api, const prov_request *req,
                             prov_reply *reply);

/* The backend destroyed `sandbox_id`: what the API keeps of it (its shell
 * and bash sessions, the latter's file too) goes.  NULL `api` is
 * accepted. */
void provd_sandbox_api_sandbox_gone(provd_sandbox_api *api, const char *sandbox_id);

#endif
