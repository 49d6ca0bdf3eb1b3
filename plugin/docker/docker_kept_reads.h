/*
 * Reads of a file kept open between calls.  A caller that reads a large
 * file in pieces (sbxctl cp: 4 MiB at a time) asks for offset N after
 * offset 0, and the archive API cannot start inside a file: each piece
 * would stream the archive again from the start, a cost quadratic in the
 * file's size.  So a read that stops before the end of the file is kept
 * (its connection, positioned after the bytes answered, and the bytes
 * already read past them), and a read of the same sandbox and path at
 * exactly the next offset continues it without asking the engine again.
 *
 * dockerd locks a container while an archive of it streams (its inspect,
 * exec and destroy wait), so a kept read lives at most
 * DOCKER_KEPT_READ_IDLE_MS after its last piece (a thread of the instance
 * closes it), and any other call of the instance about its sandbox
 * closes it first (docker_kept_reads_drop).
 */
#ifndef SBX_DOCKER_KEPT_READS_H
#define SBX_DOCKER_KEPT_READS_H

#include "common/sandbox_ids.h"
#include "plugin/docker/docker_archive.h"
#include "plugin/docker/docker_paths.h"

#include <pthread.h>
#include <stdint.h>

/* How long a kept read waits for its next piece. */
#define DOCKER_KEPT_READ_IDLE_MS 1000

/* A read positioned in its file's data. */
typedef struct docker_kept_read {
    char sandbox_id[COMMON_SANDBOX_ID_MAX + 1];
    char path[DOCKER_PATH_MAX];                   /* as the caller gave it */
    uint64_t next_offset;                         /* the file's offset of `block + at` */
    docker_archive_reader *reader;
    unsigned char *block;                         /* DOCKER_KEPT_READ_BLOCK bytes */
    size_t at, len;                               /* bytes read from the engine, not answered */
    int64_t idle_since_ms;
} docker_kept_read;

/* Bytes read from the archive at a time. */
#define DOCKER_KEPT_READ_BLOCK 65536

/* How many reads an instance keeps open between calls. */
#define DOCKER_KEPT_READS 4

/* An instance's kept reads, under `lock`; `reaper` closes those idle too
 * long, woken by `changed`. */
typedef struct docker_kept_reads {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_t reaper;
    int reaper_started, closing;
    docker_kept_read *slots[DOCKER_KEPT_READS];
} docker_kept_reads;

/* Take the kept read of `sandbox_id` and `path` at `offset` into *out:
 * 1, or 0 when there is none. */
int docker_kept_read_take(docker_kept_reads *kept, const char *sandbox_id, const char *path,
                          uint64_t offset, docker_kept_read *out);

/* Keep `r` (taken by `kept`; the oldest kept one is closed when all
 * slots are full). */
void docker_kept_read_put(docker_kept_reads *kept, docker_kept_read *r);

/* Close the reader and block of `r`. */
void docker_kept_read_close(docker_kept_read *r);

/* Close the kept reads of `sandbox_id`. */
void docker_kept_reads_drop(docker_kept_reads *kept, const char *sandbox_id);

/* Start and stop an instance's kept reads (docker_open, docker_close). */
void docker_kept_reads_init(docker_kept_reads *kept);
void docker_kept_reads_fini(docker_kept_reads *kept);

#endif
