/* An image file mounted through a loop device (see local_disk_loop.h). */
#include <config.h>

#include "plugin/local/local_disk_loop.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#define LOOP_CONTROL "/dev/loop-control"

/* How many free devices are tried: another process (a concurrent create,
 * losetup) may take the one the kernel named before we configure it. */
#define ATTACH_ATTEMPTS 16

/* Configure the free device of number `n` with the image; its descriptor,
 * or -1 with errno (EBUSY: taken meanwhile). */
static int configure(int n, int image_fd, const char *image, char *dev, size_t size)
{
    snprintf(dev, size, "/dev/loop%d", n);
    int fd = open(dev, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct loop_config config;
    memset(&config, 0, sizeof config);
    config.fd = (unsigned int)image_fd;
    config.info.lo_flags = LO_FLAGS_AUTOCLEAR;
    snprintf((char *)config.info.lo_file_name, sizeof config.info.lo_file_name, "%s", image);
    if (ioctl(fd, LOOP_CONFIGURE, &config) == 0)
        return fd;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

/* A free loop device configured with the image into *fd (its path in
 * dev). */
static sbx_status attach(int image_fd, const char *image, char *dev, size_t size, int *fd,
                         sbx_error *err)
{
    int control = open(LOOP_CONTROL, O_RDWR | O_CLOEXEC);
    if (control < 0)
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED, "disk: cannot open %s: %s (a "
                                     "disk limit needs loop devices)", LOOP_CONTROL,
                                     strerror(errno));
    int e = 0;
    *fd = -1;
    dev[0] = '\0';
    for (int attempt = 0; attempt < ATTACH_ATTEMPTS && *fd < 0; attempt++) {
        int n = ioctl(control, LOOP_CTL_GET_FREE);
        if (n < 0) {
            e = errno;
            snprintf(dev, size, "%s", LOOP_CONTROL);
            break;
        }
        *fd = configure(n, image_fd, image, dev, size);
        e = *fd < 0 ? errno : 0;
        if (*fd < 0 && e != EBUSY)
            break;
    }
    close(control);
    if (*fd >= 0)
        return SBX_OK;
    if (e == EINVAL || e == ENOTTY)
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED, "disk: %s: the kernel lacks "
                                     "LOOP_CONFIGURE (Linux >= 5.8)", dev);
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "disk: cannot attach %s to a loop "
                                 "device (%s): %s", image, dev, strerror(e));
}

sbx_status local_disk_loop_mount(int image_fd, const char *image, const char *dir,
                                 sbx_error *err)
{
    char dev[64];
    int fd = -1;
    sbx_status st = attach(image_fd, image, dev, sizeof dev, &fd, err);
    if (st != SBX_OK)
        return st;
    if (mount(dev, dir, "ext4", MS_NOSUID | MS_NODEV, NULL) != 0)
        st = sbx_backend_error_set(err, errno == ENODEV ? SBX_ERR_UNSUPPORTED : SBX_ERR_INTERNAL,
                                   "disk: cannot mount %s (%s) at %s: %s", dev, image, dir,
                                   strerror(errno));
    /* Autoclear: the device detaches when the mount (if made) goes. */
    close(fd);
    return st;
}
