/*
 * The rules a sandbox object of a provisioner answer must follow and the
 * warnings of a list answer (remote_decode.h), in one place for the two decoders
 * that apply them: the json-c one (remote_decode.c) and the streaming list decoder
 * (remote_list_stream.c), which must refuse the same entries with the same words.
 * Pure functions; thread-safe.
 */
#ifndef SBX_REMOTE_SANDBOX_RULES_H
#define SBX_REMOTE_SANDBOX_RULES_H

#include "common/json_fields.h"

#include <stddef.h>
#include <sbx/backend.h>

/* The members of a sandbox object, in the order they are validated.
 * incarnation_id is optional and never refused: a provisioner that sends
 * it as a clean string says which incarnation its sandbox_url serves
 * (sbx-provisiond does); anything else counts as its absence. */
enum { REMOTE_FIELD_ID, REMOTE_FIELD_URL, REMOTE_FIELD_USER, REMOTE_FIELD_THREAD,
       REMOTE_FIELD_STATUS, REMOTE_FIELD_INCARNATION, REMOTE_FIELD_VERSION,
       REMOTE_FIELD_COUNT };

/* The longest member name (mount_contract_version): a longer key names none. */
#define REMOTE_FIELD_NAME_MAX 22

/* Which member the key `key` (key_len bytes) names, or REMOTE_FIELD_COUNT. */
int remote_field_index(const char *key, size_t key_len);

/* What a decoder found in one sandbox object, member by member (the last
 * one when a key repeats): state[i] is COMMON_JSON_ABSENT or COMMON_JSON_NULL
 * (the rules treat both alike), COMMON_JSON_OK, COMMON_JSON_WRONG_TYPE, or for a
 * string COMMON_JSON_BAD_TEXT (NUL or invalid UTF-8).  text[i] is the string of
 * an OK string member (NUL-terminated, borrowed), version the value of an OK
 * mount_contract_version (an integer that fits an int). */
typedef struct remote_fields {
    common_json_field state[REMOTE_FIELD_COUNT];
    const char *text[REMOTE_FIELD_VERSION];
    int version;
} remote_fields;

/* Why a sandbox answer is refused, as one byte (a list decoder keeps one
 * per skipped entry until its answer is known to be JSON); 0 is none. */
typedef unsigned char remote_problem;

/* The problem of a value that is not a JSON object at all. */
#define REMOTE_NOT_OBJECT ((remote_problem)0x08)

/* The first rule of remote_decode.h that `f` breaks, in validation order, or 0. */
remote_problem remote_check_fields(const remote_fields *f);

/* Fill `err` with the message of `problem` (not 0), naming the field;
 * returns SBX_ERR_PROTOCOL. */
sbx_status remote_problem_error(remote_problem problem, sbx_error *err);

/* Reports a skipped list entry or an unusable list answer (the list decoders
 * warn through it; the message never holds secrets). */
typedef void (*remote_warn_fn)(void *ctx, const char *message);

/* Where a list decoder's warnings go: fn(ctx, message). */
typedef struct remote_warner {
    remote_warn_fn fn; /* NULL: nowhere */
    void *ctx;
} remote_warner;

/* The warnings of a list answer, through `w` (NULL: none): the answer is
 * not an object; its sandboxes is not an array; entry #index is skipped
 * because of `why`. */
void remote_warn_not_object(const remote_warner *w);
void remote_warn_not_array(const remote_warner *w);
void remote_warn_skipped(const remote_warner *w, size_t index, const char *why);

#endif /* SBX_REMOTE_SANDBOX_RULES_H */
