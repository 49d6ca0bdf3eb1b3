/* POST /v1/file/find and POST /v1/file/glob (aio_routes.h): find's names
 * (find(1) run alone in the sandbox, no shell; symlinks below the start
 * path never followed, paths NUL-separated), or for glob, whose answer
 * has sizes and times, the tree listed by the backend (aio_search_list:
 * no process started on a local sandbox, find and stat in a container,
 * busybox's will do); paths matched against the glob here, component by
 * component. */
#include <config.h>

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_search.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const aio_field find_fields[] = {
    {"path", AIO_FIELD_STRING, 1, 0, NULL},
    {"glob", AIO_FIELD_STRING, 1, 0, NULL},
};

static const char *const sort_keys[] = {"path", "name", "size", "modified", NULL};

static const aio_field glob_fields[] = {
    {"path", AIO_FIELD_STRING, 1, 0, NULL},
    {"pattern", AIO_FIELD_STRING, 1, 0, NULL},
    {"exclude", AIO_FIELD_STRING_ARRAY, 0, 1, NULL},
    {"include_hidden", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"files_only", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"include_metadata", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"max_results", AIO_FIELD_INTEGER, 0, 1, NULL},
    {"sort_by", AIO_FIELD_STRING, 0, 1, sort_keys},
    {"sort_desc", AIO_FIELD_BOOLEAN, 0, 1, NULL},
};

/* The name find may test first: the glob's last component when it is a
 * plain name pattern; NULL (no test) otherwise. */
static const char *last_name(const char *glob)
{
    const char *slash = strrchr(glob, '/');
    const char *name = slash != NULL ? slash + 1 : glob;
    return strcmp(name, "**") == 0 ? NULL : name;
}

void aio_route_find(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, find_fields,
                                      sizeof find_fields / sizeof find_fields[0], reply);
    if (body == NULL)
        return;
    const char *path = aio_string(body, "path", "");
    const char *glob = aio_string(body, "glob", "");
    if (glob[0] == '\0')
        glob = "*";
    /* find itself, no shell: names only (d_type), no stat of each file,
     * which an in-process listing would pay for its sizes and times. */
    const char *name = last_name(glob);
    const char *args[] = {"find", "-H", path, "-mindepth", "1", "-type", "f",
                          name != NULL ? "-name" : "-print0", name, "-print0"};
    const aio_walk walk = {NULL, args, name != NULL ? 10 : 8, NULL, 0, NULL, 0};
    sbx_exec_result *result = NULL;
    if (aio_search_path_ok(call, "find", path, reply) &&
        aio_search_run(call, &walk, "find", path, &result, reply)) {
        json_object *files = json_object_new_array();
        json_object *data = json_object_new_object();
        int built = data != NULL && prov_json_add(data, "files", files) &&
                    prov_json_add_string(data, "path", path);
        size_t base = strlen(path), at = 0, len = 0;
        while (base > 1 && path[base - 1] == '/')
            base--;
        for (const char *rec; built && (rec = aio_search_next(result->stdout_data,
                                                               result->stdout_length, &at,
                                                               '\0', &len)) != NULL;) {
            /* find printed PATH "/" REL. */
            const char *rel = rec + base + (len > base && rec[base] == '/');
            if (len >= base && aio_search_glob_match(glob, rel, 0))
                built = prov_json_append(files, json_object_new_string_len(rec, (int)len));
        }
        if (data == NULL)
            json_object_put(files);
        data = prov_json_built(data, built);
        /* FileFindResult has no truncated flag: the message says it. */
        aio_answer_data_message(reply, data,
                                result->stdout_length >= AIO_SEARCH_MAX_OUTPUT
                                    ? "Operation successful; the list is cut at "
                                      AIO_SEARCH_CAP " bytes of paths: search a smaller tree"
                                    : "Operation successful");
    }
    sbx_backend_free_exec_result(call->backend, result);
    json_object_put(body);
}

/* One entry a glob keeps: a listing's, with its order. */
typedef struct glob_entry {
    const sbx_dir_entry *entry;
    const char *name;        /* its last component */
    const struct glob_order *order;
} glob_entry;

/* How entries are ordered (qsort has no context argument). */
typedef struct glob_order {
    const char *key;
    int descending;
} glob_order;

static int compare_entries(const void *a, const void *b)
{
    const glob_entry *x = a, *y = b;
    const char *key = x->order->key;
    int order = 0;
    if (strcmp(key, "size") == 0)
        order = (x->entry->size > y->entry->size) - (x->entry->size < y->entry->size);
    else if (strcmp(key, "modified") == 0)
        order = (x->entry->mtime > y->entry->mtime) - (x->entry->mtime < y->entry->mtime);
    else if (strcmp(key, "name") == 0)
        order = strcmp(x->name, y->name);
    if (order == 0)
        order = strcmp(x->entry->path, y->entry->path);
    return x->order->descending ? -order : order;
}

/* Whether `rel` or a directory above it matches one of `exclude`. */
static int excluded(json_object *exclude, const char *rel)
{
    size_t n = exclude != NULL ? json_object_array_length(exclude) : 0;
    if (n == 0)
        return 0;
    char *copy = prov_strdup(rel);
    int hit = 0;
    for (char *end = copy; copy != NULL && !hit && end != NULL;) {
        end = strchr(end + (end != copy), '/');
        if (end != NULL)
            *end = '\0';
        for (size_t i = 0; i < n && !hit; i++)
            hit = aio_search_glob_match(
                json_object_get_string(json_object_array_get_idx(exclude, i)), copy, 0);
        if (end != NULL)
            *end = '/';
    }
    free(copy);
    return hit;
}

