/* sbx-provisioner-emu's command line (see emu_options.h). */
#include <config.h>

#include "tools/provisioner-emu/emu_options.h"

#include "common/secret_file.h"
#include "tools/provisioner-common/prov_cli.h"
#include "tools/provisioner-common/prov_mounts.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "sbx-provisioner-emu"

static void usage(FILE *out)
{
    fputs("usage: sbx-provisioner-emu [--port N] [--api-key-file FILE | --api-key KEY |\n"
          "                           --fail-closed] [--contract N]\n"
          "                           [--no-capabilities] [--no-reconciliation]\n"
          "                           [--initial-status WORD] [--pending-ms MS]\n"
          "                           [--node-host HOST] [--state-dir DIR]\n"
          "                           [--tls-cert FILE --tls-key FILE] [--verbose]\n"
          "                           [--aio] [--aio-api-key-file FILE | --aio-api-key KEY]\n"
          "                           [--aio-request-log FILE]\n"
          "Serves the provisioner protocol on 127.0.0.1 until SIGTERM or SIGINT,\n"
          "over HTTPS when given a PEM certificate (chain) and its private key.\n"
          "The API key may also come from $EMU_API_KEY, the AIO key from\n"
          "$EMU_AIO_API_KEY: prefer them or the files (mode 0600) to KEY, which every\n"
          "user sees in a command line.  See docs/emulator.md.\n",
          out);
}

/* A number option from 0 to `max` into *out; 0 after saying why. */
static int parse_number(const char *option, const char *text, unsigned long max, long *out)
{
    unsigned long value = 0;
    if (!prov_cli_number("sbx-provisioner-emu", option, text, 0, max, &value))
        return 0;
    *out = (long)value;
    return 1;
}

int emu_parse_options(int argc, char **argv, emu_options *o)
{
    enum { OPT_NO_CAPS = 256, OPT_NO_RECON, OPT_STATUS, OPT_NODE_HOST, OPT_CONTRACT,
           OPT_TLS_CERT, OPT_TLS_KEY, OPT_PENDING, OPT_STATE_DIR, OPT_FAIL_CLOSED,
           OPT_AIO, OPT_AIO_KEY, OPT_AIO_LOG, OPT_KEY_FILE, OPT_AIO_KEY_FILE };
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
        {"aio", no_argument, NULL, OPT_AIO},
        {"aio-api-key", required_argument, NULL, OPT_AIO_KEY},
        {"aio-request-log", required_argument, NULL, OPT_AIO_LOG},
        {"api-key-file", required_argument, NULL, OPT_KEY_FILE},
        {"aio-api-key-file", required_argument, NULL, OPT_AIO_KEY_FILE},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *o = (emu_options){.contract = 0, .capabilities_route = 1, .reconciliation_route = 1,
                       .initial_status = "Running", .node_host = "127.0.0.1",
                       .state_dir = PROV_DEFAULT_STATE_DIR};
    o->api_key = getenv("EMU_API_KEY");
    o->aio_api_key = getenv("EMU_AIO_API_KEY");
    int c;
    long n = 0;
    while ((c = getopt_long(argc, argv, "p:k:vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (!parse_number("--port", optarg, 65535, &n))
                return 2;
            o->port = (unsigned)n;
            break;
        case 'k':
            o->api_key = optarg;
            break;
        case OPT_CONTRACT:
            if (!parse_number("--contract", optarg, INT_MAX, &n))
                return 2;
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
            if (!parse_number("--pending-ms", optarg, LONG_MAX / 2, &n))
                return 2;
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
        case OPT_AIO:
            o->aio = 1;
            break;
        case OPT_AIO_KEY:
            o->aio = 1;
            o->aio_api_key = optarg;
            break;
        case OPT_KEY_FILE:
            if (!prov_cli_key_file(PROG, "--api-key-file", optarg, &o->api_key_read))
                return 2;
            o->api_key = o->api_key_read;
            break;
        case OPT_AIO_KEY_FILE:
            if (!prov_cli_key_file(PROG, "--aio-api-key-file", optarg, &o->aio_api_key_read))
                return 2;
            o->aio = 1;
            o->aio_api_key = o->aio_api_key_read;
            break;
        case OPT_AIO_LOG:
            o->aio = 1;
            o->aio_request_log = optarg;
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
    if (o->aio_api_key != NULL && o->aio_api_key[0] == '\0')
        o->aio_api_key = NULL;
    return 0;
}


void emu_options_clear(emu_options *o)
{
    common_secret_free(o->api_key_read);
    common_secret_free(o->aio_api_key_read);
    o->api_key_read = o->aio_api_key_read = NULL;
}
