/*
 * Opening the files of the state directory that the backend reads
 * (records, tombs, the namespace id): never blocking on a FIFO or a
 * device, never through a symlink, and only a regular file of bounded
 * size, so that an odd file named like one of ours cannot hang or crash
 * an operation, only fail it with an error naming the file.  And the
 * fsync of a directory that makes a rename in it durable.
 */
#ifndef SBX_LOCAL_STATE_FILE_H
#define SBX_LOCAL_STATE_FILE_H

#include <stddef.h>

#include <sbx/backend.h>

/* Open `path` for reading (O_NONBLOCK, O_NOFOLLOW, close-on-exec; the
 * caller closes *fd) and check that it is a regular file of at most
 * `max_bytes`.  SBX_ERR_NOT_FOUND when nothing has that name;
 * SBX_ERR_PROTOCOL naming the path when it is a symlink, a FIFO, a socket,
 * a device or a directory, or is larger; SBX_ERR_INTERNAL naming the path
 * when it cannot be opened. */
sbx_status local_state_file_open(const char *path, size_t max_bytes, int *fd,
                                   sbx_error *err);

/* fsync the directory `dir`, making the renames and removals in it so far
 * durable.  SBX_ERR_INTERNAL naming it when it cannot be opened or
 * synced. */
sbx_status local_state_dir_sync(const char *dir, sbx_error *err);

#endif
