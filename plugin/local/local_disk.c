/* A sandbox's disk: its image, file system and mount (see local_disk.h). */
#include <config.h>

#include "plugin/local/local_disk.h"

#include "plugin/local/local_disk_loop.h"
#include "plugin/local/local_disk_mkfs.h"
#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* STATE/DISKS_LOCK, held (flock) from a create's free-space check to its
 * image's allocation, so that creates at the same moment, of any process,
 * take the free bytes one after another.  No id's file is named so (ids
 * are lowercase letters, digits and '-'; their files end in a suffix such
 * as ".lock"). */
#define DISKS_LOCK ".sbx-local-disks"

/* The image of sandbox paths->id: STATE/.ID.disk.  0 when it does not fit. */
static int image_path(const local_paths *paths, char *buf, size_t size)
{
    return snprintf(buf, size, "%s/.%s.disk", paths->state_dir, paths->id) < (int)size;
}

static sbx_status unsupported(const sbx_create_request *req, const char *why, sbx_error *err)
{
    return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED, "backend 'local': create request "
                                 "member 'disk_bytes' of sandbox '%s' is not supported on this "
                                 "host: %s", req->sandbox_id, why);
}

sbx_status local_disk_check(const sbx_create_request *req, sbx_error *err)
{
    if (req->disk_bytes == SBX_LIMIT_NONE)
        return SBX_OK;
    if (req->disk_bytes < LOCAL_DISK_MIN_BYTES)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "backend 'local': create request member "
                                     "'disk_bytes' of sandbox '%s' is %" PRId64 " bytes; the "
                                     "least is %" PRId64 " (1 MiB)", req->sandbox_id,
                                     req->disk_bytes, LOCAL_DISK_MIN_BYTES);
    char why[160], mkfs[PATH_MAX];
    if (geteuid() != 0) {
        snprintf(why, sizeof why, "a file system of its own needs a host running as root "
                 "(a loop device and a mount); this one runs as uid %lu",
                 (unsigned long)geteuid());
        return unsupported(req, why, err);
    }
    if (access("/dev/loop-control", R_OK | W_OK) != 0) {
        snprintf(why, sizeof why, "/dev/loop-control: %s (no loop devices)", strerror(errno));
        return unsupported(req, why, err);
    }
    if (!local_disk_mkfs_find(mkfs, sizeof mkfs))
        return unsupported(req, "no mkfs.ext4 in $PATH, /usr/sbin or /sbin (install e2fsprogs)",
                           err);
    return SBX_OK;
}

sbx_status local_disk_check_reserve(const local_options *options, const sbx_create_request *req,
                                    sbx_error *err)
{
    int64_t disk = req->disk_bytes == SBX_LIMIT_NONE ? 0 : req->disk_bytes;
    if (disk == 0 && options->disk_reserve_bytes == 0)
        return SBX_OK;
    struct statvfs fs;
    if (statvfs(options->state_dir, &fs) != 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "cannot read the free space of %s: "
                                     "%s", options->state_dir, strerror(errno));
    uint64_t free_bytes = (uint64_t)fs.f_bavail * fs.f_frsize;
    uint64_t needed = (uint64_t)disk + (uint64_t)options->disk_reserve_bytes;
    if (free_bytes >= needed)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_REFUSED, "local: not creating sandbox '%s': the "
                                 "file system of %s has %" PRIu64 " bytes free; its disk "
                                 "(disk_bytes %" PRId64 ") and the reserve kept for every "
                                 "sandbox's records (disk_reserve_bytes %ld) need %" PRIu64,
                                 req->sandbox_id, options->state_dir, free_bytes, disk,
                                 options->disk_reserve_bytes, needed);
}

/* The image, allocated whole: what the sandbox writes never takes space
 * that the state directory's file system promised to anyone else.  A file
 * system without fallocate gets a sparse image (docs/local.md says so). */
