/* The docker backend's lists of sandboxes: list_running and list_records,
 * each one streamed GET /containers/json.  A listed sandbox past its
 * label's expiry is settled (docker_expiry_settle) only once the list's
 * answer is read: the engine calls that settling makes never run inside
 * the list's own transfer. */
#ifndef SBX_DOCKER_LIST_H
#define SBX_DOCKER_LIST_H

#include "plugin/docker/docker_instance.h"

/* The running sandboxes with a published port (an array the caller frees
 * with the backend's free_sandboxes), *count of them. */
sbx_status docker_list_running(sbx_backend_instance *inst, sbx_sandbox **out,
                               size_t *count, sbx_error *err);

/* Every running sandbox as a record (ABI 1.2), a port or not: a chain the
 * caller frees with common_records_free, *count of them. */
sbx_status docker_list_records(sbx_backend_instance *inst, sbx_sandbox_record **out,
                               size_t *count, sbx_error *err);

#endif
