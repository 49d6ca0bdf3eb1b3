/*
 * A sandbox's disk limit on local (the create request's disk_bytes;
 * docs/local.md, "Disk"): the sandbox directory is a file system of its
 * own of that size, an ext4 image file STATE/.ID.disk, allocated whole at
 * create, on a loop device mounted at STATE/ID.  Whatever the sandbox
 * writes stays in its image; the state directory's file system keeps the
 * reserve (option disk_reserve_bytes) free for every sandbox's records.
 * Needs a host running as root.  Thread-safe: the calls work on the file
 * system only.
 */
#ifndef SBX_LOCAL_DISK_H
#define SBX_LOCAL_DISK_H

#include "plugin/local/local_options.h"
#include "plugin/local/local_state.h"

#include <sbx/backend.h>

/* The smallest disk_bytes a create may ask: an ext4 smaller holds almost
 * nothing but its own metadata. */
#define LOCAL_DISK_MIN_BYTES (INT64_C(1) << 20)

/* SBX_OK when `req` asks no disk or this host can make one; else
 * SBX_ERR_UNSUPPORTED naming disk_bytes and what is missing (root,
 * /dev/loop-control, mkfs.ext4), or SBX_ERR_USAGE for a size below
 * LOCAL_DISK_MIN_BYTES.  Makes nothing. */
sbx_status local_disk_check(const sbx_create_request *req, sbx_error *err);

/* SBX_OK when the state directory's file system has room for the disk
 * `req` asks (none: 0 bytes) and still the reserve of `options` free;
 * else SBX_ERR_REFUSED naming both figures.  Makes nothing; not a
 * reservation (local_disk_make checks again under a lock). */
sbx_status local_disk_check_reserve(const local_options *options, const sbx_create_request *req,
                                    sbx_error *err);

/* Give the new, empty sandbox directory paths->dir the disk `req` asks
 * (none: nothing done): the image made and allocated, its file system
 * made and mounted there (nosuid, nodev), mode 0700.  The reserve of
 * `options` is checked and the image allocated under the state
 * directory's disks lock, so that concurrent creates never both take the
 * same free bytes.  On failure what was made is left for
 * local_disk_release (the caller's undo).  SBX_ERR_REFUSED when the
 * reserve would be eaten into (local_disk_check_reserve) or the image
 * cannot be allocated (no space), SBX_ERR_INTERNAL naming the step
 * otherwise. */
sbx_status local_disk_make(const local_options *options, const local_paths *paths,
                           const sbx_create_request *req, sbx_error *err);

/* Unmount the sandbox's disk from paths->dir and remove its image, when
 * it has one (the image exists); the loop device goes with the last user
 * of the mount.  SBX_OK when there is none.  SBX_ERR_INTERNAL naming the
 * path that could not be unmounted or removed. */
sbx_status local_disk_release(const local_paths *paths, sbx_error *err);

#endif
