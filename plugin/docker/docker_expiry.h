/*
 * Expiry of docker sandboxes (ABI 1.5's expires_at): the create's expiry
 * is the container's label sbx.expires_at, which no engine call can
 * change; `extend` therefore writes an override, a file in the container
 * (DOCKER_EXPIRY_DIR/DOCKER_EXPIRY_FILE, through the archive API), read
 * only once the label's time has passed (or when a record is asked for),
 * so that a sandbox without an expiry, or before it, costs no call.
 * Whoever sees a container past its expiry (inspect paths, list)
 * removes it.  Thread-safe: the state is the engine's.
 */
#ifndef SBX_DOCKER_EXPIRY_H
#define SBX_DOCKER_EXPIRY_H

#include "plugin/docker/docker_instance.h"

#include <stdint.h>

/* Where extend keeps the override: /tmp exists in every image the
 * backend runs, and its file survives a stop and start. */
#define DOCKER_EXPIRY_DIR "/tmp"
#define DOCKER_EXPIRY_FILE ".sbx-expires_at"

/* Longest label or override text: an int64's digits. */
#define DOCKER_EXPIRY_TEXT_MAX 24

/* Read `text` (decimal ms since the epoch, 1 to INT64_MAX, no sign or
 * spaces) into *out.  1 when it is one, else 0.  Pure. */
int docker_expiry_parse(const char *text, int64_t *out);

/* The expiry of the sandbox `sandbox_id` in container `container_id`
 * (NULL: the sandbox's name), `*expires_at` its label's on entry: when
 * that has passed, or `always` is set, the override replaces it where one
 * is kept.  A sandbox past the result is removed and SBX_ERR_NOT_FOUND
 * ("it passed its expiry and was destroyed").  An override that cannot be
 * read (engine errors) is logged and the label's time stands; SBX_OK
 * otherwise. */
sbx_status docker_expiry_settle(sbx_backend_instance *inst, const char *sandbox_id,
                                const char *container_id, int always, int64_t *expires_at,
                                sbx_error *err);

/* The descriptor's extend: move the expiry of `sandbox_id` to
 * `expires_at` (the host checked it is in the future).  SBX_ERR_NOT_FOUND
 * for no sandbox or one past its expiry (then removed); SBX_ERR_USAGE
 * naming expires_at for one created without an expiry;
 * SBX_ERR_UNSUPPORTED for a time before the create's (its label cannot
 * move); the archive call's errors. */
sbx_status docker_extend(sbx_backend_instance *inst, const char *sandbox_id, int64_t expires_at,
                         sbx_error *err);

#endif
