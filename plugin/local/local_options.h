/*
 * Options of the in-process "local" backend (docs/local.md).
 */
#ifndef SBX_LOCAL_OPTIONS_H
#define SBX_LOCAL_OPTIONS_H

#include "plugin/local/local_isolation.h"

#include <sbx/backend.h>

/* The name the backend registers and logs under. */
#define LOCAL_NAME "local"

/* Live processes (ABI 1.4): the defaults of the options and their bounds. */
#define LOCAL_DEFAULT_MAX_PROCESSES 64L
#define LOCAL_MAX_PROCESSES_LIMIT 4096L
#define LOCAL_DEFAULT_BUFFER_BYTES (1L << 20)        /* 1 MiB per stream */
#define LOCAL_DEFAULT_MAX_BUFFER_BYTES (64L << 20)   /* 64 MiB per stream */
#define LOCAL_BUFFER_BYTES_LIMIT (1L << 30)

/* What an instance was opened with.  Immutable after parsing, so every
 * thread may read it without a lock. */
typedef struct local_options {
    char *state_dir;        /* absolute; created (0700) by the parser */
    char *command;          /* NULL: a sandbox is only its directory */
    long stop_timeout_ms;   /* SIGTERM to SIGKILL grace on destroy */
    long ready_timeout_ms;  /* create waits this long for the command's port; 0: no wait */
    long lock_timeout_ms;   /* longest wait for a sandbox's lock held by another */
    local_isolation_options isolation;  /* what an exec's command is confined by */
    long max_processes;     /* running (and ended kept) processes per sandbox */
    long process_buffer_bytes;      /* bytes kept per stream by default */
    long max_process_buffer_bytes;  /* the most a start may ask */
    char *cgroup_mounts;    /* NULL: /proc/mounts, where the cgroups are found */
    long disk_reserve_bytes;        /* kept free on the state directory's file system */
} local_options;

/* Parse `options` into *out (zeroed first).  Unknown keys and bad values
 * are SBX_ERR_CONFIG naming the key; a state directory that cannot be
 * created, or that is not the backend's own (local_claim_state_dir),
 * is SBX_ERR_CONFIG naming it.  On error *out holds nothing.
 * Release with local_options_clear. */
sbx_status local_options_parse(const sbx_option *options, size_t count,
                               local_options *out, sbx_error *err);

/* Free what *options holds.  Zeroed storage is accepted. */
void local_options_clear(local_options *options);

#endif
