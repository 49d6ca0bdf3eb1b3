/* POST /v1/file/find and POST /v1/file/glob (aio_routes.h): one walk of
 * find(1) in the sandbox (symlinks below the start path never followed,
 * paths NUL-separated), its paths matched against the glob here,
 * component by component. */
#include <config.h>

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_search.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Files below "$1" whose name matches "$2" (every name when empty). */
static const char find_script[] =
    "if [ -n \"$2\" ]; then find -H \"$1\" -mindepth 1 -name \"$2\" -type f -print0; "
    "else find -H \"$1\" -mindepth 1 -type f -print0; fi | head -c " AIO_SEARCH_CAP;

/* Entries below "$1" as "TYPE SIZE MTIME PATH\0" (mtime ISO 8601, UTC):
 * "$2" the deepest level ("" any), "$3" 1 to keep hidden names, "$4" 1
 * for files only. */
static const char glob_script[] =
    "set -f; d=; t=; f='%y %s %TY-%Tm-%TdT%TH:%TM:%TS %p\\0'\n"
    "[ -n \"$2\" ] && d=\"-maxdepth $2\"; [ \"$4\" = 1 ] && t='-type f'\n"
    "if [ \"$3\" = 1 ]; then find -H \"$1\" -mindepth 1 $d $t -printf \"$f\"\n"
    "else find -H \"$1\" -mindepth 1 $d -name '.*' -prune -o $t -printf \"$f\"; fi"
    " | head -c " AIO_SEARCH_CAP;

/* The name find may test first: the glob's last component when it is a
 * plain name pattern; "" (no test) otherwise.  In `out` (`size` bytes). */
static void last_name(const char *glob, char *out, size_t size)
{
    const char *slash = strrchr(glob, '/');
    const char *name = slash != NULL ? slash + 1 : glob;
    snprintf(out, size, "%s", strcmp(name, "**") == 0 || strlen(name) >= size ? "" : name);
}

/* Whether a walk's output reached the cap (its last records cut). */
static int cut(const sbx_exec_result *result)
{
    return result->stdout_length >= AIO_SEARCH_MAX_OUTPUT;
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
    char name[256];
    last_name(glob, name, sizeof name);
    const char *args[] = {path, name};
    const aio_walk walk = {find_script, args, 2, NULL, 0};
    sbx_exec_result *result = NULL;
    if (aio_search_path_ok(call, "find", path, reply) &&
        aio_search_run(call, &walk, "find", path, &result, reply)) {
        json_object *files = json_object_new_array();
        json_object *data = json_object_new_object();
        int built = data != NULL && prov_json_add(data, "files", files) &&
                    prov_json_add_string(data, "path", path);
        size_t at = 0, len = 0;
        for (const char *rec; built && (rec = aio_search_next(result->stdout_data,
                                                               result->stdout_length, &at,
                                                               '\0', &len)) != NULL;) {
            if (aio_search_glob_match(glob, aio_search_relative(path, rec), 0))
                built = prov_json_append(files, json_object_new_string_len(rec, (int)len));
        }
        if (data == NULL)
            json_object_put(files);
        data = prov_json_built(data, built);
        /* FileFindResult has no truncated flag: the message says it. */
        aio_answer_data_message(reply, data,
                                cut(result) ? "Operation successful; the list is cut at "
                                              AIO_SEARCH_CAP " bytes of paths: search a "
                                              "smaller tree"
                                            : "Operation successful");
    }
    sbx_backend_free_exec_result(call->backend, result);
    json_object_put(body);
}

/* One entry the glob walk printed: pointers into its output. */
typedef struct glob_entry {
    char type;               /* find's %y: 'd' a directory */
    int64_t size;
    const char *modified;    /* ISO 8601, `modified_len` bytes */
    size_t modified_len;
    const char *path;        /* as find printed it, NUL-terminated */
    const char *name;        /* its last component */
    const struct glob_order *order;
} glob_entry;

/* How entries are ordered (qsort has no context argument). */
typedef struct glob_order {
    const char *key;
    int descending;
} glob_order;

/* Fractional seconds an answer's modified_time keeps (Python's isoformat). */
#define ISO_LEN 26

