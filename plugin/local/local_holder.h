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

#include "plugin/local/local_instance.h"
#include "plugin/local/local_isolation.h"
#include "plugin/local/local_process.h"
#include "plugin/local/local_state.h"

/* Start the holder of sandbox directory `sandbox_dir` (absolute) and wait
 * until its namespaces and root are built.  It then waits, holding
 * nothing of the host's, for local_holder_go on *go_fd (so that the
 * caller records *out first) and exits if the channel closes without it.
 * SBX_ERR_UNSUPPORTED naming the option and the step when the kernel
 * refuses (namespaces not allowed, ...), SBX_ERR_INTERNAL when it cannot
 * be started.  Thread-safe. */
sbx_status local_holder_start(const local_isolation_options *options, const char *sandbox_dir,
                              local_process *out, int *go_fd, sbx_error *err);

/* Let the started holder stay (it outlives the host); *go_fd closes.
 * SBX_ERR_INTERNAL when it is gone. */
sbx_status local_holder_go(int *go_fd, sbx_error *err);

/* Close *go_fd if still open (a holder without its go exits). */
void local_holder_release(int *go_fd);

/* A pidfd of the holder the record of `paths` names (read through the
 * instance's cache), when it runs and is that process (the pidfd pins
 * it); -1 when there is none. */
int local_holder_pin(sbx_backend_instance *inst, const local_paths *paths);

/* A pidfd of `holder` when it runs and is that process; -1 otherwise. */
int local_holder_pin_process(const local_process *holder);

#endif
