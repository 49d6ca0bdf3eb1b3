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
    char *api_key_read;     /* what --api-key-file read (owned, wiped) */
    char *aio_api_key_read; /* what --aio-api-key-file read (owned, wiped) */
} emu_options;

/* Read argv into *o (strings point into argv or the environment, or are
 * the keys read from files), saying on stderr what is wrong.  0 to go on,
 * -1 after --help (exit 0), else the exit status to end with (2: usage).
 * Release with emu_options_clear in every case. */
int emu_parse_options(int argc, char **argv, emu_options *o);

/* Wipe and free the keys read from files. */
void emu_options_clear(emu_options *o);

#endif
