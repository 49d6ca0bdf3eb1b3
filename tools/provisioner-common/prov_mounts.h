/* The provisioner's own rules for a create's extra mounts (after the body
 * has the right shape): how many, which container paths, which host paths,
 * and the read-only upload-conversions overlay.  Failures are the real
 * provisioner's 400 {"detail": "..."} texts, first problem wins. */
#ifndef PROV_MOUNTS_H
#define PROV_MOUNTS_H

#include <json-c/json.h>

#include "tools/provisioner-common/prov_reply.h"

/* The real provisioner's limit on extra mounts in one create. */
#define PROV_MAX_EXTRA_MOUNTS 9

/* The real provisioner's default host state directory
 * (DEER_FLOW_HOST_BASE_DIR): every extra mount's host path lies under it. */
#define PROV_DEFAULT_STATE_DIR "/.deer-flow"

/* Check `mounts` (a JSON array of well-typed {host_path, container_path,
 * read_only?} objects, or NULL for none) for a sandbox of `user_id` and
 * thread `thread_id` (the effective thread: the sandbox id when the request
 * had none), with host paths under `state_dir`.  Returns the mounts' signature
 * (a new string naming the normalised mounts in order: two creates whose
 * signatures differ ask for different sandboxes), or NULL with `reply`
 * holding the 400 answer. */
char *prov_mounts_check(json_object *mounts, const char *user_id, const char *thread_id,
                            const char *state_dir, prov_reply *reply);

#endif
