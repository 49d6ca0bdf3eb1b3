/*
 * Tar archives of a container's files through the Engine API, read and
 * written with libarchive: GET /containers/ID/archive?path= streamed
 * member by member as it arrives (a large file is never held whole), and
 * PUT of a one-member archive into a directory.
 */
#ifndef SBX_DOCKER_ARCHIVE_H
#define SBX_DOCKER_ARCHIVE_H

#include "plugin/docker/docker_engine.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdint.h>

/* A path in a container as the archive calls take it (all borrowed for
 * the call). */
typedef struct docker_archive_path {
    const docker_engine *engine;
    const char *container_id;
    const char *what;             /* the operation, for messages */
    const char *path;             /* absolute, cleaned */
} docker_archive_path;

/* Gets each member in order; may read its data (archive_read_data).
 * Returns 0 for the next member, 1 to stop (the transfer is cut), or
 * -1 with `err` filled. */
typedef int (*docker_archive_visit_fn)(void *ctx, struct archive *a, struct archive_entry *e,
                                       sbx_error *err);

/* Stream the archive of `at` to `visit`.
 * SBX_ERR_NO_SUCH_PATH when the path, or a directory on it, does not
 * exist; SBX_ERR_NOT_FOUND when the container went away; SBX_ERR_PROTOCOL
 * for an archive libarchive cannot read; what `visit` failed with. */
sbx_status docker_archive_get(const docker_archive_path *at, docker_archive_visit_fn visit,
                              void *ctx, sbx_error *err);

/* An archive being read: its connection and libarchive's state. */
typedef struct docker_archive_reader docker_archive_reader;

/* GET the archive of `at` into *out (docker_archive_close), before its
 * first member.  Errors as docker_archive_get. */
sbx_status docker_archive_open(const docker_archive_path *at, docker_archive_reader **out,
                               sbx_error *err);

/* The next member's header into *e, NULL at the end. */
sbx_status docker_archive_next(docker_archive_reader *r, struct archive_entry **e, sbx_error *err);

/* Up to `size` bytes of the current member's data; *got 0 at its end. */
sbx_status docker_archive_data(docker_archive_reader *r, void *buf, size_t size, size_t *got,
                               sbx_error *err);

/* Ready a reader kept between calls for the next: errors go to `err`,
 * and a new deadline of one call's timeout. */
void docker_archive_resume(docker_archive_reader *r, const docker_engine *engine, sbx_error *err);

/* Close the connection and free `r` (NULL is fine). */
void docker_archive_close(docker_archive_reader *r);

/* The engine's stat of `at` (HEAD of its archive, no bytes moved):
 * *exists 1 with *type AE_IFDIR, AE_IFLNK (the link itself, not what it
 * leads to) or AE_IFREG (anything else); 0 when it is missing; -1 when the
 * engine did not say (an odd status, an engine without the stat header,
 * podman's 404 for a dangling link): ask docker_archive_get then.
 * Always SBX_OK: a failed ask is -1 too. */
sbx_status docker_archive_stat(const docker_archive_path *at, int *exists, unsigned *type,
                               sbx_error *err);

/* Put `length` bytes as file `name` (permission bits `mode`) into the
 * existing directory `dir`.  SBX_ERR_NO_SUCH_PATH for a missing
 * directory, SBX_ERR_NOT_A_DIRECTORY when `dir` is a file,
 * SBX_ERR_PERMISSION for a read-only file system, else engine errors. */
sbx_status docker_archive_put(const docker_archive_path *dir, const char *name, const void *data,
                              size_t length, uint32_t mode, sbx_error *err);

#endif
