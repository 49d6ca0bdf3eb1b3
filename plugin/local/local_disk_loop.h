/*
 * Mounting an image file through a loop device (LOOP_CONFIGURE, Linux
 * >= 5.8), for a sandbox's disk (local_disk.h).  The device is attached
 * with autoclear: it detaches itself when the last mount of it goes, so
 * nothing but the mount has to be undone.
 */
#ifndef SBX_LOCAL_DISK_LOOP_H
#define SBX_LOCAL_DISK_LOOP_H

#include <sbx/backend.h>

/* Attach the image open as `image_fd` (read-write; `image` is its path,
 * for the device's record and messages) to a free loop device and mount
 * its ext4 file system at `dir` (nosuid, nodev).  On failure nothing stays
 * attached.  SBX_ERR_UNSUPPORTED when loop devices cannot be used,
 * SBX_ERR_INTERNAL naming the step otherwise. */
sbx_status local_disk_loop_mount(int image_fd, const char *image, const char *dir,
                                 sbx_error *err);

#endif
