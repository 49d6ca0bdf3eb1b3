/* sbx-provisiond's command line (docs/sbx-provisiond.8). */
#ifndef SBX_PROVD_OPTIONS_H
#define SBX_PROVD_OPTIONS_H

#include <stddef.h>

/* Where the daemon listens when --listen is not given. */
#define PROVD_DEFAULT_LISTEN "127.0.0.1:8002"

/* One --set KEY=VALUE (the key a copy it owns, the value in argv). */
typedef struct provd_setting {
    char *key;
    const char *value;
} provd_setting;

typedef struct provd_options {
    const char *config_path;    /* --config, else $SBX_CONFIG when non-empty, else NULL */
    const char *backend;        /* --backend, NULL: the file's, else local */
    provd_setting *settings;    /* --set, in order (owned: free it) */
    size_t setting_count;
    char address[64];           /* numeric, without brackets */
    unsigned port;
    int loopback;               /* the address is a loopback address */
    const char *api_key;        /* NULL: none */
    const char *sandbox_api_key;    /* --sandbox-api-key, NULL: none (sandbox API) */
    char *api_key_read;         /* what --api-key-file read (owned, wiped) */
    char *sandbox_api_key_read; /* what --sandbox-api-key-file read (owned, wiped) */
    const char *public_url;     /* --public-url, NULL: the listen address */
    const char *tls_cert;       /* both or neither */
    const char *tls_key;
    unsigned threads;
    size_t max_body_bytes;
    const char *mount_base;
    const char *state_dir;      /* NULL: ownership records in memory only */
    unsigned drain_ms;
    unsigned idle_timeout_s;    /* a silent connection is closed after it */
    unsigned request_timeout_s; /* a request must arrive whole within it */
    unsigned max_connections;
    unsigned max_per_address;   /* --max-connections-per-address */
    unsigned sandbox_share;     /* one token's sandbox API requests running */
    unsigned sandbox_queue;     /* and waiting beyond them */
    int sandbox_queue_given;    /* --sandbox-queue was given */
    unsigned exec_timeout_s;    /* an exec without hard_timeout */
    size_t max_answer_bytes;    /* the largest file answer of the sandbox API */
    size_t worker_file_bytes;   /* a sandbox API file call of at most this many
                                 * bytes is answered on the worker that read
                                 * it, when the backend's file calls are local
                                 * (0: every one on the pool) */
    int verbose;
} provd_options;

/* Parse argv (and $SBX_PROVISIOND_API_KEY, $SBX_PROVISIOND_SANDBOX_API_KEY,
 * $SBX_CONFIG) into *o.  A key option on the command line, either form
 * (the last one given wins), replaces its variable.  Returns
 * 0 to go on, -1 after printing help or the version (exit 0), or 2 after
 * saying on stderr what is wrong (exit 2).  Release with
 * provd_options_clear in every case. */
int provd_options_parse(int argc, char **argv, provd_options *o);

/* Release what *o owns. */
void provd_options_clear(provd_options *o);

#endif
