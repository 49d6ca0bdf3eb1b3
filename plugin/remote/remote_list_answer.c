/* A list answer read in one pass (see remote_list_answer.h).
 *
 * Depths of the values read: the envelope's members at 1, data's at 2,
 * the entries of files at 3, an entry's members at 4.  json-c keeps the
 * last of repeated keys, so a later "data" or "files" drops what the one
 * before gave, and a later member of an entry replaces the one before. */
#include <config.h>

#include "plugin/remote/remote_list_answer.h"

#include "common/dynbuf.h"
#include "common/json_fields.h"
#include "common/json_stream.h"
#include "common/utf8.h"
#include "plugin/remote/remote_aio_decode.h"

#include <stdlib.h>
#include <string.h>

/* The members read: the envelope's two, data's two, an entry's five. */
enum {
    M_SUCCESS, M_DATA,
    M_FILES, M_DIR,
    M_PATH, M_IS_DIRECTORY, M_SIZE, M_MODIFIED, M_PERMISSIONS,
    M_NONE
};

#define MEMBER(name) { name, sizeof name - 1 }
static const struct member_name {
    const char *text;
    size_t len;
} member_names[M_NONE] = {
    MEMBER("success"), MEMBER("data"), MEMBER("files"), MEMBER("path"),
    MEMBER("path"), MEMBER("is_directory"), MEMBER("size"), MEMBER("modified_time"),
    MEMBER("permissions")
};
#undef MEMBER

/* One entry of files as read so far. */
typedef struct scanned_entry {
    size_t path;     /* its path's offset in the scan's `paths` */
    int path_ok;     /* path is clean text (else json-c must name the entry) */
    int is_dir_ok;   /* is_directory is a boolean */
    int is_dir;
    int64_t size;
    int64_t mtime;
    uint32_t mode;
} scanned_entry;

typedef struct list_scan {
    common_json_stream lex;
    int root_object;       /* the text is an object */
    int pending;           /* the member whose value comes next, or M_NONE */
    int in_data, in_files, in_entry; /* the containers open at depths 1, 2, 3 are those */
    common_json_field success_state, data_state, files_state, dir_state;
    int success;
    common_dynbuf dir;     /* data's path */
    common_dynbuf paths;   /* the entries' paths, each NUL-terminated */
    common_dynbuf scratch; /* the modified_time or permissions being read */
    scanned_entry *entries;
    size_t count, cap;
    int out_of_memory;
} list_scan;

/* Which member the key just read names, where it is. */
static int member_of(const list_scan *s)
{
    unsigned depth = s->lex.depth;
    int first, last;
    if (depth == 1) {
        first = M_SUCCESS, last = M_DATA;
    } else if (depth == 2 && s->in_data) {
        first = M_FILES, last = M_DIR;
    } else if (depth == 4 && s->in_entry) {
        first = M_PATH, last = M_PERMISSIONS;
    } else {
        return M_NONE;
    }
    for (int i = first; i <= last; i++)
        if (s->lex.key_len == member_names[i].len &&
            memcmp(s->lex.key, member_names[i].text, member_names[i].len) == 0)
            return i;
    return M_NONE;
}

/* A new entry of files, every member absent. */
static void begin_entry(list_scan *s, int is_object)
{
    if (s->count == s->cap) {
        size_t cap = s->cap > 0 ? s->cap * 2 : 32;
        scanned_entry *grown = realloc(s->entries, cap * sizeof *grown);
        if (grown == NULL) {
            s->out_of_memory = 1;
            return;
        }
        s->entries = grown;
        s->cap = cap;
    }
    s->entries[s->count++] = (scanned_entry){ .mtime = SBX_TIME_UNKNOWN };
    s->in_entry = is_object;
}

/* A member of the open entry that is a container: as json-c would read it. */
static void entry_member_not_scalar(list_scan *s, int m)
{
    scanned_entry *e = &s->entries[s->count - 1];
    switch (m) {
    case M_PATH: e->path_ok = 0; break;
    case M_IS_DIRECTORY: e->is_dir_ok = 0; break;
    case M_SIZE: e->size = 0; break;
    case M_MODIFIED: e->mtime = SBX_TIME_UNKNOWN; break;
    case M_PERMISSIONS: e->mode = 0; break;
    default: break;
    }
}

