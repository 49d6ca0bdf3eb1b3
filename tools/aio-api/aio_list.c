/* POST /v1/file/list (aio_routes.h): one backend listing, filtered
 * (hidden names, extensions), sorted and answered as FileListResult. */
#include <config.h>

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_list_answer.h"
#include "tools/aio-api/aio_routes.h"
#include "tools/provisioner-common/prov_alloc.h"

#include <stdlib.h>
#include <string.h>

/* Levels a recursive listing without max_depth goes down. */
#define RECURSIVE_DEPTH 64u

/* Entries one listing answers at most. */
#define MAX_ENTRIES 100000u

static const aio_field list_fields[] = {
    {"path", AIO_FIELD_STRING, 1, 0, NULL},
    {"recursive", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"show_hidden", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"file_types", AIO_FIELD_STRING_ARRAY, 0, 1, NULL},
    {"max_depth", AIO_FIELD_INTEGER, 0, 1, NULL},
    {"include_size", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"include_permissions", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"sort_by", AIO_FIELD_STRING, 0, 1, NULL},
    {"sort_desc", AIO_FIELD_BOOLEAN, 0, 1, NULL},
};

/* How entries are ordered (qsort has no context argument). */
typedef enum sort_key { BY_NAME, BY_SIZE, BY_MODIFIED, BY_TYPE } sort_key;

typedef struct sort_item {
    const sbx_dir_entry *entry;
    const char *name; /* the last component of its path, found once */
    sort_key key;
    int descending;
} sort_item;

/* The last component of an entry's path. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* Python's os.path.splitext(name)[1]: from the last dot not leading the
 * name; NULL when there is none. */
static const char *extension(const char *name)
{
    const char *start = name;
    while (*start == '.')
        start++;
    return strrchr(start, '.');
}

static int compare(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    const sbx_dir_entry *p = x->entry, *q = y->entry;
    int order = 0;
    if (x->key == BY_SIZE)
        order = (p->size > q->size) - (p->size < q->size);
    else if (x->key == BY_MODIFIED)
        order = (p->mtime > q->mtime) - (p->mtime < q->mtime);
    else if (x->key == BY_TYPE)
        order = (q->type == SBX_FILE_DIRECTORY) - (p->type == SBX_FILE_DIRECTORY);
    if (order == 0)
        order = strcmp(x->name, y->name);
    if (order == 0)
        order = strcmp(p->path, q->path);
    return x->descending ? -order : order;
}

/* Whether a path has a component starting with '.'. */
static int hidden(const char *path)
{
    for (const char *c = path; c != NULL; c = strchr(c, '/')) {
        c += *c == '/';
        if (*c == '.')
            return 1;
    }
    return 0;
}

/* Whether the entry passes the file_types filter (directories always do). */
static int wanted_type(json_object *types, const sbx_dir_entry *e)
{
    if (types == NULL || e->type == SBX_FILE_DIRECTORY)
        return 1;
    const char *ext = extension(base_name(e->path));
    for (size_t i = 0; ext != NULL && i < json_object_array_length(types); i++) {
        if (strcmp(json_object_get_string(json_object_array_get_idx(types, i)), ext) == 0)
            return 1;
    }
    return 0;
}

/* Answer the FileListResult of `listing`, filtered and sorted as `body`
 * asks. */
static void answer_list(const char *dir, const sbx_dir_listing *listing, json_object *body,
                        prov_reply *reply)
{
    const char *sort_by = aio_string(body, "sort_by", "name");
    sort_key key = strcmp(sort_by, "size") == 0       ? BY_SIZE
                   : strcmp(sort_by, "modified") == 0 ? BY_MODIFIED
                   : strcmp(sort_by, "type") == 0     ? BY_TYPE
                                                      : BY_NAME;
    int show_hidden = aio_boolean(body, "show_hidden", 1);
    int with_size = aio_boolean(body, "include_size", 1);
    int with_permissions = aio_boolean(body, "include_permissions", 0);
    json_object *types = aio_member(body, "file_types");
    int descending = aio_boolean(body, "sort_desc", 0);
    sort_item *items = prov_malloc((listing->count + 1) * sizeof *items);
    if (items == NULL) {
        prov_reply_out_of_memory(reply);
        return;
    }
    size_t n = 0;
    for (const sbx_dir_entry *e = listing->entries; e != NULL; e = e->next) {
        if ((!show_hidden && hidden(e->path)) || !wanted_type(types, e))
            continue;
        items[n++] = (sort_item){e, base_name(e->path), key, descending};
    }
    qsort(items, n, sizeof *items, compare);
    aio_list_answer answer;
    aio_list_answer_start(&answer, n);
    for (size_t i = 0; i < n; i++) {
        const sbx_dir_entry *e = items[i].entry;
        const char *name = items[i].name;
        int directory = e->type == SBX_FILE_DIRECTORY;
        aio_list_answer_add(&answer, &(aio_list_file){
                                         dir, e->path, name, directory ? NULL : extension(name),
                                         directory, with_size, e->size, e->mtime,
                                         with_permissions, (unsigned)e->mode});
    }
    free(items);
    aio_list_answer_finish(&answer, dir, reply);
}

void aio_route_list(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, list_fields,
                                      sizeof list_fields / sizeof list_fields[0], reply);
    if (body == NULL)
        return;
    const char *path = aio_string(body, "path", "");
    json_object *max_depth = aio_member(body, "max_depth");
    unsigned depth = 1;
    if (aio_boolean(body, "recursive", 0)) {
        int64_t asked = max_depth != NULL ? json_object_get_int64(max_depth) : RECURSIVE_DEPTH;
        depth = asked < 1 ? 1 : asked > RECURSIVE_DEPTH ? RECURSIVE_DEPTH : (unsigned)asked;
    }
    sbx_error err;
    sbx_error_clear(&err);
    sbx_dir_listing *listing = NULL;
    /* A worker's attempt lists one level of at most AIO_WORKER_ENTRIES:
     * more goes to the pool. */
    int attempt = call->worker_bytes > 0;
    if (attempt && depth > 1) {
        prov_reply_pool(reply);
    } else if (sbx_backend_list_dir(call->backend, call->sandbox_id, path, depth,
                                    attempt ? AIO_WORKER_ENTRIES : MAX_ENTRIES, &listing,
                                    &err) != SBX_OK) {
        aio_answer_file_error(reply, "list", path, &err);
    } else if (attempt && listing->truncated) {
        prov_reply_pool(reply);
    } else {
        answer_list(path, listing, body, reply);
    }
    sbx_backend_free_listing(call->backend, listing);
    json_object_put(body);
}