static int compare_entries(const void *a, const void *b)
{
    const glob_entry *x = a, *y = b;
    const char *key = x->order->key;
    int order = 0;
    if (strcmp(key, "size") == 0)
        order = (x->size > y->size) - (x->size < y->size);
    else if (strcmp(key, "modified") == 0)
        order = strncmp(x->modified, y->modified, ISO_LEN);
    else if (strcmp(key, "name") == 0)
        order = strcmp(x->name, y->name);
    if (order == 0)
        order = strcmp(x->path, y->path);
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

/* Parse record "TYPE SIZE MTIME PATH" (NUL-terminated in the output) into
 * `e`; 0 when it is not one. */
static int parse_entry(const char *rec, glob_entry *e)
{
    char *end = NULL;
    if (rec[0] == '\0' || rec[1] != ' ')
        return 0;
    e->type = rec[0];
    e->size = strtoll(rec + 2, &end, 10);
    if (end == NULL || *end != ' ')
        return 0;
    e->modified = end + 1;
    const char *space = strchr(e->modified, ' ');
    if (space == NULL)
        return 0;
    e->modified_len = (size_t)(space - e->modified);
    if (e->modified_len > ISO_LEN)
        e->modified_len = ISO_LEN;
    e->path = space + 1;
    const char *slash = strrchr(e->path, '/');
    e->name = slash != NULL ? slash + 1 : e->path;
    return 1;
}

/* The GlobFileInfo of `e`; NULL when memory ran out. */
static json_object *glob_info(const glob_entry *e, int metadata)
{
    json_object *info = json_object_new_object();
    int built = info != NULL && prov_json_add_string(info, "path", e->path) &&
                prov_json_add_string(info, "name", e->name) &&
                prov_json_add(info, "is_directory", json_object_new_boolean(e->type == 'd'));
    if (built && metadata)
        built = prov_json_add(info, "size", json_object_new_int64(e->size)) &&
                prov_json_add(info, "modified_time",
                              json_object_new_string_len(e->modified, (int)e->modified_len));
    else if (built)
        built = json_object_object_add(info, "size", NULL) == 0 &&
                json_object_object_add(info, "modified_time", NULL) == 0;
    return prov_json_built(info, built);
}

/* The deepest level a glob can match ("" when it has "**"), in `out`. */
static void glob_depth(const char *pattern, char *out, size_t size)
{
    size_t depth = 0;
    int any = 0;
    for (const char *c = pattern; *c != '\0';) {
        size_t n = strcspn(c, "/");
        depth += n > 0;
        any |= n == 2 && strncmp(c, "**", 2) == 0;
        c += n + (c[n] == '/');
    }
    snprintf(out, size, "%zu", any ? 0 : depth);
    if (any)
        out[0] = '\0';
}

/* The FileGlobResult of a walk's output; NULL when memory ran out. */
static json_object *glob_result(json_object *body, const sbx_exec_result *result,
                                int64_t max_results)
{
    const char *base = aio_string(body, "path", "");
    const char *pattern = aio_string(body, "pattern", "");
    json_object *exclude = aio_member(body, "exclude");
    const glob_order order = {aio_string(body, "sort_by", "path"),
                              aio_boolean(body, "sort_desc", 0)};
    size_t cap = result->stdout_length / 8 + 1, n = 0, at = 0, len = 0;
    glob_entry *entries = prov_malloc(cap * sizeof *entries);
    if (entries == NULL)
        return NULL;
    for (const char *rec; (rec = aio_search_next(result->stdout_data, result->stdout_length,
                                                  &at, '\0', &len)) != NULL;) {
        glob_entry e = {.order = &order};
        const char *rel = NULL;
        if (n < cap && parse_entry(rec, &e) && (rel = aio_search_relative(base, e.path)) &&
            aio_search_glob_match(pattern, rel, 1) && !excluded(exclude, rel))
            entries[n++] = e;
    }
    qsort(entries, n, sizeof *entries, compare_entries);
    size_t shown = n < (size_t)max_results ? n : (size_t)max_results;
    int metadata = aio_boolean(body, "include_metadata", 1);
    json_object *files = json_object_new_array();
    json_object *data = json_object_new_object();
    int built = data != NULL && prov_json_add(data, "files", files) &&
                prov_json_add_string(data, "path", base) &&
                prov_json_add_string(data, "pattern", pattern) &&
                prov_json_add(data, "total_count", json_object_new_int64((int64_t)n)) &&
                prov_json_add(data, "truncated",
                              json_object_new_boolean(n > shown || cut(result)));
    for (size_t i = 0; built && i < shown; i++)
        built = prov_json_append(files, glob_info(&entries[i], metadata));
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
    char depth[24];
    glob_depth(aio_string(body, "pattern", ""), depth, sizeof depth);
    const char *args[] = {path, depth, aio_boolean(body, "include_hidden", 0) ? "1" : "0",
                          aio_boolean(body, "files_only", 1) ? "1" : "0"};
    const sbx_env_var env[] = {{"TZ", "UTC"}};
    const aio_walk walk = {glob_script, args, 4, env, 1};
    sbx_exec_result *result = NULL;
    if (aio_problems_found(&problems))
        aio_problems_answer(&problems, reply);
    else if (aio_search_path_ok(call, "glob", path, reply) &&
             aio_search_run(call, &walk, "glob", path, &result, reply))
        aio_answer_data(reply, glob_result(body, result, max_results));
    sbx_backend_free_exec_result(call->backend, result);
    json_object_put(body);
}
