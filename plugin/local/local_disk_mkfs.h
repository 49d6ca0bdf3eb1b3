/*
 * Making an ext4 file system in an image file with the system's
 * mkfs.ext4 (e2fsprogs), for a sandbox's disk (local_disk.h).
 */
#ifndef SBX_LOCAL_DISK_MKFS_H
#define SBX_LOCAL_DISK_MKFS_H

#include <sbx/backend.h>

#include <stddef.h>

/* The path of mkfs.ext4 into buf: the first executable one in $PATH,
 * /usr/sbin or /sbin.  1 when found, else 0. */
int local_disk_mkfs_find(char *buf, size_t size);

/* Run mkfs.ext4 on the image file `image` (no journal, no blocks kept for
 * root, nothing discarded: the allocation stays) and wait for it.
 * SBX_ERR_UNSUPPORTED when mkfs.ext4 is not found, SBX_ERR_INTERNAL
 * with its status and the start of its output when it fails. */
sbx_status local_disk_mkfs(const char *image, sbx_error *err);

#endif
