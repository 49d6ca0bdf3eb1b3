/*
 * The sandbox's /tmp for the file operations.  With isolation=namespaces a
 * sandbox's commands see a private tmpfs at /tmp, its holder's, which is
 * no path of the host's: it is reached through the holder's root,
 * /proc/HOLDER/root/tmp, once the holder is known to be the process the
 * record names (pidfd and start time, checked again after the open, so
 * that a recycled pid is never entered).  Paths below it are then
 * resolved beneath it as beneath the sandbox directory (local_confine.h).
 * A root host's thread works there as the tmpfs's owner, the sandbox's
 * ids, until local_sandbox_tmp_close.
 */
#ifndef SBX_LOCAL_SANDBOX_TMP_H
#define SBX_LOCAL_SANDBOX_TMP_H

#include "plugin/local/local_confine.h"
#include "plugin/local/local_process.h"

/* What the file operations' paths under /tmp name. */
#define LOCAL_SANDBOX_TMP "/tmp"

/* 1 when absolute `path` is /tmp or below it. */
int local_sandbox_tmp_names(const char *path);

/* Open (O_PATH) the /tmp of the sandbox whose holder is `holder` (pid 0:
 * none) for `op` on `path` into root->fd.  SBX_ERR_UNSUPPORTED when there
 * is no holder running (each exec then has a /tmp of its own, gone with
 * it); SBX_ERR_PERMISSION when the host may not enter the holder (it
 * needs ptrace read access to it); SBX_ERR_INTERNAL otherwise.  Every
 * message names the path and says that nothing was read or written. */
sbx_status local_sandbox_tmp_open(const local_process *holder, const char *op, const char *path,
                                  local_root *root, sbx_error *err);

/* Close the root of a file operation (root->fd -1 is fine); after the
 * sandbox's /tmp, give the calling thread back its own file system ids,
 * which a root host's thread left for the tmpfs owner's while it worked
 * there (the ids of one thread only: setfsuid). */
void local_sandbox_tmp_close(local_root *root);

#endif
