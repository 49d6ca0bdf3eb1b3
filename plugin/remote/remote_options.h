/*
 * The remote backend's name and its options (docs/remote.md lists them):
 * parsed once at open, immutable afterwards, so every thread may read them
 * without a lock.
 */
#ifndef SBX_REMOTE_OPTIONS_H
#define SBX_REMOTE_OPTIONS_H

#include <stddef.h>
#include <sbx/backend.h>

/* The name the backend registers and logs under. */
#define REMOTE_NAME "remote"

typedef struct remote_options {
    char *provisioner_url;        /* http(s)://..., trailing '/' stripped */
    char *api_key;                /* NULL when none (an empty value means none) */
    char *sandbox_api_key;        /* X-AIO-API-Key for the sandboxes' own API; NULL: none */
    char *ca_file;                /* NULL: system CAs */
    long connect_timeout_ms;      /* 0: libcurl's default */
    long list_timeout_ms;
    long create_timeout_ms;
    long destroy_timeout_ms;
    long get_timeout_ms;          /* get, discover, is_alive, reconcile; the
                                   * capability probe takes the shorter of this and 5 s */
    size_t max_response_bytes;
    char **forward_mounts;        /* container paths an extra mount may target */
    size_t forward_mount_count;
} remote_options;

/* Per-call defaults of the reference client, in milliseconds. */
#define REMOTE_LIST_TIMEOUT_MS 10000L
#define REMOTE_CREATE_TIMEOUT_MS 30000L
#define REMOTE_DESTROY_TIMEOUT_MS 15000L
#define REMOTE_GET_TIMEOUT_MS 10000L
#define REMOTE_PROBE_TIMEOUT_MS 5000L

/* Parse `options` (borrowed) into *out, released with remote_options_clear;
 * on error *out holds nothing.  SBX_ERR_CONFIG names the key at fault and
 * its value (never a key's value); unknown keys and a missing
 * provisioner_url are errors. */
sbx_status remote_options_parse(const sbx_option *options, size_t option_count,
                                remote_options *out, sbx_error *err);

/* Release what *opts holds and zero it.  Zeroed storage is accepted. */
void remote_options_clear(remote_options *opts);

/* The table remote_options_parse follows (static data): its keys are the
 * ones sbxctl's hints name. */
struct common_option_table;
const struct common_option_table *remote_options_table(void);

#endif /* SBX_REMOTE_OPTIONS_H */
