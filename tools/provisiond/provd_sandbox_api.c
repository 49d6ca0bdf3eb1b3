/* The sandbox API: tokens, URLs and the /s/TOKEN routes
 * (provd_sandbox_api.h). */
#include <config.h>

#include "tools/provisiond/provd_sandbox_api.h"

#include "common/random_bytes.h"
#include "common/sandbox_ids.h"
#include "tools/aio-api/aio_server.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisiond/provd_bash_store.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct provd_sandbox_api {
    provd_sandbox_api_options options;
    aio_server *server;
    provd_bash_store *bash_store; /* NULL: no --state-dir */
    pthread_mutex_t lock;       /* guards base (set once the port is known) */
    char base[PROVD_BASE_MAX + 1];
};

/* The backend's operations_info (all 0 when it reports none). */
static sbx_operations_info operations_of(sbx_backend *backend)
{
    sbx_operations_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    sbx_error err;
    if (sbx_backend_operations_info(backend, &info, &err) != SBX_OK) {
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
    }
    return info;
}

int provd_sandbox_api_wanted(sbx_backend *backend)
{
    return operations_of(backend).operations != 0;
}

size_t provd_sandbox_api_worker_bytes(sbx_backend *backend, size_t asked)
{
    return operations_of(backend).file_calls_local ? asked : 0;
}

/* Whether kept bash sessions of `sandbox_id` are still of a sandbox the
 * API reaches (provd_bash_store_load's `exists`): its record has a token
 * and the backend does not call it gone. */
static int sandbox_there(void *ctx, const char *sandbox_id)
{
    const provd_sandbox_api *api = ctx;
    provd_record record;
    int known = provd_owners_get(api->options.owners, sandbox_id, &record);
    int token = known == 1 && record.token != NULL;
    provd_record_clear(&record);
    if (known == PROVD_RECORD_UNREADABLE || known < 0)
        return -1;
    if (!token)
        return 0;
    sbx_sandbox *found = NULL;
    sbx_error err;
    sbx_status st = sbx_backend_discover(api->options.backend, sandbox_id, &found, &err);
    sbx_backend_free_sandboxes(api->options.backend, found, found != NULL ? 1 : 0);
    /* Another failure (an engine down a moment) does not say it is gone. */
    return st != SBX_ERR_NOT_FOUND;
}

provd_sandbox_api *provd_sandbox_api_new(const provd_sandbox_api_options *options, char *why,
                                         size_t why_len)
{
    provd_sandbox_api *api = prov_malloc(sizeof *api);
    if (api == NULL) {
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    memset(api, 0, sizeof *api);
    api->options = *options;
    if (options->public_url != NULL) {
        size_t len = strlen(options->public_url);
        /* BASE/ and BASE name the same place: one slash before "s/". */
        while (len > 0 && options->public_url[len - 1] == '/')
            len--;
        if (len > PROVD_BASE_MAX) {
            snprintf(why, why_len, "--public-url is longer than %d bytes", PROVD_BASE_MAX);
            free(api);
            return NULL;
        }
        memcpy(api->base, options->public_url, len);
    }
    if (options->state_dir != NULL) {
        api->bash_store = provd_bash_store_new(options->state_dir, options->warn,
                                               options->warn_ctx);
        if (api->bash_store == NULL) {
            snprintf(why, why_len, "out of memory");
            free(api);
            return NULL;
        }
    }
    const aio_server_options server_options = {
        options->backend,          options->api_key,         NULL,
        "sbx-provisiond " PACKAGE_VERSION, options->exec_timeout_ms, options->max_answer_bytes,
        api->bash_store != NULL ? provd_bash_store_hook(api->bash_store) : NULL};
    api->server = aio_server_new(&server_options, why, why_len);
    if (api->server == NULL) {
        provd_bash_store_free(api->bash_store);
        free(api);
        return NULL;
    }
    if (api->bash_store != NULL)
        provd_bash_store_load(api->bash_store, api->server, sandbox_there, api);
    pthread_mutex_init(&api->lock, NULL);
    return api;
}

void provd_sandbox_api_free(provd_sandbox_api *api)
{
    if (api == NULL)
        return;
    aio_server_free(api->server);
    provd_bash_store_free(api->bash_store);
    pthread_mutex_destroy(&api->lock);
    free(api);
}

void provd_sandbox_api_listening(provd_sandbox_api *api, int https, const char *address,
                                 unsigned port)
{
    if (api->options.public_url != NULL)
        return;
    int v6 = strchr(address, ':') != NULL;
    pthread_mutex_lock(&api->lock);
    snprintf(api->base, sizeof api->base, "%s://%s%s%s:%u", https ? "https" : "http",
             v6 ? "[" : "", address, v6 ? "]" : "", port);
    pthread_mutex_unlock(&api->lock);
}

int provd_sandbox_token_new(char *out)
{
    unsigned char bytes[PROVD_TOKEN_LEN / 2];
    if (common_random_bytes(bytes, sizeof bytes) != 0)
        return 0;
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof bytes; i++) {
        out[2 * i] = hex[bytes[i] >> 4];
        out[2 * i + 1] = hex[bytes[i] & 15];
    }
    out[PROVD_TOKEN_LEN] = '\0';
    return 1;
}

void provd_sandbox_api_url(provd_sandbox_api *api, const char *token, char *out)
{
    pthread_mutex_lock(&api->lock);
    snprintf(out, PROVD_URL_MAX, "%s" PROVD_SANDBOX_PREFIX "%s", api->base, token);
    pthread_mutex_unlock(&api->lock);
}

int provd_sandbox_api_answer(provd_sandbox_api *api, const prov_request *req,
                             prov_reply *reply)
{
    size_t prefix = strlen(PROVD_SANDBOX_PREFIX);
    if (strncmp(req->path, PROVD_SANDBOX_PREFIX, prefix) != 0)
        return 0;
    const char *token_start = req->path + prefix;
    size_t token_len = strcspn(token_start, "/");
    char token[PROVD_TOKEN_LEN + 1];
    char id[COMMON_SANDBOX_ID_MAX + 1];
    int found = 0;
    /* Only a token's shape is looked up; its bytes never reach a log or an
     * answer. */
    if (token_len == PROVD_TOKEN_LEN) {
        memcpy(token, token_start, token_len);
        token[token_len] = '\0';
        found = provd_owners_find_token(api->options.owners, token, id, sizeof id) == 1;
    }
    aio_server_answer(api->server, found ? id : NULL, token_start + token_len, req, reply);
    return 1;
}

void provd_sandbox_api_sandbox_gone(provd_sandbox_api *api, const char *sandbox_id)
{
    if (api != NULL)
        aio_server_sandbox_gone(api->server, sandbox_id);
}