static sbx_status make_image(const char *image, int64_t size, int *fd, sbx_error *err)
{
    /* Only a release cut short leaves one: it is this id's, and unused. */
    if (unlink(image) != 0 && errno != ENOENT)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "disk: cannot remove %s: %s", image,
                                     strerror(errno));
    *fd = open(image, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (*fd < 0)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "disk: cannot create %s: %s", image,
                                     strerror(errno));
    int rc = posix_fallocate(*fd, 0, (off_t)size);
    if (rc == EOPNOTSUPP || rc == EINVAL)
        rc = ftruncate(*fd, (off_t)size) == 0 ? 0 : errno;
    if (rc == 0)
        return SBX_OK;
    return sbx_backend_error_set(err, rc == ENOSPC || rc == EDQUOT ? SBX_ERR_REFUSED
                                                                   : SBX_ERR_INTERNAL,
                                 "disk: cannot allocate %" PRId64 " bytes for %s: %s", size,
                                 image, strerror(rc));
}

/* The new file system's root is the sandbox directory: the mode local_make_dir
 * gives it, and no lost+found (nothing ever checks this file system). */
static sbx_status prepare_root(const char *dir, sbx_error *err)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int ok = fd >= 0 && fchmod(fd, 0700) == 0 &&
             (unlinkat(fd, "lost+found", AT_REMOVEDIR) == 0 || errno == ENOENT);
    int saved = errno;
    if (fd >= 0)
        close(fd);
    if (ok)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "disk: cannot prepare %s: %s", dir,
                                 strerror(saved));
}

/* Take the state directory's DISKS_LOCK into *fd, waiting for its holder
 * (a create between its check and its allocation: no wait of its own). */
static sbx_status lock_disks(const char *state_dir, int *fd, sbx_error *err)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/" DISKS_LOCK, state_dir) >= (int)sizeof path)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG, "disk: the path of %s/" DISKS_LOCK
                                     " is too long", state_dir);
    *fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
    int rc = *fd < 0 ? -1 : 0;
    while (rc == 0 && flock(*fd, LOCK_EX) != 0)
        rc = errno == EINTR ? 0 : -1;
    if (rc == 0)
        return SBX_OK;
    sbx_backend_error_set(err, SBX_ERR_INTERNAL, "disk: cannot lock %s: %s", path,
                          strerror(errno));
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
    return SBX_ERR_INTERNAL;
}

sbx_status local_disk_make(const local_options *options, const local_paths *paths,
                           const sbx_create_request *req, sbx_error *err)
{
    if (req->disk_bytes == SBX_LIMIT_NONE)
        return SBX_OK;
    char image[PATH_MAX];
    if (!image_path(paths, image, sizeof image))
        return sbx_backend_error_set(err, SBX_ERR_CONFIG, "disk: the image path of %s is too "
                                     "long", paths->dir);
    int fd = -1, lock = -1;
    /* The check again, now that no other create can take the space
     * between it and the allocation. */
    sbx_status st = lock_disks(options->state_dir, &lock, err);
    if (st == SBX_OK)
        st = local_disk_check_reserve(options, req, err);
    if (st == SBX_OK)
        st = make_image(image, req->disk_bytes, &fd, err);
    if (lock >= 0)
        close(lock);
    if (st == SBX_OK)
        st = local_disk_mkfs(image, err);
    if (st == SBX_OK)
        st = local_disk_loop_mount(fd, image, paths->dir, err);
    if (st == SBX_OK)
        st = prepare_root(paths->dir, err);
    if (fd >= 0)
        close(fd);
    return st;
}

sbx_status local_disk_release(const local_paths *paths, sbx_error *err)
{
    char image[PATH_MAX];
    struct stat st;
    if (!image_path(paths, image, sizeof image) || lstat(image, &st) != 0)
        return SBX_OK;
    /* Detached: a process still inside (a host's open file) keeps the file
     * system until it lets go, and the loop device with it; nothing else
     * sees it meanwhile.  Not mounted (a create cut short before): fine. */
    if (umount2(paths->dir, MNT_DETACH | UMOUNT_NOFOLLOW) != 0 && errno != EINVAL &&
        errno != ENOENT)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "disk: cannot unmount %s: %s",
                                     paths->dir, strerror(errno));
    if (unlink(image) != 0 && errno != ENOENT)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "disk: cannot remove %s: %s", image,
                                     strerror(errno));
    return SBX_OK;
}
