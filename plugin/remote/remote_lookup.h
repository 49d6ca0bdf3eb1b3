/*
 * Calls on one sandbox's path of the provisioner (GET or DELETE
 * /api/sandboxes/<id> and the like) and the lookup every operation on a
 * sandbox starts with: its answer read and checked as discover does.
 * Safe on many threads at once.
 */
#ifndef SBX_REMOTE_LOOKUP_H
#define SBX_REMOTE_LOOKUP_H

#include <sbx/backend.h>

#include "common/http_client.h"
#include "plugin/remote/remote_instance.h"
#include "plugin/remote/remote_create_spec.h"
#include "plugin/remote/remote_sandbox_answer.h"

#define REMOTE_SANDBOXES_PREFIX "/api/sandboxes/"

/* One call on a sandbox's path: <prefix><id>. */
typedef struct remote_sandbox_call {
    const char *method;     /* "GET" or "DELETE" */
    const char *prefix;     /* the path before the id, e.g. REMOTE_SANDBOXES_PREFIX */
    const char *sandbox_id;
    const char *action;     /* names the call in messages (remote_call_name) */
    long timeout_ms;
} remote_sandbox_call;

/* "Provisioner <action> failed for <id>" (the reference client's words)
 * into what[128] (a checked id fits; a cut would be marked); returns what. */
const char *remote_call_name(char what[128], const char *action, const char *sandbox_id);

/* Make `call` (its id already checked) into *resp, cleared by the caller
 * with common_http_response_clear on SBX_OK; a failure is described in
 * *cause, for the caller to name. */
sbx_status remote_call_sandbox(sbx_backend_instance *inst, const remote_sandbox_call *call,
                               common_http_response *resp, sbx_error *cause);

/* The start of destroy, is_alive and discover: refuse an invalid id before
 * anything is sent, and make `call`; a failure is named
 * remote_call_name(what, call->action, id). */
sbx_status remote_start_sandbox_call(sbx_backend_instance *inst,
                                     const remote_sandbox_call *call,
                                     common_http_response *resp, sbx_error *err);

/* remote_discover's lookup without the record: the answer read into
 * *answer, its checked members into *f (strings borrowed from *answer),
 * with every check and error of remote_discover.  Free *answer with
 * remote_sandbox_answer_free whatever this returns. */
sbx_status remote_lookup(sbx_backend_instance *inst, const char *sandbox_id,
                         remote_sandbox_answer *answer, remote_fields *f, sbx_error *err);

/* remote_lookup that also reads the answer's labels into *labels (cleared
 * by the caller with remote_answer_labels_clear whatever this returns). */
sbx_status remote_lookup_labelled(sbx_backend_instance *inst, const char *sandbox_id,
                                  remote_sandbox_answer *answer, remote_fields *f,
                                  remote_answer_labels *labels, sbx_error *err);

#endif /* SBX_REMOTE_LOOKUP_H */
