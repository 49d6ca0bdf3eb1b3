/* sbx-provisiond: the provisioner protocol served with an sbx backend
 * (docs/provisiond.md, sbx-provisiond(8)).  main wires the parts: the
 * configuration and backend, the ownership records, the shared server, and
 * the signals that stop it. */
#include <config.h>

#include "tools/provisioner-common/prov_cli.h"
#include "tools/provisioner-common/prov_server.h"
#include "tools/provisioner-common/prov_signals.h"
#include "tools/provisiond/provd_expiry.h"
#include "tools/provisiond/provd_options.h"
#include "tools/provisiond/provd_owners.h"
#include "tools/provisiond/provd_sandbox_api.h"
#include "tools/provisiond/provd_service.h"

#include <malloc.h>
#include <sbx/host.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "sbx-provisiond"

/* The backend selected when neither --backend nor the file names one. */
#define DEFAULT_BACKEND "local"

static const char *const level_names[] = {"error", "warning", "info", "debug"};

/* The host's log callback: one line on stderr; info and debug only with
 * --verbose. */
static void log_line(void *ctx, sbx_log_level level, const char *backend, const char *message)
{
    const int *verbose = ctx;
    if (level > SBX_LOG_WARN && !*verbose)
        return;
    fprintf(stderr, PROG ": %s: %s: %s\n", backend,
            level_names[level <= SBX_LOG_DEBUG ? level : SBX_LOG_DEBUG], message);
}

static void warn_line(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, PROG ": warning: %s\n", line);
}

static void note_line(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, PROG ": %s\n", line);
}

/* The configuration (file, then --backend and --set), the host and the
 * opened backend; on failure says why on stderr and returns 0. */
static int open_backend(const provd_options *o, const sbx_host_services *services,
                        sbx_config **config, sbx_host **host, sbx_backend **backend,
                        const char **name)
{
    sbx_error err;
    sbx_error_clear(&err);
    sbx_status st = o->config_path != NULL ? sbx_config_load_file(o->config_path, config, &err)
                                           : sbx_config_new(config, &err);
    if (st == SBX_OK && o->backend != NULL)
        st = sbx_config_set_backend(*config, o->backend, &err);
    if (st == SBX_OK) {
        *name = sbx_config_backend(*config);
        if (*name == NULL || (*name)[0] == '\0')
            *name = DEFAULT_BACKEND;
    }
    for (size_t i = 0; st == SBX_OK && i < o->setting_count; i++)
        st = sbx_config_set_option(*config, *name, o->settings[i].key, o->settings[i].value,
                                   &err);
    if (st == SBX_OK)
        st = sbx_host_new(services, host, &err);
    size_t dir_count = 0;
    const char *const *dirs = st == SBX_OK ? sbx_config_module_path(*config, &dir_count) : NULL;
    if (st == SBX_OK && dir_count > 0)
        st = sbx_host_set_module_path(*host, dirs, dir_count, &err);
    if (st == SBX_OK) {
        size_t count = 0;
        const sbx_option *options = sbx_config_backend_options(*config, *name, &count);
        st = sbx_backend_open(*host, *name, options, count, backend, &err);
    }
    if (st != SBX_OK)
        fprintf(stderr, PROG ": %s: %s\n", sbx_status_name(st), err.message);
    return st == SBX_OK;
}

