/* Who each sandbox belongs to, as sbx-provisiond knows it: the user, the
 * effective thread, the mounts' signature and the mount contract it was
 * created under.  A backend can tell the user and thread of its sandboxes
 * (the local backend's records, the docker backend's labels), but not the
 * mounts or the contract, and a module may tell nothing: the daemon keeps
 * these records itself so that a sandbox is handed to nobody but the one
 * who asked for it.  Kept in memory, and written through to a directory
 * when one is configured (--state-dir), so that a restart forgets nothing.
 *
 * Thread-safety: every function may be called from any thread.  One mutex
 * guards the records and their index by token together: each change (put,
 * remove, the load at open) updates both in one critical section, and a
 * lookup by token holds it until the id is copied out, so that no lookup
 * sees a record without its token or a token without its record.  The
 * index's key is written once at open and only read after.
 *
 * Why the token lookup's timing is safe: a token is looked up in the
 * bucket of SipHash-2-4 of the token under 128 random bits drawn at open
 * (never written anywhere), and compared in constant time (prov_key_equal)
 * with every token of that bucket, without early exit.  What the time can
 * tell is how many tokens share the bucket of the token asked for; without
 * the key, which bucket that is is a pseudo-random function of the guess,
 * unrelated to the bytes of any stored token: a guess sharing a prefix or
 * differing in one character from a real token lands in a bucket as
 * unrelated to it as any other guess, so no token can be found byte by
 * byte; and that some token shares a guess's bucket tells a few bits of
 * that token's keyed hash, nothing of its 256 random bits.  The hash's own
 * time depends on the length only, which the sandbox API fixes
 * (PROVD_TOKEN_LEN).  Tokens are made by the daemon, never chosen by a
 * client, so no one can crowd a bucket either. */
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
 * (`id_cap` bytes), in O(1) on average however many sandboxes there are;
 * its timing tells nothing of any token (why: the top of this file).
 * Returns 1, 0 when none has it, -1 when `id_cap` is too small. */
int provd_owners_find_token(provd_owners *owners, const char *token, char *id, size_t id_cap);

/* Forget `id` (no record is fine).  Returns 1, or 0 with the reason in
 * `why` when its file cannot be removed. */
int provd_owners_remove(provd_owners *owners, const char *id, char *why, size_t why_len);

/* The record as the shared answers and checks read it (borrowed). */
prov_owner provd_record_owner(const provd_record *record);

/* Release a record's strings and zero it. */
void provd_record_clear(provd_record *record);

#endif
