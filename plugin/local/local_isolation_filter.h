/*
 * The seccomp deny-list of isolation=namespaces (docs/local.md,
 * "Isolation"), built with libseccomp in the host, before it forks, as a
 * BPF program the command's process installs with async-signal-safe calls.
 */
#ifndef SBX_LOCAL_ISOLATION_FILTER_H
#define SBX_LOCAL_ISOLATION_FILTER_H

#include <sbx/backend.h>

/* The program for this machine's architecture: *filter (an array of
 * *count struct sock_filter), built by the first call that succeeds and
 * shared, never freed (every exec installs the same).  Listed syscalls fail with EPERM
 * (clone3 with ENOSYS, so that libc falls back to clone, whose namespace
 * flags are refused); everything else is allowed.  SBX_ERR_INTERNAL when
 * libseccomp or memory failed.  Thread-safe. */
sbx_status local_isolation_filter_get(const void **filter, unsigned short *count, sbx_error *err);

#endif