/* Serve until SIGTERM or SIGINT, then drain.  Returns the exit status. */
static int serve(const provd_options *o, provd_service *svc, const char *cert_pem,
                 const char *key_pem)
{
    const prov_server_options server_options = {
        .name = PROG,
        .address = o->address,
        .port = o->port,
        .cert_pem = cert_pem,
        .key_pem = key_pem,
        .api_key = o->api_key,
        .fail_closed = 0,
        .max_body_bytes = o->max_body_bytes,
        /* every path id reaches the id check: 422 for any it refuses */
        .path_id_max = SIZE_MAX,
        .threads = o->threads,
        .idle_timeout_s = o->idle_timeout_s,
        .request_timeout_s = o->request_timeout_s,
        .max_connections = o->max_connections,
        .max_per_address = o->max_per_address,
        .verbose = o->verbose,
        /* The sandbox API on threads of its own: its execs never hold the
         * workers that answer /health and the lifecycle API. */
        .offload_prefix = svc->api != NULL ? PROVD_SANDBOX_PREFIX : NULL,
        .offload_threads = o->threads,
        .offload_share = o->sandbox_share,
        .offload_queue = o->sandbox_queue,
        /* Short local file calls on the worker: no hand-over to the pool
         * for the bulk of the API's calls. */
        .worker_bytes =
            svc->api != NULL ? provd_sandbox_api_worker_bytes(svc->backend, o->worker_file_bytes)
                             : 0,
    };
    const prov_handlers handlers = provd_service_handlers(svc);
    char why[512];
    unsigned port = 0;
    prov_server *server = prov_server_start(&server_options, &handlers, &port, why,
                                                    sizeof why);
    if (server == NULL) {
        fprintf(stderr, PROG ": %s\n", why);
        return 1;
    }
    prov_signals_serving();
    if (svc->api != NULL)
        provd_sandbox_api_listening(svc->api, cert_pem != NULL, o->address, port);
    fprintf(stderr, PROG ": backend '%s', mount contract %d, API key %s, ownership records %s%s\n",
            svc->backend_name, svc->contract, o->api_key != NULL ? "required" : "not checked",
            o->state_dir != NULL ? "in " : "in memory only", o->state_dir != NULL ? o->state_dir : "");
    if (svc->api != NULL)
        fprintf(stderr, PROG ": sandbox URLs %s%s, sandbox API key %s\n",
                o->public_url != NULL ? "under " : "under the listen address",
                o->public_url != NULL ? o->public_url : "",
                o->sandbox_api_key != NULL ? "required" : "not checked");
    else
        fprintf(stderr, PROG ": no sandbox API: backend '%s' has no sandbox operations; "
                        "sandbox URLs are the backend's\n",
                svc->backend_name);
    /* The listening line last: a client may stop the daemon as soon as it
     * reads it. */
    int v6 = strchr(o->address, ':') != NULL;
    printf(PROG " listening on %s://%s%s%s:%u\n", cert_pem != NULL ? "https" : "http",
           v6 ? "[" : "", o->address, v6 ? "]" : "", port);
    fflush(stdout);
    int signal_number = prov_signals_wait();
    fprintf(stderr, PROG ": %s: no new connections or requests; finishing the requests in "
                    "flight (at most %u ms); sandboxes keep running\n",
            strsignal(signal_number), o->drain_ms);
    unsigned stuck = 0;
    unsigned left = prov_server_stop(server, o->drain_ms, &stuck);
    if (left > 0)
        fprintf(stderr, PROG ": %u request(s) still in flight after %u ms were cut off\n", left,
                o->drain_ms);
    if (stuck > 0) {
        /* Their threads are inside backend calls that may never return:
         * the drain is a bound, so exit without them, freeing nothing they
         * use.  The backends keep their state consistent across a process
         * that ends mid-call (as across a crash). */
        fprintf(stderr, PROG ": exiting with %u request(s) still in a backend call\n", stuck);
        fflush(stdout);
        _exit(0);
    }
    return 0;
}

int main(int argc, char **argv)
{
    provd_options o;
    int status = provd_options_parse(argc, argv, &o);
    if (status != 0) {
        provd_options_clear(&o);
        return status < 0 ? 0 : status;
    }
    /* Every buffer of a MiB or more (a file answer, up to
     * --max-answer-bytes) is a mapping of its own, given back to the
     * system when freed: glibc's sliding threshold would serve later ones
     * from the arenas, which keep what they grew to. */
    mallopt(M_MMAP_THRESHOLD, 1024 * 1024);
    /* The buffers under it (a 100 KiB write's body, a read's answer) stay
     * with their arena when freed, up to 4 MiB of free top per arena,
     * rather than given back and faulted in again by the next request. */
    mallopt(M_TRIM_THRESHOLD, 4 * 1024 * 1024);
    /* Before anything that may take time (files, the backend): a stop
     * signal is honoured at every stage. */
    if (!prov_signals_start(PROG)) {
        provd_options_clear(&o);
        return 1;
    }

    char *cert_pem = NULL, *key_pem = NULL;
    sbx_config *config = NULL;
    sbx_host *host = NULL;
    sbx_backend *backend = NULL;
    provd_owners *owners = NULL;
    provd_sandbox_api *api = NULL;
    const char *name = NULL;
    const sbx_host_services services = {sizeof services, log_line, &o.verbose};
    char why[512];
    status = 1;
    if (o.tls_cert != NULL &&
        !prov_cli_read_tls(PROG, o.tls_cert, o.tls_key, &cert_pem, &key_pem)) {
        status = 2;
    } else if (open_backend(&o, &services, &config, &host, &backend, &name)) {
        owners = provd_owners_open(o.state_dir, warn_line, NULL, why, sizeof why);
        const provd_sandbox_api_options api_options = {
            backend,          owners,     o.sandbox_api_key, o.public_url,
            (int64_t)o.exec_timeout_s * 1000, o.max_answer_bytes, o.state_dir, warn_line,
            NULL};
        int wanted = owners != NULL && provd_sandbox_api_wanted(backend);
        if (wanted)
            api = provd_sandbox_api_new(&api_options, why, sizeof why);
        if (owners == NULL || (wanted && api == NULL)) {
            fprintf(stderr, PROG ": %s\n", why);
        } else {
            provd_service svc = {backend, name, owners, provd_service_contract(backend),
                                 o.mount_base, api};
            provd_expiry *reaper = provd_expiry_start(&svc, note_line, NULL, why, sizeof why);
            if (reaper == NULL)
                fprintf(stderr, PROG ": %s\n", why);
            else
                status = serve(&o, &svc, cert_pem, key_pem);
            provd_expiry_stop(reaper);
        }
    }
    provd_sandbox_api_free(api);
    provd_owners_free(owners);
    sbx_backend_close(backend);
    sbx_host_free(host);
    sbx_config_free(config);
    prov_cli_tls_free(cert_pem, key_pem);
    provd_options_clear(&o);
    return status;
}
