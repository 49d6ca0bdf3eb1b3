/*
 * The holder of an isolated sandbox (isolation=namespaces, docs/local.md
 * "Isolation"): a process started at create that keeps the sandbox's
 * user, mount, ipc, uts, network and pid namespaces and its private root
 * for the sandbox's life, so that an exec joins them (setns on its pidfd)
 * instead of building them.  It is pid 1 of its pid namespace and runs
 * nothing: killing it (destroy) ends that namespace.  The sandbox's record
 * names it by pid and start time (local_process), so that any process
 * sharing the state directory finds it and none signals a recycled pid.
 */
#ifndef SBX_LOCAL_HOLDER_H
#define SBX_LOCAL_HOLDER_H

#include "plugin/local/local_isolation.h"
#include "plugin/local/local_process.h"
#include "plugin/local/local_state.h"

/* A holder being started (local_holder_start), until local_holder_ready
 * or local_holder_abandon; no field is the caller's. */
typedef struct local_holder_launch {
    local_isolation_plan plan;
    int go;        /* the host's end of the holder's channel */
    pid_t first;   /* the holder's first process, until reaped */
} local_holder_launch;

/* Start the holder of sandbox directory `sandbox_dir` (absolute, borrowed
 * until local_holder_ready or _abandon; it need not exist yet), with the
 * sandbox's `network` (LOCAL_NETWORK_*: with host, no network namespace
 * of its own): the holder makes its namespaces and what of its root needs no directory
 * while the caller makes the directory (and its record).  Then
 * local_holder_ready, or local_holder_abandon (the holder exits).
 * SBX_ERR_INTERNAL when it cannot be started.  Thread-safe. */
sbx_status local_holder_start(const local_isolation_options *options, int network,
                              const char *sandbox_dir, local_holder_launch *launch,
                              sbx_error *err);

/* The sandbox directory now exists: let the holder bind it and wait until
 * its root is built.  It then waits, holding nothing of the host's, for
 * local_holder_go on *go_fd (so that the caller records *out first) and
 * exits if the channel closes without it.  `launch` is done with either
 * way.  SBX_ERR_UNSUPPORTED naming the option and the step when the
 * kernel refuses (namespaces not allowed, ...), SBX_ERR_INTERNAL when the
 * holder is gone or silent. */
sbx_status local_holder_ready(local_holder_launch *launch, local_process *out, int *go_fd,
                              sbx_error *err);

/* Give up a started holder (it exits) and free `launch`. */
void local_holder_abandon(local_holder_launch *launch);

/* Let the started holder stay (it outlives the host); *go_fd closes.
 * SBX_ERR_INTERNAL when it is gone. */
sbx_status local_holder_go(int *go_fd, sbx_error *err);

/* Close *go_fd if still open (a holder without its go exits). */
void local_holder_release(int *go_fd);

/* A pidfd of `holder` when it runs and is that process; -1 otherwise. */
int local_holder_pin_process(const local_process *holder);

#endif
