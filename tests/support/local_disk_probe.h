/* Whether the local backend can give a sandbox a disk of its own on this
 * machine, for the suites that create one (through sbxctl or a daemon). */
#ifndef SBX_TEST_LOCAL_DISK_PROBE_H
#define SBX_TEST_LOCAL_DISK_PROBE_H

/* Why local cannot make a sandbox a disk here, as a phrase for a SKIP line
 * (static); NULL when it can: it needs root, loop devices and mkfs.ext4
 * (docs/local.md, "Disk"), so a suite expects a create with disk_bytes to
 * work exactly when this is NULL. */
const char *sbx_test_why_no_local_disk(void);

#endif
