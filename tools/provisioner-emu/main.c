/* sbx-provisioner-emu: a stand-in for the DeerFlow provisioner that tests
 * and demos run on 127.0.0.1, with a control API to script its answers.
 * See docs/emulator.md; the command line is read by emu_options.c. */
#include <config.h>

#include "tools/provisioner-emu/emu_context.h"
#include "tools/provisioner-emu/emu_options.h"
#include "tools/provisioner-common/prov_server.h"
#include "tools/provisioner-emu/emu_server.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The PEM file of `option` as a new string, or NULL after saying on
 * stderr why it cannot be read. */
static char *read_pem_file(const char *option, const char *path)
{
    char why[512];
    char *text = prov_read_pem(path, why, sizeof why);
    if (text == NULL)
        fprintf(stderr, "sbx-provisioner-emu: %s %s\n", option, why);
    return text;
}

int main(int argc, char **argv)
{
    emu_options o;
    int status = emu_parse_options(argc, argv, &o);
    if (status != 0)
        return status < 0 ? 0 : status;

    emu_tls tls = {NULL, NULL};
    char *cert_pem = NULL, *key_pem = NULL;
    if (o.tls_cert != NULL) {
        cert_pem = read_pem_file("--tls-cert", o.tls_cert);
        key_pem = cert_pem != NULL ? read_pem_file("--tls-key", o.tls_key) : NULL;
        if (key_pem == NULL) {
            free(cert_pem);
            return 2;
        }
        tls.cert_pem = cert_pem;
        tls.key_pem = key_pem;
    }

    /* Every thread (MHD's too) inherits this mask; main takes the signals. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
    signal(SIGPIPE, SIG_IGN);

    emu_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.api_key = o.api_key;
    ctx.fail_closed = o.fail_closed;
    ctx.state_dir = o.state_dir;
    ctx.verbose = o.verbose;
    emu_contract_settings startup = {o.contract, o.capabilities_route,
                                         o.reconciliation_route};
    emu_contract_init(&ctx.contract, &startup);
    ctx.store = emu_store_new(o.node_host, o.initial_status, o.pending_ms);
    ctx.faults = emu_faults_new();
    ctx.log = emu_request_log_new();
    emu_uid_generate(ctx.namespace_uid);

    char why[256];
    const emu_aio_options aio = {o.state_dir, o.aio_api_key, o.aio_request_log};
    if (o.aio && (ctx.aio = emu_aio_start(&aio, why, sizeof why)) == NULL) {
        fprintf(stderr, "sbx-provisioner-emu: %s\n", why);
        status = 1;
    }
    unsigned port = 0;
    emu_server *server = NULL;
    if (status == 0 && (server = emu_server_start(&ctx, o.port, cert_pem != NULL ? &tls : NULL,
                                                  &port, why, sizeof why)) == NULL) {
        fprintf(stderr, "sbx-provisioner-emu: %s\n", why);
        status = 1;
    } else if (server != NULL) {
        if (ctx.aio != NULL)
            emu_aio_publish(ctx.store, cert_pem != NULL, o.node_host, port);
        printf("sbx-provisioner-emu listening on %s://127.0.0.1:%u\n",
               cert_pem != NULL ? "https" : "http", port);
        fflush(stdout);
        if (o.verbose)
            fprintf(stderr, "sbx-provisioner-emu: contract %d, namespace %s, key %s\n",
                    o.contract, ctx.namespace_uid,
                    o.api_key != NULL ? "required" : o.fail_closed ? "none: /api/ refused" : "not checked");
        int signal_number = 0;
        sigwait(&stop_signals, &signal_number);
        emu_server_stop(server);
    }
    emu_aio_stop(ctx.aio);
    emu_request_log_free(ctx.log);
    emu_faults_free(ctx.faults);
    emu_store_free(ctx.store);
    emu_contract_destroy(&ctx.contract);
    /* The key is a secret: do not leave it in freed memory. */
    if (key_pem != NULL)
        memset(key_pem, 0, strlen(key_pem));
    free(key_pem);
    free(cert_pem);
    return status;
}
