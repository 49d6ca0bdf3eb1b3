/* Results of the sandbox operations (see op_results.h). */
#include <config.h>

#include "common/op_results.h"

#include <sbx/backend_support.h>

#include <stdlib.h>
#include <string.h>

void common_output_init(common_output *o, size_t cap)
{
    common_dynbuf_init(&o->kept, cap);
    o->cap = cap;
    o->truncated = 0;
}

sbx_status common_output_add(common_output *o, const void *bytes, size_t n, sbx_error *err)
{
    size_t room = o->cap - o->kept.len;
    size_t keep = n < room ? n : room;
    if (keep < n)
        o->truncated = 1;
    if (common_dynbuf_add(&o->kept, bytes, keep) != COMMON_DYNBUF_OK)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL,
                                     "out of memory keeping a command's output");
    return SBX_OK;
}

void common_output_free(common_output *o)
{
    common_dynbuf_free(&o->kept);
}

/* The bytes of a stream as a result buffer: never NULL, NUL-terminated. */
static char *take_bytes(common_dynbuf *b, size_t *len)
{
    if (common_dynbuf_add(b, "", 0) != COMMON_DYNBUF_OK)
        return NULL;
    return common_dynbuf_take(b, len);
}

sbx_exec_result *common_exec_result_new(common_output *out, common_output *err_stream)
{
    sbx_exec_result *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->struct_size = sizeof *r;
    r->outcome = SBX_EXEC_EXITED;
    r->stdout_data = take_bytes(&out->kept, &r->stdout_length);
    r->stderr_data = take_bytes(&err_stream->kept, &r->stderr_length);
    if (r->stdout_data == NULL || r->stderr_data == NULL) {
        common_exec_result_free(r);
        return NULL;
    }
    r->stdout_truncated = out->truncated;
    r->stderr_truncated = err_stream->truncated;
    return r;
}

void common_exec_result_free(sbx_exec_result *result)
{
    if (result == NULL)
        return;
    free(result->stdout_data);
    free(result->stderr_data);
    free(result);
}

sbx_file_content *common_file_content_new(common_dynbuf *bytes, int truncated)
{
    sbx_file_content *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->struct_size = sizeof *c;
    c->data = take_bytes(bytes, &c->length);
    if (c->data == NULL) {
        free(c);
        return NULL;
    }
    c->truncated = truncated;
    return c;
}

void common_file_content_free(sbx_file_content *content)
{
    if (content == NULL)
        return;
    free(content->data);
    free(content);
}

sbx_status common_listing_start(common_listing_builder *b, sbx_error *err)
{
    b->tail = NULL;
    b->listing = calloc(1, sizeof *b->listing);
    if (b->listing == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory listing a directory");
    b->listing->struct_size = sizeof *b->listing;
    return SBX_OK;
}

sbx_status common_listing_add(common_listing_builder *b, const common_listing_entry *entry,
                              sbx_error *err)
{
    sbx_dir_entry *e = calloc(1, sizeof *e);
    char *copy = strdup(entry->path);
    if (e == NULL || copy == NULL) {
        free(e);
        free(copy);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory listing a directory");
    }
    e->struct_size = sizeof *e;
    e->path = copy;
    e->type = entry->type;
    e->size = entry->size;
    e->mtime = entry->mtime;
    e->mode = entry->mode;
    if (b->tail == NULL)
        b->listing->entries = e;
    else
        b->tail->next = e;
    b->tail = e;
    b->listing->count++;
    return SBX_OK;
}

void common_listing_free(sbx_dir_listing *listing)
{
    if (listing == NULL)
        return;
    sbx_dir_entry *e = listing->entries;
    while (e != NULL) {
        sbx_dir_entry *next = e->next;
        free(e->path);
        free(e);
        e = next;
    }
    free(listing);
}
