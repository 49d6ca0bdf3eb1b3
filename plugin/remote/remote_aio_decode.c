/* Reading the AIO sandbox API's answers (see remote_aio_decode.h). */
#include <config.h>

#include "plugin/remote/remote_aio_decode.h"

#include "common/iso_time.h"
#include "common/json_fields.h"
#include "common/op_results.h"

#include <sbx/backend_support.h>

#include <stdlib.h>
#include <string.h>

sbx_status remote_aio_file_error_kind(const char *error_type, const char *errno_name,
                                      sbx_status invalid_target_kind)
{
    static const struct { const char *word; sbx_status kind; } by_errno[] = {
        { "ENOENT", SBX_ERR_NO_SUCH_PATH },   { "ENOTDIR", SBX_ERR_NOT_A_DIRECTORY },
        { "EISDIR", SBX_ERR_IS_A_DIRECTORY }, { "EEXIST", SBX_ERR_EXISTS },
        { "EACCES", SBX_ERR_PERMISSION },     { "EPERM", SBX_ERR_PERMISSION },
        { "EROFS", SBX_ERR_PERMISSION },
    };
    static const struct { const char *word; sbx_status kind; } by_type[] = {
        { "not_found", SBX_ERR_NO_SUCH_PATH },  { "permission_denied", SBX_ERR_PERMISSION },
        { "read_only_filesystem", SBX_ERR_PERMISSION }, { "already_exists", SBX_ERR_EXISTS },
        { "invalid_path", SBX_ERR_USAGE },      { "decode_error", SBX_ERR_PROTOCOL },
    };
    for (size_t i = 0; errno_name != NULL && i < sizeof by_errno / sizeof by_errno[0]; i++)
        if (strcmp(errno_name, by_errno[i].word) == 0)
            return by_errno[i].kind;
    if (error_type == NULL)
        return SBX_ERR_PROVISIONER;
    if (strcmp(error_type, "invalid_target") == 0)
        return invalid_target_kind;
    for (size_t i = 0; i < sizeof by_type / sizeof by_type[0]; i++)
        if (strcmp(error_type, by_type[i].word) == 0)
            return by_type[i].kind;
    return SBX_ERR_PROVISIONER; /* no_space_left, io_error and words yet to come */
}

/* A string member, or NULL when absent, null or not clean text. */
static const char *text_member(struct json_object *object, const char *key)
{
    const char *s = NULL;
    return common_json_get_string(object, key, &s) == COMMON_JSON_OK ? s : NULL;
}

sbx_status remote_aio_envelope(const char *body, size_t len, const char *what,
                               sbx_status invalid_target_kind, remote_aio_answer *out,
                               sbx_error *err)
{
    out->root = NULL;
    out->data = NULL;
    int too_deep = 0;
    struct json_object *r = common_json_parse_ex(body, len, &too_deep);
    if (r == NULL || !json_object_is_type(r, json_type_object)) {
        json_object_put(r);
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "%s: the answer is %s", what,
                                     too_deep ? COMMON_JSON_TOO_DEEP : "not a JSON object");
    }
    int success = 1;
    common_json_field f = common_json_get_bool(r, "success", &success);
    if (f != COMMON_JSON_OK && f != COMMON_JSON_ABSENT) {
        json_object_put(r);
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "%s: the answer's success is not a boolean", what);
    }
    struct json_object *d = NULL;
    json_object_object_get_ex(r, "data", &d);
    if (success) {
        out->root = r;
        out->data = json_object_is_type(d, json_type_null) ? NULL : d;
        return SBX_OK;
    }
    /* "Handled operation failure": a FileOperationError says what, else
     * only the envelope's message does. */
    const char *type = text_member(d, "error_type");
    const char *message = text_member(d, "message");
    if (message == NULL)
        message = text_member(r, "message");
    sbx_status kind = remote_aio_file_error_kind(type, text_member(d, "errno_name"),
                                                 invalid_target_kind);
    sbx_backend_error_set(err, kind, "%s: %s%s%s%s", what,
                          message != NULL ? message : "the sandbox reports a failure",
                          type != NULL ? " (" : "", type != NULL ? type : "",
                          type != NULL ? ")" : "");
    err->http_status = 200;
    json_object_put(r);
    return kind;
}

