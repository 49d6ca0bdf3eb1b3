/* sbx-provisioner-emu: a stand-in for the DeerFlow provisioner that tests
 * and demos run on 127.0.0.1, with a control API to script its answers.
 * See docs/emulator.md. */
#include <config.h>

#include "tools/provisioner-emu/emu_context.h"
#include "tools/provisioner-common/prov_mounts.h"
#include "tools/provisioner-common/prov_server.h"
#include "tools/provisioner-emu/emu_server.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct emu_options {
    unsigned port;
    const char *api_key;
    int contract;
    int capabilities_route;
    int reconciliation_route;
    const char *initial_status;
    long pending_ms;
    const char *node_host;
    const char *state_dir;
    int fail_closed;
    const char *tls_cert;   /* PEM files; both or neither (HTTPS) */
    const char *tls_key;
    int verbose;
} emu_options;

static void usage(FILE *out)
{
    fputs("usage: sbx-provisioner-emu [--port N] [--api-key KEY | --fail-closed] [--contract N]\n"
          "                           [--no-capabilities] [--no-reconciliation]\n"
          "                           [--initial-status WORD] [--pending-ms MS]\n"
          "                           [--node-host HOST] [--state-dir DIR]\n"
          "                           [--tls-cert FILE --tls-key FILE] [--verbose]\n"
          "Serves the provisioner protocol on 127.0.0.1 until SIGTERM or SIGINT,\n"
          "over HTTPS when given a PEM certificate (chain) and its private key.\n"
          "The API key may also come from $SBX_EMU_API_KEY.  See docs/emulator.md.\n",
          out);
}

static int parse_number(const char *text, long max, long *out)
{
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < 0 || value > max)
        return 0;
    *out = value;
    return 1;
}

