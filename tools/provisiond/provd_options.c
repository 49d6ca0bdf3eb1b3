/* Command-line parsing: every value is checked here, so that the daemon
 * refuses to start rather than serve with a setting it misread. */

#include <config.h>

#include "tools/provisiond/provd_options.h"

#include "common/secret_file.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_cli.h"
#include "tools/provisioner-common/prov_mounts.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "sbx-provisiond"

/* Largest --max-body-bytes: far beyond any create body (nine mounts). */
#define MAX_BODY_LIMIT (64UL * 1024 * 1024)
/* A 16 MiB file in a write (base64: 21.4 MB) or an upload fits. */
#define DEFAULT_BODY_LIMIT (32UL * 1024 * 1024)
#define DEFAULT_THREADS 8
#define MAX_THREADS 1024
/* Waiting requests of one token, by default, per request it may run:
 * enough for a client's bursts of parallel calls, bounded so that one
 * token's waiting bodies stay a small part of the daemon's memory. */
#define DEFAULT_QUEUE_PER_SHARE 4
#define MAX_QUEUE 65536
#define DEFAULT_DRAIN_MS 10000
#define MAX_DRAIN_MS 600000
/* A client holds a connection at most this long without sending a byte,
 * and this long to send a whole request (slow-drip clients). */
#define DEFAULT_IDLE_TIMEOUT_S 30
#define DEFAULT_REQUEST_TIMEOUT_S 60
#define MAX_TIMEOUT_S 3600
/* Well below the usual 1024 descriptors, so that a flood of idle
 * connections cannot take the last one; a single address gets an eighth. */
#define DEFAULT_MAX_CONNECTIONS 512
#define MAX_CONNECTIONS 65536
#define DEFAULT_MAX_PER_ADDRESS 64
/* An exec without hard_timeout: DeerFlow's 10 minutes, not the backend's
 * longest (a day). */
#define DEFAULT_EXEC_TIMEOUT_S 600
#define MAX_EXEC_TIMEOUT_S 86400
/* A file answer (read, download): far beyond a source file, far below
 * what would threaten the host; at most 1 GiB. */
#define DEFAULT_MAX_ANSWER_BYTES (64UL * 1024 * 1024)
#define MIN_MAX_ANSWER_BYTES (64UL * 1024)
#define MAX_MAX_ANSWER_BYTES (1024UL * 1024 * 1024)
/* A file call a worker answers itself (docs/provisiond.md, "Threads,
 * tenants and time"): 256 KiB is a source file, tens of microseconds of
 * local reads; 4 MiB at most keeps /health from waiting a millisecond. */
#define DEFAULT_WORKER_FILE_BYTES (256UL * 1024)
#define MAX_WORKER_FILE_BYTES (4UL * 1024 * 1024)

static void usage(FILE *out)
{
    fputs("usage: " PROG " [--config FILE] [--backend NAME] [--set KEY=VALUE]...\n"
          "                      [--listen ADDR:PORT] [--api-key-file FILE | --api-key KEY]\n"
          "                      [--tls-cert FILE --tls-key FILE] [--threads N]\n"
          "                      [--max-body-bytes N] [--mount-base DIR] [--state-dir DIR]\n"
          "                      [--drain-ms MS] [--idle-timeout S] [--request-timeout S]\n"
          "                      [--max-connections N] [--max-connections-per-address N]\n"
          "                      [--public-url URL]\n"
          "                      [--sandbox-api-key-file FILE | --sandbox-api-key KEY]\n"
          "                      [--sandbox-share N] [--sandbox-queue N] [--exec-timeout S]\n"
          "                      [--max-answer-bytes N] [--worker-file-bytes N] [--verbose]\n"
          "Serves the provisioner protocol (docs/protocol.md) with an sbx backend until\n"
          "SIGTERM or SIGINT.  Default: " PROVD_DEFAULT_LISTEN ", the backend of the\n"
          "configuration file (like sbxctl's), else local.  The API key (required to\n"
          "listen on a non-loopback address) may also come from $SBX_PROVISIOND_API_KEY,\n"
          "the sandbox API key from $SBX_PROVISIOND_SANDBOX_API_KEY: prefer them or the\n"
          "files (mode 0600) to KEY, which every user sees in a command line.\n"
          "See sbx-provisiond(8) and docs/provisiond.md.\n",
          out);
}

static int parse_unsigned(const char *option, const char *text, unsigned long min,
                          unsigned long max, unsigned long *out)
{
    return prov_cli_number(PROG, option, text, min, max, out);
}