/* The string `key` of `data` into *text, *len (absent or null: NULL, 0).
 * SBX_ERR_PROTOCOL when it is not a string. */
static sbx_status stream_member(struct json_object *data, const char *key, const char **text,
                                size_t *len, sbx_error *err)
{
    struct json_object *v = NULL;
    *text = NULL;
    *len = 0;
    if (!json_object_object_get_ex(data, key, &v) || json_object_is_type(v, json_type_null))
        return SBX_OK;
    if (!json_object_is_type(v, json_type_string))
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "exec answer: %s is not a string", key);
    /* The length, not strlen: a \u0000 in the answer is a NUL byte kept. */
    *text = json_object_get_string(v);
    *len = (size_t)json_object_get_string_len(v);
    return SBX_OK;
}

sbx_status remote_aio_read_end(const char *status, int has_code, int code, remote_aio_end *r,
                               sbx_error *err)
{
    if (status == NULL)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "exec answer: status is missing or not a string");
    r->exit_code = -1;
    r->term_signal = 0;
    if (strcmp(status, "timed_out") == 0) {
        r->outcome = SBX_EXEC_TIMED_OUT;
        return SBX_OK;
    }
    if (strcmp(status, "killed") == 0) {
        /* Which signal, only a returncode -N says. */
        r->outcome = SBX_EXEC_SIGNALED;
        if (has_code && code < 0 && code >= -128)
            r->term_signal = -code;
        return SBX_OK;
    }
    if (strcmp(status, "completed") != 0)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "exec answer: status '%.40s' for a command that ended",
                                     status);
    if (!has_code)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "exec answer: a completed command without an integer "
                                     "exit_code");
    if (code >= 0 && code <= 255) {
        r->outcome = SBX_EXEC_EXITED;
        r->exit_code = code;
    } else if (code < 0 && code >= -128) {
        r->outcome = SBX_EXEC_SIGNALED;
        r->term_signal = -code;
    } else {
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "exec answer: exit_code %d is out of range", code);
    }
    return SBX_OK;
}

sbx_status remote_aio_exec_result(const remote_aio_exec_fields *f, size_t cap,
                                  sbx_exec_result **out, sbx_error *err)
{
    *out = NULL;
    common_output o, e;
    common_output_init(&o, cap);
    common_output_init(&e, cap);
    sbx_status st = SBX_OK;
    if (f->stdout_text != NULL)
        st = common_output_add(&o, f->stdout_text, f->stdout_len, err);
    if (st == SBX_OK && f->stderr_text != NULL)
        st = common_output_add(&e, f->stderr_text, f->stderr_len, err);
    sbx_exec_result *r = NULL;
    if (st == SBX_OK) {
        r = common_exec_result_new(&o, &e);
        if (r == NULL)
            st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    common_output_free(&o);
    common_output_free(&e);
    remote_aio_end end;
    if (st == SBX_OK)
        st = remote_aio_read_end(f->status, f->has_code, f->code, &end, err);
    if (st == SBX_OK) {
        r->outcome = end.outcome;
        r->exit_code = end.exit_code;
        r->term_signal = end.term_signal;
    } else {
        common_exec_result_free(r);
        return st;
    }
    *out = r;
    return SBX_OK;
}

sbx_status remote_aio_decode_exec(struct json_object *data, size_t cap, sbx_exec_result **out,
                                  sbx_error *err)
{
    *out = NULL;
    if (!json_object_is_type(data, json_type_object))
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "exec answer: data is not an object");
    remote_aio_exec_fields f = { .status = NULL };
    sbx_status st = stream_member(data, "stdout", &f.stdout_text, &f.stdout_len, err);
    if (st == SBX_OK)
        st = stream_member(data, "stderr", &f.stderr_text, &f.stderr_len, err);
    if (st != SBX_OK)
        return st;
    if (common_json_get_string(data, "status", &f.status) != COMMON_JSON_OK)
        f.status = NULL;
    f.has_code = common_json_get_int(data, "exit_code", &f.code) == COMMON_JSON_OK;
    return remote_aio_exec_result(&f, cap, out, err);
}

