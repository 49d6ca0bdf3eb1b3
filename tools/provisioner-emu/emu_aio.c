/* AIO routes on local sandboxes (emu_aio.h).  A sandbox's local sandbox
 * is named by its Pod's uid, so a sandbox deleted and created again gets
 * a fresh one, as a new Pod starts from a fresh container. */
#include <config.h>

#include "tools/provisioner-emu/emu_aio.h"

#include "tools/aio-api/aio_server.h"
#include "tools/provisioner-emu/emu_alloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct emu_aio {
    sbx_host *host;
    sbx_backend *backend;
    aio_server *server;
    char *backend_dir;
    pthread_mutex_t lock;       /* guards the made list */
    char (*made)[EMU_UID_LEN + 1];  /* local sandboxes made, by uid */
    size_t made_count, made_capacity;
};

emu_aio *emu_aio_start(const emu_aio_options *options, char *why, size_t why_len)
{
    emu_aio *aio = emu_xmalloc(sizeof *aio, "the AIO sandboxes");
    memset(aio, 0, sizeof *aio);
    pthread_mutex_init(&aio->lock, NULL);
    size_t n = strlen(options->state_dir) + sizeof "/aio-sandboxes";
    aio->backend_dir = emu_xmalloc(n, "the AIO sandboxes' directory");
    snprintf(aio->backend_dir, n, "%s/aio-sandboxes", options->state_dir);
    sbx_error err;
    sbx_error_clear(&err);
    const sbx_option backend_options[] = {{"state_dir", aio->backend_dir}};
    if (mkdir(options->state_dir, 0700) != 0 && access(options->state_dir, W_OK) != 0) {
        snprintf(why, why_len, "--aio: cannot use the state directory %s", options->state_dir);
    } else if (sbx_host_new(NULL, &aio->host, &err) != SBX_OK ||
               sbx_backend_open(aio->host, "local", backend_options, 1, &aio->backend, &err) !=
                   SBX_OK) {
        snprintf(why, why_len, "--aio: %s", err.message);
    } else {
        const aio_server_options server_options = {
            .backend = aio->backend,
            .api_key = options->api_key,
            .request_log = options->request_log,
            .version = "sbx-provisioner-emu " PACKAGE_VERSION,
        };
        aio->server = aio_server_new(&server_options, why, why_len);
    }
    if (aio->server == NULL) {
        emu_aio_stop(aio);
        return NULL;
    }
    return aio;
}

void emu_aio_publish(emu_store *store, int https, const char *host, unsigned port)
{
    char base[512];
    snprintf(base, sizeof base, "%s://%s:%u" EMU_AIO_PREFIX, https ? "https" : "http", host,
             port);
    emu_store_set_url_base(store, base);
}

/* Make local sandbox `uid` unless it was made already.  SBX_OK, or the
 * backend's error. */
static sbx_status ensure_made(emu_aio *aio, const char *uid, sbx_error *err)
{
    pthread_mutex_lock(&aio->lock);
    for (size_t i = 0; i < aio->made_count; i++) {
        if (strcmp(aio->made[i], uid) == 0) {
            pthread_mutex_unlock(&aio->lock);
            return SBX_OK;
        }
    }
    pthread_mutex_unlock(&aio->lock);
    /* Two first requests may both create: the backend returns the
     * existing sandbox to the second. */
    sbx_create_request request = SBX_CREATE_REQUEST_INIT;
    request.sandbox_id = uid;
    sbx_sandbox *made = NULL;
    sbx_status st = sbx_backend_create(aio->backend, &request, &made, err);
    if (st != SBX_OK)
        return st;
    sbx_backend_free_sandboxes(aio->backend, made, 1);
    pthread_mutex_lock(&aio->lock);
    size_t i = 0;
    while (i < aio->made_count && strcmp(aio->made[i], uid) != 0)
        i++;
    if (i == aio->made_count) {
        if (aio->made_count == aio->made_capacity) {
            size_t capacity = aio->made_capacity == 0 ? 16 : aio->made_capacity * 2;
            char(*grown)[EMU_UID_LEN + 1] =
                emu_xmalloc(capacity * sizeof *aio->made, "the AIO sandbox list");
            if (aio->made_count > 0)
                memcpy(grown, aio->made, aio->made_count * sizeof *aio->made);
            free(aio->made);
            aio->made = grown;
            aio->made_capacity = capacity;
        }
        memcpy(aio->made[aio->made_count++], uid, EMU_UID_LEN + 1);
    }
    pthread_mutex_unlock(&aio->lock);
    return SBX_OK;
}

int emu_aio_answer(emu_aio *aio, emu_store *store, const prov_request *req, prov_reply *reply)
{
    size_t prefix = strlen(EMU_AIO_PREFIX);
    if (strncmp(req->path, EMU_AIO_PREFIX, prefix) != 0)
        return 0;
    const char *id_start = req->path + prefix;
    size_t id_len = strcspn(id_start, "/");
    char *id = emu_xmalloc(id_len + 1, "a sandbox id");
    memcpy(id, id_start, id_len);
    id[id_len] = '\0';
    char uid[EMU_UID_LEN + 1];
    int serves = id_len > 0 && emu_store_serves(store, id, uid);
    free(id);
    sbx_error err;
    sbx_error_clear(&err);
    if (serves && ensure_made(aio, uid, &err) != SBX_OK) {
        prov_reply_detail(reply, 500, err.message);
        return 1;
    }
    aio_server_answer(aio->server, serves ? uid : NULL, id_start + id_len, req, reply);
    return 1;
}

void emu_aio_sandbox_gone(emu_aio *aio, const char *uid)
{
    if (aio == NULL)
        return;
    int made = 0;
    pthread_mutex_lock(&aio->lock);
    for (size_t i = 0; !made && i < aio->made_count; i++) {
        if (strcmp(aio->made[i], uid) == 0) {
            memmove(aio->made[i], aio->made[aio->made_count - 1], EMU_UID_LEN + 1);
            aio->made_count--;
            made = 1;
        }
    }
    pthread_mutex_unlock(&aio->lock);
    aio_server_sandbox_gone(aio->server, uid);
    if (made) {
        sbx_error err;
        sbx_backend_destroy(aio->backend, uid, &err);
    }
}

void emu_aio_stop(emu_aio *aio)
{
    if (aio == NULL)
        return;
    for (size_t i = 0; i < aio->made_count; i++) {
        sbx_error err;
        sbx_backend_destroy(aio->backend, aio->made[i], &err);
    }
    aio_server_free(aio->server);
    sbx_backend_close(aio->backend);
    sbx_host_free(aio->host);
    free(aio->made);
    free(aio->backend_dir);
    pthread_mutex_destroy(&aio->lock);
    free(aio);
}
