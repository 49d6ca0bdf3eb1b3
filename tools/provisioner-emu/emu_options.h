/* sbx-provisioner-emu's command line (see docs/emulator.md). */
#ifndef EMU_OPTIONS_H
#define EMU_OPTIONS_H

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
    int aio;                /* serve the AIO routes on local sandboxes */
    const char *aio_api_key;
    const char *aio_request_log;
} emu_options;

/* Read argv into *o (strings point into argv or the environment), saying
 * on stderr what is wrong.  0 to go on, -1 after --help (exit 0), else the
 * exit status to end with (2: usage). */
int emu_parse_options(int argc, char **argv, emu_options *o);

#endif
