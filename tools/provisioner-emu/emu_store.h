/* The emulated sandboxes (the provisioner's Pods and Services).
 * Thread-safe: one internal mutex; every JSON value handed out is a private
 * deep copy owned by the caller (json_object_put it). */
#ifndef SBX_EMU_STORE_H
#define SBX_EMU_STORE_H

#include <json-c/json.h>

#include "tools/provisioner-emu/emu_uid.h"

typedef struct sbx_emu_store sbx_emu_store;

/* A store whose sandboxes get URLs http://NODE_HOST:PORT (ports from 30000
 * up) and status `initial_status`.  Both strings are copied. */
sbx_emu_store *sbx_emu_store_new(const char *node_host, const char *initial_status);

/* Free the store and every sandbox in it.  NULL is accepted. */
void sbx_emu_store_free(sbx_emu_store *store);

/* Create sandbox `id` unless it exists (then the existing one is kept and
 * these arguments are ignored, as the reference's idempotent create).
 * thread_id may be NULL (stays null).  Returns the sandbox's answer view
 * (see sbx_emu_store_find). */
json_object *sbx_emu_store_create(sbx_emu_store *store, const char *id,
                                  const char *user_id, const char *thread_id,
                                  int contract_version, int with_identity);

/* Store `fields` (a JSON object, deep-copied) as sandbox `id`, replacing
 * any sandbox of that id; answered verbatim from then on. */
void sbx_emu_store_put(sbx_emu_store *store, const char *id, json_object *fields);

/* The answer view of sandbox `id`, or NULL when there is none.  Created
 * sandboxes show sandbox_id, sandbox_url and status, plus user_id,
 * thread_id and mount_contract_version when `with_identity`; stored ones
 * show their stored fields.  When `incarnation` is not NULL it receives the
 * sandbox's pod uid. */
json_object *sbx_emu_store_find(sbx_emu_store *store, const char *id, int with_identity,
                                char incarnation[SBX_EMU_UID_LEN + 1]);

/* A JSON array of every sandbox's view, in creation order. */
json_object *sbx_emu_store_list(sbx_emu_store *store, int with_identity);

/* Remove sandbox `id`; returns 1 when it existed, 0 otherwise. */
int sbx_emu_store_delete(sbx_emu_store *store, const char *id);

/* Remove every sandbox and restart port numbering. */
void sbx_emu_store_reset(sbx_emu_store *store);

#endif