/* One octal digit's worth of "rwx" at s[0..2], with the special bit `x_alt`
 * (s, t) shown in place of x: lower case when x is set too. */
static int symbolic_triplet(const char *s, char x_alt, uint32_t *bits, int *special)
{
    *bits = 0;
    *special = 0;
    if ((s[0] != 'r' && s[0] != '-') || (s[1] != 'w' && s[1] != '-'))
        return 0;
    *bits = (s[0] == 'r' ? 4u : 0u) | (s[1] == 'w' ? 2u : 0u);
    if (s[2] == 'x' || s[2] == x_alt)
        *bits |= 1u;
    else if (s[2] != '-' && s[2] != (char)(x_alt - 'a' + 'A'))
        return 0;
    *special = s[2] == x_alt || s[2] == (char)(x_alt - 'a' + 'A');
    return 1;
}

uint32_t remote_aio_permissions(const char *text)
{
    if (text == NULL)
        return 0;
    size_t len = strlen(text);
    if (len == 9 || len == 10) {
        const char *s = text + len - 9;
        uint32_t u, g, o;
        int su, sg, st;
        if (symbolic_triplet(s, 's', &u, &su) && symbolic_triplet(s + 3, 's', &g, &sg) &&
            symbolic_triplet(s + 6, 't', &o, &st))
            return (uint32_t)(su << 11 | sg << 10 | st << 9) | u << 6 | g << 3 | o;
    }
    const char *p = strncmp(text, "0o", 2) == 0 ? text + 2 : text;
    if (*p == '\0' || strlen(p) > 5)
        return 0;
    uint32_t mode = 0;
    for (; *p != '\0'; p++) {
        if (*p < '0' || *p > '7')
            return 0;
        mode = mode * 8 + (uint32_t)(*p - '0');
    }
    return mode & 07777;
}

int64_t remote_aio_mtime(const char *text)
{
    int64_t ms = SBX_TIME_UNKNOWN;
    if (text == NULL)
        return ms;
    /* Only a zone (Z, z, + or -) after the date lets the text read as it
     * is, and only a text without one reads with "Z" added: one parse. */
    size_t len = strlen(text);
    if (len > 10 && strpbrk(text + 10, "Zz+-") != NULL) {
        common_time_parse_rfc3339(text, &ms);
        return ms;
    }
    /* isoformat() of a naive datetime: no offset; a sandbox runs in UTC. */
    char with_zone[64];
    if (len + 2 > sizeof with_zone)
        return SBX_TIME_UNKNOWN;
    memcpy(with_zone, text, len);
    memcpy(with_zone + len, "Z", 2);
    if (!common_time_parse_rfc3339(with_zone, &ms))
        return SBX_TIME_UNKNOWN;
    return ms;
}

/* Depth-first order: byte order, but '/' before every other byte, so that a
 * directory's entries follow it before its next sibling. */
static int depth_first_cmp(const void *a, const void *b)
{
    const unsigned char *x = *(const unsigned char *const *)a;
    const unsigned char *y = *(const unsigned char *const *)b;
    for (; *x != '\0' && *x == *y; x++, y++)
        ;
    unsigned cx = *x == '/' ? 1u : *x == '\0' ? 0u : *x + 1u;
    unsigned cy = *y == '/' ? 1u : *y == '\0' ? 0u : *y + 1u;
    return cx < cy ? -1 : cx > cy;
}

