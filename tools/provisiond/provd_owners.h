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
#include <stdint.h>

#include "tools/provisioner-common/prov_answers.h"

typedef struct provd_owners provd_owners;

/* One record; its strings are owned (release with provd_record_clear). */
typedef struct provd_record {
    char *user_id;
    char *thread_id;
    char *mounts;
    int contract_version;
    char *token;                /* the sandbox API capability (NULL: none, a
                                 * record written before the daemon served it) */
    int64_t expires_at;         /* when the daemon destroys it: ms since the
                                 * Unix epoch; 0: never */
} provd_record;

/* What a record keeps besides its owner; strings borrowed. */
typedef struct provd_keep {
    const char *token;          /* the sandbox API capability (NULL: none) */
    int64_t expires_at;         /* ms since the Unix epoch; 0: never */
} provd_keep;

/* What provd_owners_get finds besides a record (1) or none (0). */
#define PROVD_RECORD_UNREADABLE 2   /* its file could not be read at start-up */

/* Open the records, loading those of `dir` (NULL: memory only; the
 * directory is created, mode 0700, when missing).  Files are opened
 * without blocking or following links and must be regular files of at
 * most 64 KiB.  A record file that cannot be read (a FIFO, a directory, a
 * link, too large, not a record) is skipped and named in
 * `warn(warn_ctx, line)`: the id it names is then PROVD_RECORD_UNREADABLE,
 * which the daemon treats as unverifiable.  Returns NULL with the reason
 * in `why` when `dir` cannot be used. */
provd_owners *provd_owners_open(const char *dir, void (*warn)(void *, const char *),
                                void *warn_ctx, char *why, size_t why_len);

/* Free everything (the files stay).  NULL is accepted. */
void provd_owners_free(provd_owners *owners);

/* Serialise everything done about sandbox `id` (a create must not race a
 * create or destroy of the same id).  Each id has its own lock, so that
 * one held across a backend's wait delays no other id; it is not
 * recursive.  Returns 1, or 0 (not locked) when memory runs out. */
int provd_owners_lock(provd_owners *owners, const char *id);

/* Release the lock of `id` taken by provd_owners_lock. */
void provd_owners_unlock(provd_owners *owners, const char *id);

/* Copy the record of `id` into *out: 1 when there is one, 0 when not,
 * PROVD_RECORD_UNREADABLE when its file could not be read, -1 when memory
 * runs out (*out zeroed in all but the first). */
int provd_owners_get(provd_owners *owners, const char *id, provd_record *out);

/* Set the record of `id` (strings copied) with what `keep` holds,
 * writing it through to the directory (0600: the token is a secret).
 * Returns 1; 0 with the reason in `why` when the file cannot be written;
 * -1 when memory runs out (the record is then not set). */
int provd_owners_put(provd_owners *owners, const char *id, const prov_owner *owner,
                     const provd_keep *keep, char *why, size_t why_len);

/* The ids of the records whose expiry is at or before `now_ms` (ms since
 * the Unix epoch): a malloc'd array of *count malloc'd strings (NULL when
 * none), released with provd_owners_ids_free.  -1 when memory runs out
 * (nothing returned), else 0. */
int provd_owners_expired(provd_owners *owners, int64_t now_ms, char ***ids, size_t *count);

/* Release what provd_owners_expired returned. */
void provd_owners_ids_free(char **ids, size_t count);

/* The id of the sandbox whose token is `token`, copied into `id`
 * (`id_cap` bytes).  Every record's token is compared in constant time,
 * so the answer's timing tells nothing of any token.  Returns 1, 0 when
 * none has it, -1 when `id_cap` is too small. */
int provd_owners_find_token(provd_owners *owners, const char *token, char *id, size_t id_cap);

/* Forget `id` (no record is fine).  Returns 1, or 0 with the reason in
 * `why` when its file cannot be removed. */
int provd_owners_remove(provd_owners *owners, const char *id, char *why, size_t why_len);

/* The record as the shared answers and checks read it (borrowed). */
prov_owner provd_record_owner(const provd_record *record);

/* Release a record's strings and zero it. */
void provd_record_clear(provd_record *record);

#endif
