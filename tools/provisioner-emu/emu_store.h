/* The emulated cluster behind the provisioner: per sandbox id a Pod
 * (identity, mount signature, contract version, uid, phase) and a Service
 * (its node port), each of which can exist without the other, as in
 * Kubernetes.  The /api handlers drive it through Kubernetes-like calls that
 * answer 0 (done), 404 (no such object), 409 (already exists) or an injected
 * API failure (emu_store_inject), so they can follow the real
 * provisioner's flow, partial states and error paths included.
 * Thread-safe: one internal mutex; everything handed out is a private copy
 * owned by the caller. */
#ifndef EMU_STORE_H
#define EMU_STORE_H

#include <stddef.h>
#include <json-c/json.h>

#include "tools/provisioner-emu/emu_uid.h"

typedef struct emu_store emu_store;

/* The Kubernetes API calls the provisioner makes, each of which can be made
 * to fail (emu_store_inject). */
typedef enum emu_kube_op {
    EMU_KUBE_READ_NAMESPACE = 0,
    EMU_KUBE_READ_POD,
    EMU_KUBE_READ_SERVICE,
    EMU_KUBE_LIST_SERVICES,
    EMU_KUBE_CREATE_POD,
    EMU_KUBE_CREATE_SERVICE,
    EMU_KUBE_DELETE_POD,
    EMU_KUBE_DELETE_SERVICE,
    EMU_KUBE_OP_COUNT
} emu_kube_op;

/* Bytes of a Kubernetes failure reason, NUL included. */
#define EMU_REASON_MAX 128

/* A copy of one Pod.  Release with emu_pod_clear. */
typedef struct emu_pod {
    char *user_id;
    char *thread_id;            /* the effective thread (the sandbox id when none was asked) */
    char *mounts;               /* the mount signature (emu_mounts.h) */
    int contract_version;       /* the emulator's version when the Pod was created */
    char *phase;                /* Pending, Running, Failed, ... */
    char uid[EMU_UID_LEN + 1];
} emu_pod;

/* A listed Service: its sandbox and URL, or a stored sandbox's verbatim
 * answer.  Release an array of them with emu_listed_free. */
typedef struct emu_listed {
    char *sandbox_id;
    char *url;
    json_object *verbatim;      /* non-NULL: answer this object as it is */
} emu_listed;

/* A cluster whose Services get URLs http://NODE_HOST:PORT (ports from 30000
 * up) and whose Pods report `phase` once `pending_ms` have passed since
 * their creation (`Pending` before).  Strings are copied. */
emu_store *emu_store_new(const char *node_host, const char *phase, long pending_ms);

/* From now on, Service URLs are `base` (copied) followed by the sandbox
 * id, percent-encoded: the emulator's own AIO routes (emu_aio.h). */
void emu_store_set_url_base(emu_store *store, const char *base);

/* Whether sandbox `id` has a Pod and a Service (what its URL needs), and
 * then the Pod's uid in `uid`.  No injected failure applies: this is the
 * emulator's own lookup, not a provisioner's Kubernetes call. */
int emu_store_serves(emu_store *store, const char *id, char uid[EMU_UID_LEN + 1]);

/* Free the store and everything in it.  NULL is accepted. */
void emu_store_free(emu_store *store);

/* The name of a Kubernetes call in the control API ("read_pod", ...);
 * static.  Only for ops in [0, EMU_KUBE_OP_COUNT). */
const char *emu_kube_op_name(emu_kube_op op);

/* The op called `name`, or -1 for an unknown name or NULL. */
int emu_kube_op_from_name(const char *name);

/* Make the next `times` calls of `op` (-1: every call until reset) fail with
 * HTTP `status` and `reason` (copied; NULL: the status's reason phrase);
 * only calls about sandbox `sandbox_id` when it is not NULL.  Replaces any
 * failure queued for `op`; `times` 0 removes it. */
void emu_store_inject(emu_store *store, emu_kube_op op, int status,
                          const char *reason, int times, const char *sandbox_id);

/* Read the namespace: 0, or an injected failure status with its reason in
 * `reason` (EMU_REASON_MAX bytes; every call below fills it likewise). */
int emu_store_read_namespace(emu_store *store, char *reason);

/* Read Pod `id`: 0 with *out filled (release with emu_pod_clear), 404,
 * or a failure status. */
int emu_store_read_pod(emu_store *store, const char *id, emu_pod *out,
                           char *reason);

/* Read Service `id`: 0 with *url (a new string to free), 404, or a failure. */
int emu_store_read_service(emu_store *store, const char *id, char **url,
                               char *reason);

/* Every Service in creation order: 0 with a new array in *out (`*count`
 * entries; free with emu_listed_free), or a failure status. */
int emu_store_list_services(emu_store *store, emu_listed **out, size_t *count,
                                char *reason);

/* Free what emu_store_list_services returned. */
void emu_listed_free(emu_listed *listed, size_t count);

/* Create Pod `id` with this identity (`pod`'s uid and phase are ignored: a
 * new uid is drawn, the phase starts over): 0, 409 when it exists, or a
 * failure status. */
int emu_store_create_pod(emu_store *store, const char *id, const emu_pod *pod,
                             char *reason);

/* Create Service `id` with the next node port: 0, 409 when it exists, or a
 * failure status. */
int emu_store_create_service(emu_store *store, const char *id, char *reason);

/* Delete Pod `id`: 0, 404 when there is none, or a failure status. */
int emu_store_delete_pod(emu_store *store, const char *id, char *reason);

/* Delete Service `id`: 0, 404 when there is none, or a failure status. */
int emu_store_delete_service(emu_store *store, const char *id, char *reason);

/* Remove the Pod (`pod` 1) or the Service (`pod` 0) of `id` behind the
 * provisioner's back, leaving the other: the partial states a half-done
 * cleanup leaves.  Returns 1, or 0 when there was no such object. */
int emu_store_remove_part(emu_store *store, const char *id, int pod);

/* Store `fields` (a JSON object, deep-copied) as sandbox `id` with a Pod
 * and a Service, replacing what was there: get, list and create answer it
 * verbatim from then on. */
void emu_store_put(emu_store *store, const char *id, json_object *fields);

/* A copy of the verbatim answer of stored sandbox `id` (caller puts), or
 * NULL when `id` was not stored by emu_store_put (or is gone). */
json_object *emu_store_verbatim(emu_store *store, const char *id);

/* Set the phase Pod `id` reports from now on (copied).  Returns 1, or 0
 * when there is no such Pod. */
int emu_store_set_phase(emu_store *store, const char *id, const char *phase);

/* Release what a Pod copy holds (and zero it). */
void emu_pod_clear(emu_pod *pod);

/* Remove every Pod, Service and injected failure; restart port numbering. */
void emu_store_reset(emu_store *store);

#endif
