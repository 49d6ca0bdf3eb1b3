/* Who each sandbox belongs to, as sbx-provisiond knows it: the user, the
 * effective thread, the mounts' signature and the mount contract it was
 * created under.  A backend can tell the user and thread of its sandboxes
 * (the local backend's records, the docker backend's labels), but not the
 * mounts or the contract, and a module may tell nothing: the daemon keeps
 * these records itself so that a sandbox is handed to nobody but the one
 * who asked for it.  Kept in memory, and written through to a directory
 * when one is configured (--state-dir), so that a restart forgets nothing.
 * Thread-safe. */
#ifndef SBX_PROVD_OWNERS_H
#define SBX_PROVD_OWNERS_H

#include <stddef.h>

#include "tools/provisioner-common/prov_answers.h"

typedef struct provd_owners provd_owners;

/* One record; its strings are owned (release with provd_record_clear). */
typedef struct provd_record {
    char *user_id;
    char *thread_id;
    char *mounts;
    int contract_version;
} provd_record;

/* Open the records, loading those of `dir` (NULL: memory only; the
 * directory is created, mode 0700, when missing).  A record file that
 * cannot be read is skipped and named in `warn(warn_ctx, line)`: its
 * sandbox then has no record, which the daemon treats as unverifiable.
 * Returns NULL with the reason in `why` when `dir` cannot be used. */
provd_owners *provd_owners_open(const char *dir, void (*warn)(void *, const char *),
                                void *warn_ctx, char *why, size_t why_len);

/* Free everything (the files stay).  NULL is accepted. */
void provd_owners_free(provd_owners *owners);

/* Serialise everything done about sandbox `id` (a create must not race a
 * create or destroy of the same id).  Calls for other ids may share the
 * lock; the lock is not recursive. */
void provd_owners_lock(provd_owners *owners, const char *id);
void provd_owners_unlock(provd_owners *owners, const char *id);

/* Copy the record of `id` into *out: 1 when there is one, 0 when not,
 * -1 when memory runs out (*out zeroed in both). */
int provd_owners_get(provd_owners *owners, const char *id, provd_record *out);

/* Set the record of `id` (strings copied), writing it through to the
 * directory.  Returns 1; 0 with the reason in `why` when the file cannot
 * be written; -1 when memory runs out (the record is then not set). */
int provd_owners_put(provd_owners *owners, const char *id, const sbx_prov_owner *owner,
                     char *why, size_t why_len);

/* Forget `id` (no record is fine).  Returns 1, or 0 with the reason in
 * `why` when its file cannot be removed. */
int provd_owners_remove(provd_owners *owners, const char *id, char *why, size_t why_len);

/* The record as the shared answers and checks read it (borrowed). */
sbx_prov_owner provd_record_owner(const provd_record *record);

/* Release a record's strings and zero it. */
void provd_record_clear(provd_record *record);

#endif
