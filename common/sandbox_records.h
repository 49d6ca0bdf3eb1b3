/*
 * Building and releasing the sbx_sandbox records and reconciliation results
 * a backend returns, shared by the backends so that every one allocates
 * them the same way; each descriptor's free_sandboxes and
 * clear_reconciliation are the release functions here (backend.h,
 * "Ownership": the host never frees a backend's memory itself).
 */
#ifndef SBX_COMMON_SANDBOX_RECORDS_H
#define SBX_COMMON_SANDBOX_RECORDS_H

#include <sbx/backend.h>

/* The fields of a 1.1 record, borrowed: what common_sandbox_record_fill
 * copies.  user_id, thread_id and status may be NULL; id and url may not. */
typedef struct common_sandbox_fields {
    const char *sandbox_id;
    const char *sandbox_url;
    const char *user_id;
    const char *thread_id;
    const char *status;
    int mount_contract_version;
} common_sandbox_fields;

/* Fill `out` with copies of the fields' strings, all in ONE allocation that begins at
 * out->sandbox_id (the others point into it): a list of N sandboxes costs N
 * allocations, not 5N.  So a record's strings are never replaced one by
 * one; fill a new record instead.  The sources may be borrowed from
 * anywhere (a parsed answer).  On failure `out` is left empty (all NULL)
 * and SBX_ERR_INTERNAL is returned with `err` filled. */
sbx_status common_sandbox_record_fill(sbx_sandbox *out, const common_sandbox_fields *fields,
                                      sbx_error *err);

/* Free the strings one record holds (its one allocation) and reset it
 * (contract to NONE). */
void common_sandbox_record_clear(sbx_sandbox *record);

/* Release the strings of `count` records and the array itself (allocated
 * with malloc/calloc/realloc).  NULL is accepted.  Every backend's
 * free_sandboxes is this function. */
void common_sandbox_records_free(sbx_sandbox *sandboxes, size_t count);

/* Move *record into a new one-element array at *out (record is left
 * cleared), for create and discover.  SBX_ERR_INTERNAL when out of memory:
 * then the record is cleared too and *out is NULL. */
sbx_status common_sandbox_record_box(sbx_sandbox *record, sbx_sandbox **out, sbx_error *err);

/* Release what a reconciliation result holds and reset it (status
 * UNKNOWN).  NULL is accepted.  The clear_reconciliation of every backend
 * that reconciles. */
void common_reconciliation_clear(sbx_reconciliation *result);

/* The start of every backend's reconcile: *out set to an empty UNKNOWN
 * result (what a failure leaves), then `sandbox_id` checked
 * (common_check_sandbox_id's error). */
sbx_status common_reconcile_start(sbx_reconciliation *out, const char *sandbox_id,
                                  sbx_error *err);

/* Growable array of records, for list operations.  Zero-initialise it. */
typedef struct common_sandbox_list {
    sbx_sandbox *items;
    size_t count;
    size_t capacity;
} common_sandbox_list;

/* Append one zeroed record and return it, or NULL (SBX_ERR_INTERNAL in
 * `err`) when out of memory. */
sbx_sandbox *common_sandbox_list_append(common_sandbox_list *list, sbx_error *err);

/* Drop the last record (used when filling it failed). */
void common_sandbox_list_drop_last(common_sandbox_list *list);

/* End of a list_running: when `st` is SBX_OK hand the records to the
 * caller, *out (NULL when empty) and *count; else free them.  The list is
 * left empty either way; returns `st`. */
sbx_status common_sandbox_list_finish(common_sandbox_list *list, sbx_status st,
                                      sbx_sandbox **out, size_t *count);

#endif
