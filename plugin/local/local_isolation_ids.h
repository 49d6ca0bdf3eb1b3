/*
 * The host uid and gid a sandbox's processes run as with
 * isolation=namespaces (docs/local.md, "Isolation"): the host's own on an
 * unprivileged host; on a host running as root never root, but the
 * options sandbox_uid and sandbox_gid, else the first id of root's range
 * in /etc/subuid and /etc/subgid, else LOCAL_ISOLATION_DEFAULT_ID.  The
 * sandbox's uid and gid inside map to these, and its directory is theirs.
 */
#ifndef SBX_LOCAL_ISOLATION_IDS_H
#define SBX_LOCAL_ISOLATION_IDS_H

#include "plugin/local/local_isolation.h"

#include <sbx/backend.h>

/* Without a configured id or a subordinate range of root's: an id outside
 * what useradd (100000 up), container managers (LXD from 1000000,
 * systemd-nspawn up to 1879048191) and systemd's own ranges allocate. */
#define LOCAL_ISOLATION_DEFAULT_ID 2000000000L

/* Complete `options` (parsed; host_uid and host_gid -1 when not given):
 * the ids, and whether the sandbox's processes switch to them (a root
 * host with isolation=namespaces).  SBX_ERR_CONFIG naming the option when
 * an unprivileged host is given ids other than its own (it cannot run
 * anything as another user). */
sbx_status local_isolation_ids_resolve(local_isolation_options *options, sbx_error *err);

/* Give the sandbox directory `path`, just made by the host, to the ids
 * when the processes switch to them.  SBX_ERR_UNSUPPORTED naming the
 * options when the kernel refuses (an id this host cannot name). */
sbx_status local_isolation_ids_own(const local_isolation_options *options, const char *path,
                                   sbx_error *err);

#endif
