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
#include "plugin/remote/remote_decode.h"

#include <stddef.h>
#include <sbx/backend.h>

/* The members of a sandbox object, in the order they are validated. */
enum { SBX_FIELD_ID, SBX_FIELD_URL, SBX_FIELD_USER, SBX_FIELD_THREAD, SBX_FIELD_STATUS,
       SBX_FIELD_VERSION, SBX_FIELD_COUNT };

/* The longest member name (mount_contract_version): a longer key names none. */
#define SBX_FIELD_NAME_MAX 22

/* Which member the key `key` (key_len bytes) names, or SBX_FIELD_COUNT. */
int sbx_remote_field_index(const char *key, size_t key_len);

/* What a decoder found in one sandbox object, member by member (the last
 * one when a key repeats): state[i] is SBX_JSON_ABSENT or SBX_JSON_NULL
 * (the rules treat both alike), SBX_JSON_OK, SBX_JSON_WRONG_TYPE, or for a
 * string SBX_JSON_BAD_TEXT (NUL or invalid UTF-8).  text[i] is the string of
 * an OK string member (NUL-terminated, borrowed), version the value of an OK
 * mount_contract_version (an integer that fits an int). */
typedef struct sbx_remote_fields {
    sbx_json_field state[SBX_FIELD_COUNT];
    const char *text[SBX_FIELD_VERSION];
    int version;
} sbx_remote_fields;

/* Why a sandbox answer is refused, as one byte (a list decoder keeps one
 * per skipped entry until its answer is known to be JSON); 0 is none. */
typedef unsigned char sbx_remote_problem;

/* The problem of a value that is not a JSON object at all. */
#define SBX_REMOTE_NOT_OBJECT ((sbx_remote_problem)0x08)

/* The first rule of remote_decode.h that `f` breaks, in validation order, or 0. */
sbx_remote_problem sbx_remote_check_fields(const sbx_remote_fields *f);

/* Fill `err` with the message of `problem` (not 0), naming the field;
 * returns SBX_ERR_PROTOCOL. */
sbx_status sbx_remote_problem_error(sbx_remote_problem problem, sbx_error *err);

/* The warnings of a list answer, through `fn` (NULL: none): the answer is
 * not an object; its sandboxes is not an array; entry #index is skipped
 * because of `why`. */
void sbx_remote_warn_not_object(sbx_remote_warn_fn fn, void *ctx);
void sbx_remote_warn_not_array(sbx_remote_warn_fn fn, void *ctx);
void sbx_remote_warn_skipped(sbx_remote_warn_fn fn, void *ctx, size_t index, const char *why);

#endif /* SBX_REMOTE_SANDBOX_RULES_H */