/* `ms` as Python's isoformat of a UTC time with microseconds; NULL when
 * unknown or memory ran out. */
static json_object *modified_time(int64_t ms)
{
    time_t seconds = (time_t)(ms / 1000);
    struct tm tm;
    char text[48];
    if (ms == SBX_TIME_UNKNOWN || gmtime_r(&seconds, &tm) == NULL)
        return NULL;
    size_t n = strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(text + n, sizeof text - n, ".%03d000", (int)(ms % 1000));
    return json_object_new_string(text);
}

/* The GlobFileInfo of `e` below `base`; NULL when memory ran out. */
static json_object *glob_info(const char *base, const glob_entry *e, int metadata)
{
    char *path = aio_search_join(base, e->entry->path);
    json_object *info = path != NULL ? json_object_new_object() : NULL;
    json_object *time = metadata ? modified_time(e->entry->mtime) : NULL;
    int built = info != NULL && prov_json_add_string(info, "path", path) &&
                prov_json_add_string(info, "name", e->name) &&
                prov_json_add(info, "is_directory",
                              json_object_new_boolean(e->entry->type == SBX_FILE_DIRECTORY));
    free(path);
    if (built && metadata)
        built = prov_json_add(info, "size", json_object_new_int64((int64_t)e->entry->size));
    else if (built)
        built = json_object_object_add(info, "size", NULL) == 0;
    if (built) {
        built = json_object_object_add(info, "modified_time", time) == 0;
        time = built ? NULL : time;
    }
    json_object_put(time);
    return prov_json_built(info, built);
}

/* The deepest level a glob can match (UINT_MAX when it has "**"). */
static unsigned glob_depth(const char *pattern)
{
    unsigned depth = 0;
    for (const char *c = pattern; *c != '\0';) {
        size_t n = strcspn(c, "/");
        if (n == 2 && strncmp(c, "**", 2) == 0)
            return UINT_MAX;
        depth += n > 0;
        c += n + (c[n] == '/');
    }
    return depth > 0 ? depth : 1;
}

/* Whether listing entry `e` is one glob request `body` asks for. */
static int wanted(json_object *body, const sbx_dir_entry *e)
{
    return (!aio_boolean(body, "files_only", 1) || e->type == SBX_FILE_REGULAR) &&
           (aio_boolean(body, "include_hidden", 0) || !aio_search_hidden(e->path)) &&
           aio_search_glob_match(aio_string(body, "pattern", ""), e->path, 1) &&
           !excluded(aio_member(body, "exclude"), e->path);
}

/* The FileGlobResult of a listing (NULL: a file, nothing below); NULL
 * when memory ran out. */
static json_object *glob_result(json_object *body, const sbx_dir_listing *listing,
                                int64_t max_results)
{
    const char *base = aio_string(body, "path", "");
    const glob_order order = {aio_string(body, "sort_by", "path"),
                              aio_boolean(body, "sort_desc", 0)};
    size_t n = 0, cap = listing != NULL ? listing->count : 0;
    glob_entry *entries = prov_malloc((cap + 1) * sizeof *entries);
    if (entries == NULL)
        return NULL;
    for (const sbx_dir_entry *e = listing != NULL ? listing->entries : NULL;
         e != NULL && n < cap; e = e->next) {
        if (!wanted(body, e))
            continue;
        const char *slash = strrchr(e->path, '/');
        entries[n++] = (glob_entry){e, slash != NULL ? slash + 1 : e->path, &order};
    }
    qsort(entries, n, sizeof *entries, compare_entries);
    size_t shown = n < (size_t)max_results ? n : (size_t)max_results;
    int metadata = aio_boolean(body, "include_metadata", 1);
    json_object *files = json_object_new_array();
    json_object *data = json_object_new_object();
    int built = data != NULL && prov_json_add(data, "files", files) &&
                prov_json_add_string(data, "path", base) &&
                prov_json_add_string(data, "pattern", aio_string(body, "pattern", "")) &&
                prov_json_add(data, "total_count", json_object_new_int64((int64_t)n)) &&
                prov_json_add(data, "truncated",
                              json_object_new_boolean(n > shown ||
                                                      (listing != NULL && listing->truncated)));
    for (size_t i = 0; built && i < shown; i++)
        built = prov_json_append(files, glob_info(base, &entries[i], metadata));
    if (data == NULL)
        json_object_put(files);
    free(entries);
    return prov_json_built(data, built);
}

void aio_route_glob(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, glob_fields,
                                      sizeof glob_fields / sizeof glob_fields[0], reply);
    if (body == NULL)
        return;
    aio_problems problems = {NULL, 0};
    int64_t max_results = aio_search_int(body, "max_results", 5000, 1, 50000, &problems);
    const char *path = aio_string(body, "path", "");
    sbx_dir_listing *listing = NULL;
    if (aio_problems_found(&problems))
        aio_problems_answer(&problems, reply);
    else if (aio_search_list(call, "glob", path, glob_depth(aio_string(body, "pattern", "")),
                             &listing, reply))
        aio_answer_data(reply, glob_result(body, listing, max_results));
    sbx_backend_free_listing(call->backend, listing);
    json_object_put(body);
}