/* Returns 0 to go on, or the exit status to end with. */
static int parse_options(int argc, char **argv, emu_options *o)
{
    enum { OPT_NO_CAPS = 256, OPT_NO_RECON, OPT_STATUS, OPT_NODE_HOST, OPT_CONTRACT,
           OPT_TLS_CERT, OPT_TLS_KEY, OPT_PENDING, OPT_STATE_DIR, OPT_FAIL_CLOSED };
    static const struct option longopts[] = {
        {"port", required_argument, NULL, 'p'},
        {"api-key", required_argument, NULL, 'k'},
        {"contract", required_argument, NULL, OPT_CONTRACT},
        {"no-capabilities", no_argument, NULL, OPT_NO_CAPS},
        {"no-reconciliation", no_argument, NULL, OPT_NO_RECON},
        {"initial-status", required_argument, NULL, OPT_STATUS},
        {"pending-ms", required_argument, NULL, OPT_PENDING},
        {"node-host", required_argument, NULL, OPT_NODE_HOST},
        {"state-dir", required_argument, NULL, OPT_STATE_DIR},
        {"fail-closed", no_argument, NULL, OPT_FAIL_CLOSED},
        {"tls-cert", required_argument, NULL, OPT_TLS_CERT},
        {"tls-key", required_argument, NULL, OPT_TLS_KEY},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *o = (emu_options){.contract = 0, .capabilities_route = 1, .reconciliation_route = 1,
                       .initial_status = "Running", .node_host = "127.0.0.1",
                       .state_dir = SBX_PROV_DEFAULT_STATE_DIR};
    o->api_key = getenv("SBX_EMU_API_KEY");
    int c;
    long n = 0;
    while ((c = getopt_long(argc, argv, "p:k:vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (!parse_number(optarg, 65535, &n)) {
                fprintf(stderr, "sbx-provisioner-emu: --port wants 0..65535, not '%s'\n", optarg);
                return 2;
            }
            o->port = (unsigned)n;
            break;
        case 'k':
            o->api_key = optarg;
            break;
        case OPT_CONTRACT:
            if (!parse_number(optarg, INT_MAX, &n)) {
                fprintf(stderr, "sbx-provisioner-emu: --contract wants an integer >= 0, not '%s'\n",
                        optarg);
                return 2;
            }
            o->contract = (int)n;
            break;
        case OPT_NO_CAPS:
            o->capabilities_route = 0;
            break;
        case OPT_NO_RECON:
            o->reconciliation_route = 0;
            break;
        case OPT_STATUS:
            o->initial_status = optarg;
            break;
        case OPT_PENDING:
            if (!parse_number(optarg, LONG_MAX / 2, &n)) {
                fprintf(stderr, "sbx-provisioner-emu: --pending-ms wants an integer >= 0, not '%s'\n",
                        optarg);
                return 2;
            }
            o->pending_ms = n;
            break;
        case OPT_NODE_HOST:
            o->node_host = optarg;
            break;
        case OPT_STATE_DIR:
            if (optarg[0] != '/') {
                fprintf(stderr, "sbx-provisioner-emu: --state-dir wants an absolute path, not '%s'\n",
                        optarg);
                return 2;
            }
            o->state_dir = optarg;
            break;
        case OPT_FAIL_CLOSED:
            o->fail_closed = 1;
            break;
        case OPT_TLS_CERT:
            o->tls_cert = optarg;
            break;
        case OPT_TLS_KEY:
            o->tls_key = optarg;
            break;
        case 'v':
            o->verbose = 1;
            break;
        case 'h':
            usage(stdout);
            return -1;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "sbx-provisioner-emu: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if ((o->tls_cert == NULL) != (o->tls_key == NULL)) {
        fprintf(stderr, "sbx-provisioner-emu: --tls-cert and --tls-key go together\n");
        return 2;
    }
    if (o->api_key != NULL && o->api_key[0] == '\0')
        o->api_key = NULL;
    return 0;
}

/* The PEM file of `option` as a new string, or NULL after saying on
 * stderr why it cannot be read. */
static char *read_pem_file(const char *option, const char *path)
{
    char why[512];
    char *text = sbx_prov_read_pem(path, why, sizeof why);
    if (text == NULL)
        fprintf(stderr, "sbx-provisioner-emu: %s %s\n", option, why);
    return text;
}

int main(int argc, char **argv)
{
    emu_options o;
    int status = parse_options(argc, argv, &o);
    if (status != 0)
        return status < 0 ? 0 : status;

    sbx_emu_tls tls = {NULL, NULL};
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

    sbx_emu_context ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.api_key = o.api_key;
    ctx.fail_closed = o.fail_closed;
    ctx.state_dir = o.state_dir;
    ctx.verbose = o.verbose;
    sbx_emu_contract_settings startup = {o.contract, o.capabilities_route,
                                         o.reconciliation_route};
    sbx_emu_contract_init(&ctx.contract, &startup);
    ctx.store = sbx_emu_store_new(o.node_host, o.initial_status, o.pending_ms);
    ctx.faults = sbx_emu_faults_new();
    ctx.log = sbx_emu_request_log_new();
    sbx_emu_uid_generate(ctx.namespace_uid);

    char why[256];
    unsigned port = 0;
    sbx_emu_server *server = sbx_emu_server_start(&ctx, o.port, cert_pem != NULL ? &tls : NULL,
                                                  &port, why, sizeof why);
    if (server == NULL) {
        fprintf(stderr, "sbx-provisioner-emu: %s\n", why);
        status = 1;
    } else {
        printf("sbx-provisioner-emu listening on %s://127.0.0.1:%u\n",
               cert_pem != NULL ? "https" : "http", port);
        fflush(stdout);
        if (o.verbose)
            fprintf(stderr, "sbx-provisioner-emu: contract %d, namespace %s, key %s\n",
                    o.contract, ctx.namespace_uid,
                    o.api_key != NULL ? "required" : o.fail_closed ? "none: /api/ refused" : "not checked");
        int signal_number = 0;
        sigwait(&stop_signals, &signal_number);
        sbx_emu_server_stop(server);
    }
    sbx_emu_request_log_free(ctx.log);
    sbx_emu_faults_free(ctx.faults);
    sbx_emu_store_free(ctx.store);
    sbx_emu_contract_destroy(&ctx.contract);
    /* The key is a secret: do not leave it in freed memory. */
    if (key_pem != NULL)
        memset(key_pem, 0, strlen(key_pem));
    free(key_pem);
    free(cert_pem);
    return status;
}
