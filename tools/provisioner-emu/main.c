/* sbx-provisioner-emu: a stand-in for the DeerFlow provisioner that tests
 * and demos run on 127.0.0.1, with a control API to script its answers.
 * See docs/emulator.md; the command line is read by emu_options.c. */
#include <config.h>

#include "tools/provisioner-common/prov_cli.h"
#include "tools/provisioner-common/prov_signals.h"
#include "tools/provisioner-emu/emu_context.h"
#include "tools/provisioner-emu/emu_options.h"
#include "tools/provisioner-emu/emu_server.h"

#include <stdio.h>
#include <string.h>

#define PROG "sbx-provisioner-emu"

int main(int argc, char **argv)
{
    emu_options o;
    int status = emu_parse_options(argc, argv, &o);
    if (status != 0) {
        emu_options_clear(&o);
        return status < 0 ? 0 : status;
    }

    /* Before any other thread (MHD's): they inherit the signal mask. */
    if (!prov_signals_start(PROG)) {
        emu_options_clear(&o);
        return 1;
    }
    char *cert_pem = NULL, *key_pem = NULL;
    if (o.tls_cert != NULL && !prov_cli_read_tls(PROG, o.tls_cert, o.tls_key, &cert_pem, &key_pem)) {
        emu_options_clear(&o);
        return 2;
    }
    emu_tls tls = {cert_pem, key_pem};

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
        fprintf(stderr, PROG ": %s\n", why);
        status = 1;
    }
    unsigned port = 0;
    emu_server *server = NULL;
    if (status == 0 && (server = emu_server_start(&ctx, o.port, cert_pem != NULL ? &tls : NULL,
                                                  &port, why, sizeof why)) == NULL) {
        fprintf(stderr, PROG ": %s\n", why);
        status = 1;
    } else if (server != NULL) {
        prov_signals_serving();
        if (ctx.aio != NULL)
            emu_aio_publish(ctx.store, cert_pem != NULL, o.node_host, port);
        printf(PROG " listening on %s://127.0.0.1:%u\n",
               cert_pem != NULL ? "https" : "http", port);
        fflush(stdout);
        if (o.verbose)
            fprintf(stderr, PROG ": contract %d, namespace %s, key %s\n",
                    o.contract, ctx.namespace_uid,
                    o.api_key != NULL ? "required" : o.fail_closed ? "none: /api/ refused" : "not checked");
        prov_signals_wait();
        emu_server_stop(server);
    }
    emu_aio_stop(ctx.aio);
    emu_request_log_free(ctx.log);
    emu_faults_free(ctx.faults);
    emu_store_free(ctx.store);
    emu_contract_destroy(&ctx.contract);
    prov_cli_tls_free(cert_pem, key_pem);
    emu_options_clear(&o);
    return status;
}
