/*
 * Building and releasing the sbx_sandbox records a backend returns, shared
 * by the backends so that every one allocates them the same way and frees
 * them through its own free_sandboxes (backend.h, "Ownership").
 */
#ifndef SBX_COMMON_SANDBOX_RECORDS_H
#define SBX_COMMON_SANDBOX_RECORDS_H

#include <sbx/backend.h>

/* Fill `out` with copies of the strings (user_id, thread_id, status may be
 * NULL; id and url may not).  On failure `out` is left empty (all NULL) and
 * SBX_ERR_INTERNAL is returned with `err` filled. */
sbx_status sbx_sandbox_record_fill(sbx_sandbox *out, const char *sandbox_id,
                                   const char *sandbox_url, const char *user_id,
                                   const char *thread_id, const char *status,
                                   int mount_contract_version, sbx_error *err);

/* Free the strings one record holds and reset it (contract to NONE). */
void sbx_sandbox_record_clear(sbx_sandbox *record);

/* Release the strings of `count` records and the array itself (allocated
 * with malloc/calloc/realloc).  NULL is accepted. */
void sbx_sandbox_records_free(sbx_sandbox *sandboxes, size_t count);

/* Growable array of records, for list operations.  Zero-initialise it. */
typedef struct sbx_sandbox_list {
    sbx_sandbox *items;
    size_t count;
    size_t capacity;
} sbx_sandbox_list;

/* Append one zeroed record and return it, or NULL (SBX_ERR_INTERNAL in
 * `err`) when out of memory. */
sbx_sandbox *sbx_sandbox_list_append(sbx_sandbox_list *list, sbx_error *err);

/* Drop the last record (used when filling it failed). */
void sbx_sandbox_list_drop_last(sbx_sandbox_list *list);

/* Hand the records to the caller: *out (NULL when empty) and *count; the
 * list is left empty. */
void sbx_sandbox_list_take(sbx_sandbox_list *list, sbx_sandbox **out, size_t *count);

#endif