/* parse_unsigned into an unsigned option. */
static int parse_count(const char *option, const char *text, unsigned long min,
                       unsigned long max, unsigned *out)
{
    unsigned long value = 0;
    if (!parse_unsigned(option, text, min, max, &value))
        return 0;
    *out = (unsigned)value;
    return 1;
}

static int is_loopback(const char *address)
{
    struct in_addr v4;
    struct in6_addr v6;
    if (inet_pton(AF_INET, address, &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, address, &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

/* ADDR:PORT or [V6ADDR]:PORT, a numeric address and a port 0..65535. */
static int parse_listen(const char *text, provd_options *o)
{
    const char *colon = strrchr(text, ':');
    const char *start = text, *end = colon;
    if (colon != NULL && text[0] == '[') {
        start = text + 1;
        end = colon > text && colon[-1] == ']' ? colon - 1 : NULL;
    }
    unsigned long port = 0;
    size_t len = end != NULL ? (size_t)(end - start) : 0;
    struct in6_addr any;
    if (end == NULL || len == 0 || len >= sizeof o->address) {
        fprintf(stderr, PROG ": --listen wants ADDR:PORT or [ADDR]:PORT, not '%s'\n", text);
        return 0;
    }
    memcpy(o->address, start, len);
    o->address[len] = '\0';
    if (inet_pton(AF_INET, o->address, &any) != 1 && inet_pton(AF_INET6, o->address, &any) != 1) {
        fprintf(stderr, PROG ": --listen wants a numeric IPv4 or IPv6 address, not '%s'\n",
                o->address);
        return 0;
    }
    if (!parse_unsigned("--listen's port", colon + 1, 0, 65535, &port))
        return 0;
    o->port = (unsigned)port;
    o->loopback = is_loopback(o->address);
    return 1;
}

/* --public-url: http(s)://HOST[:PORT][/PATH], the sandbox URLs' base as
 * clients reach the daemon (a query or fragment could not take a path
 * after it). */
static int parse_public_url(const char *text)
{
    const char *rest = strncmp(text, "http://", 7) == 0    ? text + 7
                       : strncmp(text, "https://", 8) == 0 ? text + 8
                                                           : NULL;
    if (rest == NULL || rest[0] == '\0' || rest[0] == '/' || strpbrk(text, "?# \t\r\n") != NULL) {
        fprintf(stderr,
                PROG ": --public-url wants http(s)://HOST[:PORT][/PATH] without a query, "
                     "not '%s'\n",
                text);
        return 0;
    }
    return 1;
}

/* Keep one --set KEY=VALUE.  Returns 1; 0 after saying the text is not
 * KEY=VALUE (a usage error); -1 after saying memory ran out (the daemon
 * cannot start, exit 1: the command line was fine). */
static int add_setting(provd_options *o, const char *text)
{
    const char *eq = strchr(text, '=');
    if (eq == NULL || eq == text) {
        fprintf(stderr, PROG ": --set wants KEY=VALUE, not '%s'\n", text);
        return 0;
    }
    provd_setting *grown = prov_malloc((o->setting_count + 1) * sizeof *grown);
    char *key = grown != NULL ? prov_memdup(text, (size_t)(eq - text)) : NULL;
    if (key == NULL) {
        free(grown);
        fprintf(stderr, PROG ": out of memory keeping a --set setting\n");
        return -1;
    }
    if (o->setting_count > 0)
        memcpy(grown, o->settings, o->setting_count * sizeof *grown);
    free(o->settings);
    o->settings = grown;
    o->settings[o->setting_count++] = (provd_setting){key, eq + 1};
    return 1;
}

/* What the options say together; returns 0 or 2. */
static int check_combination(provd_options *o)
{
    if ((o->tls_cert == NULL) != (o->tls_key == NULL)) {
        fprintf(stderr, PROG ": --tls-cert and --tls-key go together\n");
        return 2;
    }
    if (o->mount_base[0] != '/') {
        fprintf(stderr, PROG ": --mount-base wants an absolute path, not '%s'\n", o->mount_base);
        return 2;
    }
    if (o->api_key != NULL && o->api_key[0] == '\0')
        o->api_key = NULL;
    if (o->sandbox_api_key != NULL && o->sandbox_api_key[0] == '\0')
        o->sandbox_api_key = NULL;
    if (!o->loopback && o->api_key == NULL) {
        fprintf(stderr,
                PROG ": listening on %s, which is not a loopback address, needs an API key "
                     "($SBX_PROVISIOND_API_KEY, --api-key-file or --api-key): anyone who "
                     "reaches the port "
                     "could otherwise create containers\n",
                o->address);
        return 2;
    }
    return 0;
}

int provd_options_parse(int argc, char **argv, provd_options *o)
{
    enum { OPT_TLS_CERT = 256, OPT_TLS_KEY, OPT_THREADS, OPT_MAX_BODY, OPT_MOUNT_BASE,
           OPT_STATE_DIR, OPT_DRAIN, OPT_IDLE_TIMEOUT, OPT_REQUEST_TIMEOUT, OPT_MAX_CONNECTIONS,
           OPT_MAX_PER_ADDRESS, OPT_PUBLIC_URL, OPT_SANDBOX_KEY, OPT_KEY_FILE,
           OPT_SANDBOX_KEY_FILE, OPT_SANDBOX_SHARE, OPT_SANDBOX_QUEUE, OPT_EXEC_TIMEOUT, OPT_MAX_ANSWER,
           OPT_WORKER_FILE_BYTES, OPT_VERSION };
    static const struct option longopts[] = {
        {"config", required_argument, NULL, 'c'},
        {"backend", required_argument, NULL, 'b'},
        {"set", required_argument, NULL, 's'},
        {"listen", required_argument, NULL, 'l'},
        {"api-key", required_argument, NULL, 'k'},
        {"tls-cert", required_argument, NULL, OPT_TLS_CERT},
        {"tls-key", required_argument, NULL, OPT_TLS_KEY},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"max-body-bytes", required_argument, NULL, OPT_MAX_BODY},
        {"mount-base", required_argument, NULL, OPT_MOUNT_BASE},
        {"state-dir", required_argument, NULL, OPT_STATE_DIR},
        {"drain-ms", required_argument, NULL, OPT_DRAIN},
        {"idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT},
        {"request-timeout", required_argument, NULL, OPT_REQUEST_TIMEOUT},
        {"max-connections", required_argument, NULL, OPT_MAX_CONNECTIONS},
        {"max-connections-per-address", required_argument, NULL, OPT_MAX_PER_ADDRESS},
        {"public-url", required_argument, NULL, OPT_PUBLIC_URL},
        {"sandbox-api-key", required_argument, NULL, OPT_SANDBOX_KEY},
        {"api-key-file", required_argument, NULL, OPT_KEY_FILE},
        {"sandbox-api-key-file", required_argument, NULL, OPT_SANDBOX_KEY_FILE},
        {"sandbox-share", required_argument, NULL, OPT_SANDBOX_SHARE},
        {"sandbox-queue", required_argument, NULL, OPT_SANDBOX_QUEUE},
        {"exec-timeout", required_argument, NULL, OPT_EXEC_TIMEOUT},
        {"max-answer-bytes", required_argument, NULL, OPT_MAX_ANSWER},
        {"worker-file-bytes", required_argument, NULL, OPT_WORKER_FILE_BYTES},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, OPT_VERSION},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->threads = DEFAULT_THREADS;
    o->max_body_bytes = DEFAULT_BODY_LIMIT;
    o->mount_base = PROV_DEFAULT_STATE_DIR;
    o->drain_ms = DEFAULT_DRAIN_MS;
    o->idle_timeout_s = DEFAULT_IDLE_TIMEOUT_S;
    o->request_timeout_s = DEFAULT_REQUEST_TIMEOUT_S;
    o->max_connections = DEFAULT_MAX_CONNECTIONS;
    o->max_per_address = DEFAULT_MAX_PER_ADDRESS;
    o->exec_timeout_s = DEFAULT_EXEC_TIMEOUT_S;
    o->max_answer_bytes = DEFAULT_MAX_ANSWER_BYTES;
    o->worker_file_bytes = DEFAULT_WORKER_FILE_BYTES;
    o->api_key = getenv("SBX_PROVISIOND_API_KEY");
    o->sandbox_api_key = getenv("SBX_PROVISIOND_SANDBOX_API_KEY");
    const char *config_env = getenv("SBX_CONFIG");
    o->config_path = config_env != NULL && config_env[0] != '\0' ? config_env : NULL;
    if (!parse_listen(PROVD_DEFAULT_LISTEN, o))
        return 2;
    int c;
    unsigned long n = 0;
    while ((c = getopt_long(argc, argv, "c:b:s:l:k:vh", longopts, NULL)) != -1) {
        int ok = 1;
        switch (c) {
        case 'c': o->config_path = optarg; break;
        case 'b': o->backend = optarg; break;
        case 's': ok = add_setting(o, optarg); break;
        case 'l': ok = parse_listen(optarg, o); break;
        case 'k': o->api_key = optarg; break;
        case OPT_TLS_CERT: o->tls_cert = optarg; break;
        case OPT_TLS_KEY: o->tls_key = optarg; break;
        case OPT_THREADS:
            ok = parse_count("--threads", optarg, 1, MAX_THREADS, &o->threads);
            break;
        case OPT_MAX_BODY:
            ok = parse_unsigned("--max-body-bytes", optarg, 1024, MAX_BODY_LIMIT, &n);
            o->max_body_bytes = n;
            break;
        case OPT_MOUNT_BASE: o->mount_base = optarg; break;
        case OPT_STATE_DIR: o->state_dir = optarg; break;
        case OPT_DRAIN:
            ok = parse_count("--drain-ms", optarg, 0, MAX_DRAIN_MS, &o->drain_ms);
            break;
        case OPT_IDLE_TIMEOUT:
            ok = parse_count("--idle-timeout", optarg, 1, MAX_TIMEOUT_S, &o->idle_timeout_s);
            break;
        case OPT_REQUEST_TIMEOUT:
            ok = parse_count("--request-timeout", optarg, 1, MAX_TIMEOUT_S, &o->request_timeout_s);
            break;
        case OPT_MAX_CONNECTIONS:
            ok = parse_count("--max-connections", optarg, 1, MAX_CONNECTIONS, &o->max_connections);
            break;
        case OPT_MAX_PER_ADDRESS:
            ok = parse_count("--max-connections-per-address", optarg, 1, MAX_CONNECTIONS,
                             &o->max_per_address);
            break;
        case OPT_PUBLIC_URL:
            o->public_url = optarg;
            ok = parse_public_url(optarg);
            break;
        case OPT_SANDBOX_KEY: o->sandbox_api_key = optarg; break;
        case OPT_KEY_FILE:
            ok = prov_cli_key_file(PROG, "--api-key-file", optarg, &o->api_key_read);
            o->api_key = o->api_key_read;
            break;
        case OPT_SANDBOX_KEY_FILE:
            ok = prov_cli_key_file(PROG, "--sandbox-api-key-file", optarg,
                                   &o->sandbox_api_key_read);
            o->sandbox_api_key = o->sandbox_api_key_read;
            break;
        case OPT_SANDBOX_SHARE:
            ok = parse_count("--sandbox-share", optarg, 1, MAX_THREADS, &o->sandbox_share);
            break;
        case OPT_SANDBOX_QUEUE:
            ok = parse_count("--sandbox-queue", optarg, 0, MAX_QUEUE, &o->sandbox_queue);
            o->sandbox_queue_given = 1;
            break;
        case OPT_EXEC_TIMEOUT:
            ok = parse_count("--exec-timeout", optarg, 1, MAX_EXEC_TIMEOUT_S, &o->exec_timeout_s);
            break;
        case OPT_MAX_ANSWER:
            ok = parse_unsigned("--max-answer-bytes", optarg, MIN_MAX_ANSWER_BYTES,
                                MAX_MAX_ANSWER_BYTES, &n);
            o->max_answer_bytes = n;
            break;
        case OPT_WORKER_FILE_BYTES:
            ok = parse_unsigned("--worker-file-bytes", optarg, 0, MAX_WORKER_FILE_BYTES, &n);
            o->worker_file_bytes = n;
            break;
        case 'v': o->verbose = 1; break;
        case 'h':
            usage(stdout);
            return -1;
        case OPT_VERSION:
            puts(PROG " " PACKAGE_VERSION);
            return -1;
        default:
            usage(stderr);
            return 2;
        }
        if (ok <= 0)
            return ok < 0 ? 1 : 2;
    }
    /* By default one token may take half the sandbox API's threads: the
     * other half stays for the other tenants. */
    if (o->sandbox_share == 0)
        o->sandbox_share = o->threads > 1 ? o->threads / 2 : 1;
    if (!o->sandbox_queue_given)
        o->sandbox_queue = o->sandbox_share * DEFAULT_QUEUE_PER_SHARE;
    if (optind < argc) {
        fprintf(stderr, PROG ": unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    return check_combination(o);
}

void provd_options_clear(provd_options *o)
{
    common_secret_free(o->api_key_read);
    common_secret_free(o->sandbox_api_key_read);
    o->api_key_read = o->sandbox_api_key_read = NULL;
    for (size_t i = 0; i < o->setting_count; i++)
        free(o->settings[i].key);
    free(o->settings);
    o->settings = NULL;
    o->setting_count = 0;
}