static void value_begins(list_scan *s)
{
    const common_json_stream *lex = &s->lex;
    int m = s->pending;
    s->pending = M_NONE;
    int container = lex->kind == COMMON_JSON_KIND_OBJECT || lex->kind == COMMON_JSON_KIND_ARRAY;
    if (lex->depth == 0) {
        s->root_object = lex->kind == COMMON_JSON_KIND_OBJECT;
    } else if (lex->depth == 3 && s->in_files) {
        begin_entry(s, lex->kind == COMMON_JSON_KIND_OBJECT);
    } else if (m == M_DATA) {
        s->in_data = lex->kind == COMMON_JSON_KIND_OBJECT;
        s->data_state = s->in_data ? COMMON_JSON_OK : COMMON_JSON_WRONG_TYPE;
        s->files_state = COMMON_JSON_ABSENT;
        s->dir_state = COMMON_JSON_ABSENT;
        s->count = 0;
    } else if (m == M_FILES) {
        s->in_files = lex->kind == COMMON_JSON_KIND_ARRAY;
        s->files_state = s->in_files ? COMMON_JSON_OK : COMMON_JSON_WRONG_TYPE;
        s->count = 0;
    } else if (m != M_NONE && container) {
        if (m >= M_PATH)
            entry_member_not_scalar(s, m);
        else if (m == M_SUCCESS)
            s->success_state = COMMON_JSON_WRONG_TYPE;
        else
            s->dir_state = COMMON_JSON_WRONG_TYPE;
    } else if (m != M_NONE) {
        s->pending = m; /* read at the scalar's end */
        if (lex->kind != COMMON_JSON_KIND_STRING)
            return;
        if (m == M_DIR) {
            common_dynbuf_reset(&s->dir);
            s->lex.target = &s->dir;
        } else if (m == M_PATH) {
            s->entries[s->count - 1].path = s->paths.len;
            s->lex.target = &s->paths;
        } else if (m == M_MODIFIED || m == M_PERMISSIONS) {
            common_dynbuf_reset(&s->scratch);
            s->lex.target = &s->scratch;
        }
    }
}

/* The clean text of the string just read into `b` from `from`, or NULL. */
static const char *clean_string(const list_scan *s, const common_dynbuf *b, size_t from)
{
    if (s->lex.kind != COMMON_JSON_KIND_STRING ||
        !common_text_is_clean(b->data + from, b->len - from))
        return NULL;
    return b->data + from;
}

static void value_ends(list_scan *s)
{
    const common_json_stream *lex = &s->lex;
    int m = s->pending;
    s->pending = M_NONE;
    if (m == M_NONE || lex->depth == 0)
        return;
    if (m == M_SUCCESS) {
        int boolean = lex->kind == COMMON_JSON_KIND_BOOL;
        s->success_state = boolean                            ? COMMON_JSON_OK
                           : lex->kind == COMMON_JSON_KIND_NULL ? COMMON_JSON_NULL
                                                                : COMMON_JSON_WRONG_TYPE;
        s->success = boolean && (lex->at[-2] | 0x20) == 'u'; /* tr(u)e, fal(s)e */
        return;
    }
    if (m == M_DIR) {
        s->dir_state = clean_string(s, &s->dir, 0) != NULL ? COMMON_JSON_OK : COMMON_JSON_NULL;
        return;
    }
    scanned_entry *e = &s->entries[s->count - 1];
    const char *text = NULL;
    switch (m) {
    case M_PATH:
        e->path_ok = clean_string(s, &s->paths, e->path) != NULL;
        if (lex->kind == COMMON_JSON_KIND_STRING)
            common_dynbuf_add(&s->paths, "", 1); /* keep its NUL: the next path follows */
        break;
    case M_IS_DIRECTORY:
        e->is_dir_ok = lex->kind == COMMON_JSON_KIND_BOOL;
        e->is_dir = e->is_dir_ok && (lex->at[-2] | 0x20) == 'u';
        break;
    case M_SIZE:
        e->size = lex->kind == COMMON_JSON_KIND_INT ? common_json_stream_int64(lex) : 0;
        break;
    case M_MODIFIED:
        text = clean_string(s, &s->scratch, 0);
        e->mtime = remote_aio_mtime(text);
        break;
    case M_PERMISSIONS:
        text = clean_string(s, &s->scratch, 0);
        e->mode = remote_aio_permissions(text);
        break;
    default:
        break;
    }
}

static void container_ends(list_scan *s)
{
    if (s->lex.depth == 3)
        s->in_entry = 0;
    else if (s->lex.depth == 2)
        s->in_files = 0;
    else if (s->lex.depth == 1)
        s->in_data = 0;
}

