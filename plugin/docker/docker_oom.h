/*
 * An exec killed by the sandbox's memory limit (sbx_exec_result.oom_killed,
 * docs/docker.md "Memory"), whichever of the container's processes the
 * kernel killed.  The exec's wrapper reads the container's count of OOM
 * kills at its start (DOCKER_OOM_COUNT_SH: cgroup v2 memory.events or v1
 * memory.oom_control, as the container sees its own cgroup); an exec whose
 * command ended by SIGKILL reads it again and compares.  Where the
 * container cannot read it, the engine's events are asked: Docker reports
 * each OOM kill as a container event "oom" (podman does not).
 */
#ifndef SBX_DOCKER_OOM_H
#define SBX_DOCKER_OOM_H

#include "plugin/docker/docker_target.h"

/* How long after the command's end an "oom" event may still be on its way
 * (the engine learns the OOM and the exit separately), in ms: a SIGKILLed
 * exec waits that long for the answer. */
#define DOCKER_OOM_EVENT_SLACK_MS 200

/* Shell text that sets $o to the count of OOM kills in the container's
 * memory cgroup, or to "" when no such file is readable there.  Builtins
 * only: every exec's wrapper runs it. */
#define DOCKER_OOM_COUNT_SH                                                                \
    "o=; for f in /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory/memory.oom_control; " \
    "do [ -r \"$f\" ] && while read -r k v; do [ \"$k\" = oom_kill ] && o=$v; done < \"$f\"; " \
    "done"

/* The count of OOM kills not known (DOCKER_OOM_COUNT_SH set $o to ""). */
#define DOCKER_OOM_UNKNOWN (-1L)

/* Set r->oom_killed when `r` (an exec's result in the container of `t`,
 * r->duration_ms long, ending now) is of a command killed by SIGKILL and
 * an OOM kill happened in that container meanwhile: its count is above
 * `before` (the count at the exec's start, or DOCKER_OOM_UNKNOWN: then
 * the engine's events say).  Any other result is left as it is without a
 * call.  Best effort: a count or an engine that cannot say (an error, an
 * answer not understood) leaves oom_killed 0, logged at DEBUG.
 * Thread-safe. */
void docker_oom_note(sbx_backend_instance *inst, const docker_target *t, long before,
                     sbx_exec_result *r);

#endif
