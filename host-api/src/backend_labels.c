/* Listing a backend's records filtered by labels (ABI 1.5): done by the
 * host over list_records, so every backend that answers labels in its
 * records can be filtered alike. */
#include <config.h>

#include "host-api/src/host_internal.h"

#include "common/create_request.h"

/* The labels record `r` holds (none for a record built before 1.5). */
static int record_matches(const sbx_sandbox_record *r, const sbx_label *want, size_t want_count)
{
    if (!SBX_RECORD_HAS(r, label_count))
        return want_count == 0;
    return common_labels_include(r->labels, r->label_count, want, want_count);
}

sbx_status sbx_backend_list_records_labelled(sbx_backend *b, const sbx_label *want,
                                             size_t want_count, sbx_sandbox_record **out,
                                             size_t *count, sbx_error *err)
{
    *out = NULL;
    *count = 0;
    sbx_error_clear(err);
    if (want_count > 0 && want == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "list: %zu labels but no array", want_count);
    for (size_t i = 0; i < want_count; i++)
        if (want[i].key == NULL || want[i].value == NULL)
            return sbx_error_set(err, SBX_ERR_USAGE,
                                 "list: label filter #%zu has no key or no value", i);
    sbx_sandbox_record *all = NULL;
    size_t n = 0;
    sbx_status st = sbx_backend_list_records(b, &all, &n, err);
    if (st != SBX_OK)
        return st;
    /* Unlink each record that does not match and release it alone: a
     * backend's free_records releases the chain from the record it is
     * given. */
    sbx_sandbox_record **link = &all;
    while (*link != NULL) {
        sbx_sandbox_record *r = *link;
        if (record_matches(r, want, want_count)) {
            link = &r->next;
            continue;
        }
        *link = r->next;
        r->next = NULL;
        sbx_backend_free_records(b, r);
        n--;
    }
    *out = all;
    *count = n;
    return SBX_OK;
}