/* Scan the text; 1 when it is the plain successful shape, 0 when json-c
 * must read it. */
static int scan(list_scan *s, const char *body, size_t len)
{
    common_json_stream_init(&s->lex);
    s->pending = M_NONE;
    common_json_stream_feed(&s->lex, body, len);
    common_json_event event;
    while (!s->out_of_memory &&
           (event = common_json_stream_next(&s->lex)) != COMMON_JSON_EVENT_NONE) {
        switch (event) {
        case COMMON_JSON_EVENT_BEGIN: value_begins(s); break;
        case COMMON_JSON_EVENT_KEY: s->pending = member_of(s); break;
        case COMMON_JSON_EVENT_SCALAR: value_ends(s); break;
        case COMMON_JSON_EVENT_CLOSE: container_ends(s); break;
        case COMMON_JSON_EVENT_NONE: break;
        }
    }
    if (s->out_of_memory || s->lex.out_of_memory || s->paths.failed != COMMON_DYNBUF_OK ||
        common_json_stream_end(&s->lex) != COMMON_JSON_COMPLETE || !s->root_object ||
        s->data_state != COMMON_JSON_OK || s->files_state != COMMON_JSON_OK)
        return 0;
    if (s->success_state != COMMON_JSON_ABSENT &&
        (s->success_state != COMMON_JSON_OK || !s->success))
        return 0;
    for (size_t i = 0; i < s->count; i++)
        if (!s->entries[i].path_ok || !s->entries[i].is_dir_ok)
            return 0;
    return 1;
}

/* The fields of one scanned entry (a remote_aio_entry_reader). */
static sbx_status read_scanned(const void *info, const char *rel, common_listing_entry *entry,
                               sbx_error *err)
{
    (void)err; /* the scan let only readable entries through */
    const scanned_entry *e = info;
    *entry = (common_listing_entry){
        rel, e->is_dir ? SBX_FILE_DIRECTORY : SBX_FILE_REGULAR,
        e->is_dir || e->size < 0 ? 0 : (uint64_t)e->size, e->mtime, e->mode };
    return SBX_OK;
}

/* The listing of a scanned answer; 0 (nothing made) when an entry is not
 * below the directory, which json-c's reading names. */
static int listing_of_scan(list_scan *s, const char *listed, unsigned max_depth,
                           size_t max_entries, sbx_status *st, sbx_dir_listing **out,
                           sbx_error *err)
{
    const char *dir = s->dir_state == COMMON_JSON_OK ? s->dir.data : listed;
    remote_aio_listed *kept = malloc((s->count > 0 ? s->count : 1) * sizeof *kept);
    if (kept == NULL)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < s->count; i++) {
        const char *rel = remote_aio_below(s->paths.data + s->entries[i].path, dir);
        if (rel == NULL) {
            free(kept);
            return 0;
        }
        if (remote_aio_depth(rel) <= max_depth)
            kept[n++] = (remote_aio_listed){ rel, &s->entries[i] };
    }
    *st = remote_aio_listing_of(kept, n, max_entries, read_scanned, out, err);
    free(kept);
    return 1;
}

/* The json-c reading, for every answer of another shape. */
static sbx_status read_with_json_c(const char *body, size_t len, const char *listed,
                                   unsigned max_depth, size_t max_entries,
                                   sbx_dir_listing **out, sbx_error *err)
{
    remote_aio_answer answer;
    sbx_status st = remote_aio_envelope(body, len, listed, SBX_ERR_NOT_A_DIRECTORY, &answer,
                                        err);
    if (st == SBX_OK)
        st = remote_aio_decode_listing(answer.data, listed, max_depth, max_entries, out, err);
    json_object_put(answer.root);
    return st;
}

sbx_status remote_list_answer_read(const char *body, size_t len, const char *listed,
                                   unsigned max_depth, size_t max_entries,
                                   sbx_dir_listing **out, sbx_error *err)
{
    *out = NULL;
    list_scan s;
    memset(&s, 0, sizeof s);
    sbx_status st = SBX_OK;
    if (!scan(&s, body, len) ||
        !listing_of_scan(&s, listed, max_depth, max_entries, &st, out, err))
        st = read_with_json_c(body, len, listed, max_depth, max_entries, out, err);
    common_dynbuf_free(&s.dir);
    common_dynbuf_free(&s.paths);
    common_dynbuf_free(&s.scratch);
    free(s.entries);
    return st;
}