const char *remote_aio_below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (n == 1 && dir[0] == '/')
        n = 0; /* the root: every absolute path is below it */
    if (strncmp(path, dir, n) != 0 || path[n] != '/' || path[n + 1] == '\0')
        return NULL;
    return path + n + 1;
}

unsigned remote_aio_depth(const char *rel)
{
    unsigned depth = 1;
    for (; *rel != '\0'; rel++)
        depth += *rel == '/';
    return depth;
}

sbx_status remote_aio_listing_of(remote_aio_listed *kept, size_t n, size_t max_entries,
                                 remote_aio_entry_reader read, sbx_dir_listing **out,
                                 sbx_error *err)
{
    *out = NULL;
    /* The AIO API answers a level sorted by name, already in this order:
     * checking costs less than sorting. */
    for (size_t i = 1; i < n; i++) {
        if (depth_first_cmp(&kept[i - 1].rel, &kept[i].rel) > 0) {
            qsort(kept, n, sizeof *kept, depth_first_cmp);
            break;
        }
    }
    common_listing_builder b = { 0 };
    sbx_status st = common_listing_start(&b, err);
    for (size_t i = 0; st == SBX_OK && i < n && i < max_entries; i++) {
        common_listing_entry entry;
        st = read(kept[i].info, kept[i].rel, &entry, err);
        if (st == SBX_OK)
            st = common_listing_add(&b, &entry, err);
    }
    if (st != SBX_OK) {
        common_listing_free(b.listing);
        return st;
    }
    b.listing->truncated = n > max_entries;
    *out = b.listing;
    return SBX_OK;
}

/* The fields of one FileInfo (a remote_aio_entry_reader). */
static sbx_status read_info(const void *source, const char *rel, common_listing_entry *entry,
                            sbx_error *err)
{
    struct json_object *info = (struct json_object *)source;
    int is_dir = 0;
    int64_t size = 0;
    struct json_object *v = NULL;
    if (common_json_get_bool(info, "is_directory", &is_dir) != COMMON_JSON_OK)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "list answer: entry %s has no boolean is_directory", rel);
    if (json_object_object_get_ex(info, "size", &v) && json_object_is_type(v, json_type_int))
        size = json_object_get_int64(v);
    *entry = (common_listing_entry){
        rel, is_dir ? SBX_FILE_DIRECTORY : SBX_FILE_REGULAR,
        is_dir || size < 0 ? 0 : (uint64_t)size,
        remote_aio_mtime(text_member(info, "modified_time")),
        remote_aio_permissions(text_member(info, "permissions")) };
    return SBX_OK;
}

sbx_status remote_aio_decode_listing(struct json_object *data, const char *listed,
                                     unsigned max_depth, size_t max_entries,
                                     sbx_dir_listing **out, sbx_error *err)
{
    *out = NULL;
    struct json_object *files = NULL;
    if (!json_object_is_type(data, json_type_object) ||
        !json_object_object_get_ex(data, "files", &files) ||
        !json_object_is_type(files, json_type_array))
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "list answer: data has no files array");
    const char *dir = text_member(data, "path");
    if (dir == NULL)
        dir = listed;
    size_t n = json_object_array_length(files), kept = 0;
    remote_aio_listed *entries = calloc(n > 0 ? n : 1, sizeof *entries);
    if (entries == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    sbx_status st = SBX_OK;
    for (size_t i = 0; i < n && st == SBX_OK; i++) {
        struct json_object *info = json_object_array_get_idx(files, i);
        const char *path = text_member(info, "path");
        const char *rel = path != NULL ? remote_aio_below(path, dir) : NULL;
        if (rel == NULL)
            st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                       "list answer: entry %zu is not a path below %s", i, dir);
        else if (remote_aio_depth(rel) <= max_depth)
            entries[kept++] = (remote_aio_listed){ rel, info };
    }
    if (st == SBX_OK)
        st = remote_aio_listing_of(entries, kept, max_entries, read_info, out, err);
    free(entries);
    return st;
}
