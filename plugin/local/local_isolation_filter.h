/*
 * The seccomp deny-list of isolation=namespaces (docs/local.md,
 * "Isolation"), built with libseccomp in the host, before it forks, as a
 * BPF program the command's process installs with async-signal-safe calls.
 */
#ifndef SBX_LOCAL_ISOLATION_FILTER_H
#define SBX_LOCAL_ISOLATION_FILTER_H

#include <sbx/backend.h>

/* The program for this machine's architecture: *filter (malloc'ed, the
 * caller's: an array of *count struct sock_filter).  Listed syscalls fail
 * with EPERM (clone3 with ENOSYS, so that libc falls back to clone, whose
 * namespace flags are refused); everything else is allowed.
 * SBX_ERR_INTERNAL when libseccomp or memory fails. */
sbx_status local_isolation_filter_build(void **filter, unsigned short *count, sbx_error *err);

#endif
