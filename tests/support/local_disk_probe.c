/* What the local backend's disks need (see local_disk_probe.h). */
#include <config.h>

#include "tests/support/local_disk_probe.h"

#include <stdlib.h>
#include <unistd.h>

const char *sbx_test_why_no_local_disk(void)
{
    if (geteuid() != 0)
        return "not root (a disk needs a loop device and a mount)";
    if (access("/dev/loop-control", R_OK | W_OK) != 0)
        return "no /dev/loop-control (no loop devices)";
    /* Where the backend looks: $PATH, then the sbin directories. */
    if (system("command -v mkfs.ext4 >/dev/null 2>&1 || test -x /usr/sbin/mkfs.ext4 || "
               "test -x /sbin/mkfs.ext4") != 0)
        return "no mkfs.ext4";
    return NULL;
}
