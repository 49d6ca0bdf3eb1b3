/*
 * The metadata file of a local sandbox: STATE_DIR/ID.json, one JSON object
 * written atomically, so that every process sharing the state directory
 * sees either the whole record or none (docs/local.md lists the fields).
 */
#ifndef SBX_LOCAL_METADATA_H
#define SBX_LOCAL_METADATA_H

#include <sbx/backend.h>

#include "plugin/local/local_process.h"

/* One sandbox's record.  Strings are owned by the struct. */
typedef struct local_metadata {
    char *sandbox_id;
    char *thread_id;             /* NULL: anonymous */
    char *user_id;
    char *url;
    local_process process;   /* pid 0: no command (directory sandbox) */
    int port;                    /* 0 when there is no command */
    local_process holder;        /* pid 0: no holder (local_holder.h) */
    char *created;               /* ISO 8601 UTC */
    char *incarnation_id;        /* random, new for every creation */
    int creating;                /* "state":"creating": written before the sandbox's
                                  * directory, log and process exist, so that a create
                                  * cut short leaves a record of what to remove */
    sbx_label *labels;           /* "labels": {key: value}; NULL when none */
    size_t label_count;
    sbx_label *env;              /* "env": {name: value} for every process; NULL when
                                  * none (an env entry's key is its name) */
    size_t env_count;
    char *spec;                  /* "spec": common_create_spec_digest of the request
                                  * that made it; NULL: made by an older backend, with
                                  * the digest of an empty spec */
    int64_t expires_at;          /* "expires_at": ms since the Unix epoch when it is to
                                  * be destroyed; 0 (absent): never */
    int without_cgroups;         /* "cgroups": false: made asking no limit, so no cgroup
                                  * of its own (an exec need not look for one); 0
                                  * (absent, an older record): look */
    int network;                 /* "network": a word of the `network` option, kept as
                                  * LOCAL_NET_RECORDED (local_net.h); 0 (absent): the
                                  * option's (isolation=none, or an older backend) */
} local_metadata;

/* Write `meta` to `path` atomically: the temporary file `tmp` in the same
 * directory (whatever had its name unlinked first, never opened), fsync,
 * rename over `path`, fsync of the directory.  The
 * caller holds the sandbox's lock (nobody else writes `tmp`).
 * SBX_ERR_INTERNAL on any failure (the temporary file is removed). */
sbx_status local_metadata_write(const char *path, const char *tmp,
                                const local_metadata *meta, sbx_error *err);

/* Open record file `path` for local_metadata_read_fd (*fd close-on-exec,
 * the caller closes it) as local_state_file_open opens it: without
 * blocking or following a symlink.  SBX_ERR_NOT_FOUND when it does not
 * exist, SBX_ERR_PROTOCOL naming the path when it is not a regular file
 * of at most 64 KiB (a FIFO, a device, a directory, a symlink),
 * SBX_ERR_INTERNAL naming the path when it cannot be opened. */
sbx_status local_metadata_open(const char *path, int *fd, sbx_error *err);

/* Read the opened record file `fd` (to its end; it stays open) into *meta
 * (zeroed first); `path` names it in errors.  SBX_ERR_PROTOCOL when it is
 * not a valid record: the message names the path and the field (a string
 * holding a NUL or invalid UTF-8 included); SBX_ERR_INTERNAL when it
 * cannot be read or copied.  Release with local_metadata_clear. */
sbx_status local_metadata_read_fd(int fd, const char *path, local_metadata *meta,
                                  sbx_error *err);

/* A deep copy of *from into *to, released with local_metadata_clear.
 * SBX_ERR_INTERNAL (out of memory) with *to empty when it cannot be made. */
sbx_status local_metadata_copy(const local_metadata *from, local_metadata *to,
                               sbx_error *err);

/* Free what *meta holds and zero it. */
void local_metadata_clear(local_metadata *meta);

#endif
