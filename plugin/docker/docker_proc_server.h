/*
 * The process calls' way into a container: a request to the process
 * server (the helper's `serve`, docker_proc_wire.h) over an attached exec
 * started once per instance and container and then kept (an idle
 * connection per caller at a time, docker_proc_links.h), instead of an
 * exec of the engine per call (0.7 s each on podman).  Where the server
 * cannot run (the helper cannot be copied in or cannot run there: a /tmp
 * mounted noexec, an image of another architecture), the call is one exec
 * as before, and the container is remembered as such.  Thread-safe as the
 * instance is.  docs/docker.md "Processes (ABI 1.4)".
 */
#ifndef SBX_DOCKER_PROC_SERVER_H
#define SBX_DOCKER_PROC_SERVER_H

#include "plugin/docker/docker_exec.h"

/* Run `spec`, a run of the process script (`/bin/sh -c SCRIPT $0 OP
 * ARGS...`, whose read and wait the server may answer itself; its env
 * and on_output unused: the script needs neither) in the target's
 * container through its server, else as docker_exec_run does, with
 * docker_exec_run's answers: SBX_OK with *out (common_exec_result_free)
 * whenever it ran, TIMED_OUT past spec->timeout_ms; SBX_ERR_NO_SUCH_PATH
 * for a missing working directory; SBX_ERR_NOT_FOUND when the container
 * went away; transport and protocol errors when a server fails in the
 * middle of a call. */
sbx_status docker_proc_exec_run(sbx_backend_instance *inst, const docker_target *t,
                                const docker_exec_spec *spec, sbx_exec_result **out,
                                sbx_error *err);

#endif
