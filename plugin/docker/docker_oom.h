/*
 * An exec killed by the sandbox's memory limit (sbx_exec_result.oom_killed,
 * docs/docker.md "Memory"): the engine reports each OOM kill in a
 * container's cgroup as a container event "oom" (Docker), whichever of its
 * processes the kernel killed; an exec whose command ended by SIGKILL asks
 * the engine's events for one during the exec.
 */
#ifndef SBX_DOCKER_OOM_H
#define SBX_DOCKER_OOM_H

#include "plugin/docker/docker_target.h"

/* How long after the command's end an "oom" event may still be on its way
 * (the engine learns the OOM and the exit separately), in ms: a SIGKILLed
 * exec waits that long for the answer. */
#define DOCKER_OOM_EVENT_SLACK_MS 200

/* Set r->oom_killed when `r` (an exec's result in the container of `t`,
 * r->duration_ms long, ending now) is of a command killed by SIGKILL and
 * the engine reported an OOM kill in that container meanwhile.  Any other
 * result is left as it is without a call.  Best effort: an engine that
 * cannot say (an error, an answer not understood) leaves oom_killed 0,
 * logged at DEBUG.  Thread-safe. */
void docker_oom_note(sbx_backend_instance *inst, const docker_target *t, sbx_exec_result *r);

#endif
