/* read, write, list and remove over the AIO API (see remote_files.h). */
#include <config.h>

#include "plugin/remote/remote_files.h"

#include "common/base64.h"
#include "common/json_escape.h"
#include "common/op_results.h"
#include "plugin/remote/remote_aio_decode.h"
#include "plugin/remote/remote_aio_text.h"
#include "plugin/remote/remote_decode.h"
#include "plugin/remote/remote_list_answer.h"
#include "plugin/remote/remote_endpoint.h"
#include "plugin/remote/remote_instance.h"
#include "plugin/remote/remote_exec_call.h"

#include <sbx/backend_support.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t remote_max_file_bytes(const remote_options *o)
{
    /* less libcurl's largest write chunk, so that a read stops before the
     * bound aborts the transfer */
    return o->max_response_bytes > 16384 ? o->max_response_bytes - 16384 : 1;
}

/* The output a check script keeps. */
#define CHECK_CAP 2048

/* Run a check script (POSIX sh, run by the server's bash) whose exit codes
 * 12..16 are the sbx kinds of what it found about `path`. */
static sbx_status run_check(remote_endpoint *ep, const char *script, const char *path,
                            sbx_error *err)
{
    char *body = remote_exec_body(script, NULL, 0, NULL, REMOTE_FILE_TIMEOUT_MS, CHECK_CAP);
    if (body == NULL)
        return remote_endpoint_no_memory(ep, err);
    sbx_exec_result *r = NULL;
    sbx_status st = remote_exec_post(ep, body, REMOTE_FILE_TIMEOUT_MS, CHECK_CAP, &r, err);
    free(body);
    if (st != SBX_OK)
        return st;
    static const char *const found[] = { "no such path", "a component of the path is not a "
                                         "directory", "is a directory", "exists",
                                         "permission denied" };
    if (r->outcome == SBX_EXEC_EXITED && r->exit_code >= SBX_ERR_NO_SUCH_PATH &&
        r->exit_code <= SBX_ERR_PERMISSION) {
        sbx_backend_error_set(err, (sbx_status)r->exit_code, "%s: %s%s%.200s", path,
                              found[r->exit_code - SBX_ERR_NO_SUCH_PATH],
                              r->stderr_length > 0 ? ": " : "", r->stderr_data);
        st = remote_endpoint_fail(ep, err);
    } else if (r->outcome != SBX_EXEC_EXITED || r->exit_code != 0) {
        sbx_backend_error_set(err, SBX_ERR_PROVISIONER, "%s: the check in the sandbox %s %d: "
                              "%.200s", path, r->outcome == SBX_EXEC_EXITED ? "exited" : "ended",
                              r->exit_code, r->stderr_data);
        st = remote_endpoint_fail(ep, err);
    }
    common_exec_result_free(r);
    return st;
}

/* A JSON body for a file route; `path` and `invalid_target_kind` as
 * remote_aio_envelope's `what` and kind for its answer. */
typedef struct file_call {
    const char *route;
    const char *body;
    const char *path;
    sbx_status invalid_target_kind;
} file_call;

/* POST a file call; SBX_OK with its 200 answer in *resp (the caller
 * clears it), else the error, the endpoint failed. */
static sbx_status post_call(remote_endpoint *ep, const file_call *fc, common_http_response *resp,
                            sbx_error *err)
{
    common_http_call call = {.method = "POST", .path = fc->route, .json_body = fc->body,
                             .timeout_ms = REMOTE_FILE_TIMEOUT_MS};
    sbx_status st = common_http_perform(ep->http, &call, resp, err);
    if (st != SBX_OK)
        return remote_endpoint_fail(ep, err);
    if (resp->status != 200) {
        st = remote_endpoint_answer_error(ep, resp, err);
        common_http_response_clear(resp);
    }
    return st;
}

/* POST a file call and read its envelope into *answer (the caller puts
 * answer->root). */
static sbx_status post_file(remote_endpoint *ep, const file_call *fc, remote_aio_answer *answer,
                           sbx_error *err)
{
    *answer = (remote_aio_answer){ 0 };
    common_http_response resp;
    sbx_status st = post_call(ep, fc, &resp, err);
    if (st != SBX_OK)
        return st;
    st = remote_aio_envelope(resp.body, resp.body_len, fc->path, fc->invalid_target_kind,
                             answer, err);
    if (st != SBX_OK)
        remote_endpoint_fail(ep, err);
    common_http_response_clear(&resp);
    return st;
}

/* The /v1/file/list body for `abs`; malloc'd, NULL when out of memory.
 * Only the path needs json-c (its escapes); the rest is fixed text, which
 * a tree of seven objects took 3 % of a listing's instructions to write. */
static char *list_body(const char *abs, unsigned max_depth)
{
    struct json_object *path = json_object_new_string(abs);
    const char *quoted = path != NULL ? json_object_to_json_string_ext(
                                            path, JSON_C_TO_STRING_PLAIN |
                                                      JSON_C_TO_STRING_NOSLASHESCAPE)
                                      : NULL;
    static const char format[] = "{\"path\":%s,\"recursive\":%s,\"max_depth\":%u,"
                                 "\"show_hidden\":true,\"include_size\":true,"
                                 "\"include_permissions\":true}";
    size_t size = quoted != NULL ? sizeof format + strlen(quoted) + 16 : 0;
    char *body = size > 0 ? malloc(size) : NULL;
    if (body != NULL)
        snprintf(body, size, format, quoted, max_depth > 1 ? "true" : "false", max_depth);
    json_object_put(path);
    return body;
}

/* Bytes [skip, skip + want) of a download, and whether any follow. */
typedef struct range_sink {
    uint64_t skip, want;
    common_dynbuf kept;
    int more;       /* a byte past the range arrived: the transfer was stopped */
} range_sink;

/* Room for the part of an announced body the range keeps. */
static void range_expect(void *ctx, uint64_t length)
{
    range_sink *r = ctx;
    if (length > r->skip)
        common_dynbuf_reserve(&r->kept, (size_t)(length - r->skip < r->want ? length - r->skip
                                                                            : r->want));
}

static int range_write(void *ctx, const char *data, size_t len)
{
    range_sink *r = ctx;
    size_t skip = r->skip < len ? (size_t)r->skip : len;
    r->skip -= skip;
    data += skip;
    len -= skip;
    uint64_t room = r->want - r->kept.len;
    size_t keep = room < len ? (size_t)room : len;
    if (common_dynbuf_add(&r->kept, data, keep) != COMMON_DYNBUF_OK)
        return 1;
    if (keep < len) {
        r->more = 1;
        return 1; /* stop: the rest of the file is not wanted */
    }
    return 0;
}

/* Whether `abs` lists as a directory (the download route's 400 does not
 * say why it refused). */
static int lists_as_directory(remote_endpoint *ep, const char *abs)
{
    char *body = list_body(abs, 1);
    remote_aio_answer answer = { 0 };
    sbx_error ignored;
    file_call fc = { "/v1/file/list", body, abs, SBX_ERR_NOT_A_DIRECTORY };
    int is_dir = body != NULL && post_file(ep, &fc, &answer, &ignored) == SBX_OK;
    json_object_put(answer.root);
    free(body);
    return is_dir;
}

/* The error of a download answer that is not 200: a FileOperationError
 * envelope when it holds one, else by status.  The route answers a bad key
 * with 401, so its 403 is the file's permission; a 400 for a path that
 * lists as a directory is that directory. */
static sbx_status download_error(remote_endpoint *ep, const common_http_response *resp,
                                 const char *abs, sbx_error *err)
{
    remote_aio_answer answer;
    sbx_status kind = remote_aio_envelope(resp->body, resp->body_len, abs,
                                          SBX_ERR_IS_A_DIRECTORY, &answer, err);
    json_object_put(answer.root);
    if (kind != SBX_OK && kind != SBX_ERR_PROTOCOL) { /* success:false said what */
        remote_endpoint_fail(ep, err);
        err->http_status = (int)resp->status;
        return kind;
    }
    kind = resp->status == 404                                   ? SBX_ERR_NO_SUCH_PATH
           : resp->status == 403                                 ? SBX_ERR_PERMISSION
           : resp->status == 400 && lists_as_directory(ep, abs) ? SBX_ERR_IS_A_DIRECTORY
                                                                 : SBX_OK;
    if (kind == SBX_OK)
        return remote_endpoint_answer_error(ep, resp, err);
    char detail[200];
    remote_detail_text(resp->body, resp->body_len, detail, sizeof detail);
    sbx_backend_error_set(err, kind, "%s: HTTP %ld %s", abs, resp->status, detail);
    remote_endpoint_fail(ep, err);
    err->http_status = (int)resp->status;
    return kind;
}

/* One file call's work on its sandbox's endpoint. */
typedef sbx_status (*file_step)(remote_endpoint *ep, void *ctx, sbx_error *err);

/* Run `step` at sandbox `sandbox_id`'s address, a kept one when there is
 * one (remote_endpoint_open_kept).  When it fails through a kept address
 * other than with the sandbox's own answer (HTTP 200, success false) or a
 * usage error, the address is forgotten and asked again: the sandbox gone
 * is that error, and the step runs again when it is elsewhere now. */
static sbx_status on_sandbox(sbx_backend_instance *inst, const char *sandbox_id, const char *op,
                             file_step step, void *ctx, sbx_error *err)
{
    remote_endpoint ep;
    sbx_status st = remote_endpoint_open_kept(inst, sandbox_id, op, &ep, err);
    if (st != SBX_OK)
        return st;
    sbx_backend_error_clear(err);
    st = step(&ep, ctx, err);
    if (st != SBX_OK && ep.kept && err->http_status != 200 && st != SBX_ERR_USAGE &&
        st != SBX_ERR_UNSUPPORTED) {
        char *was = strdup(ep.client->url);
        remote_endpoint_close(&ep);
        remote_address_cache_forget(&inst->addresses, sandbox_id);
        sbx_error again;
        sbx_backend_error_clear(&again);
        sbx_status found = remote_endpoint_open_kept(inst, sandbox_id, op, &ep, &again);
        if (found != SBX_OK) {
            *err = again;
            st = found;
        } else if (was == NULL || strcmp(was, ep.client->url) != 0) {
            sbx_backend_error_clear(err);
            st = step(&ep, ctx, err);
        }
        free(was);
    }
    remote_endpoint_close(&ep);
    return st;
}

/* A read's arguments and its content once read. */
typedef struct read_call {
    const char *path;
    uint64_t offset, max_bytes, reach;
    sbx_file_content *content;
} read_call;

static sbx_status read_step(remote_endpoint *ep, void *ctx, sbx_error *err)
{
    read_call *rc = ctx;
    char *abs = NULL;
    common_dynbuf url;
    common_dynbuf_init(&url, 0);
    sbx_status st = remote_endpoint_path(ep, rc->path, 0, &abs, err);
    if (st == SBX_OK) {
        common_dynbuf_add(&url, "/v1/file/download?path=", 23);
        if (remote_query_escape(&url, abs) != COMMON_DYNBUF_OK)
            st = remote_endpoint_no_memory(ep, err);
    }
    /* Bytes past the reach would abort the transfer as oversize: a read
     * that asks for more gets what there is up to it, truncated set. */
    range_sink range = { .skip = rc->offset,
                         .want = rc->max_bytes < rc->reach - rc->offset
                                     ? rc->max_bytes : rc->reach - rc->offset };
    /* limited to the range (want <= reach, a size_t): a reserve for it is
     * never rounded up past it */
    common_dynbuf_init(&range.kept, (size_t)range.want);
    common_http_response resp = { 0 };
    if (st == SBX_OK) {
        common_http_body_sink sink = { .status = 200, .write = range_write, .ctx = &range,
                                       .expect = range_expect };
        common_http_call call = {.method = "GET", .path = url.data,
                                 .timeout_ms = REMOTE_FILE_TIMEOUT_MS, .sink = &sink};
        st = common_http_perform(ep->http, &call, &resp, err);
        if (st != SBX_OK && range.more && range.kept.failed == COMMON_DYNBUF_OK)
            st = SBX_OK; /* stopped on purpose, with every wanted byte */
        else if (st != SBX_OK)
            remote_endpoint_fail(ep, err);
        else if (resp.status != 200)
            st = download_error(ep, &resp, abs, err);
    }
    if (st == SBX_OK) {
        common_dynbuf_add(&range.kept, "", 0);
        rc->content = common_file_content_new(&range.kept, range.more);
        if (rc->content == NULL)
            st = remote_endpoint_no_memory(ep, err);
    }
    common_http_response_clear(&resp);
    common_dynbuf_free(&range.kept);
    common_dynbuf_free(&url);
    free(abs);
    return st;
}

sbx_status remote_read_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                            uint64_t offset, uint64_t max_bytes, sbx_file_content **out,
                            sbx_error *err)
{
    *out = NULL;
    uint64_t reach = remote_max_file_bytes(&inst->options);
    if (max_bytes == 0)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "read_file: max_bytes must be > 0");
    if (offset >= reach)
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                     "read_file: the remote backend reads no further than byte "
                                     "%" PRIu64 " of a file (max_response_bytes)", reach);
    read_call rc = { path, offset, max_bytes, reach, NULL };
    sbx_status st = on_sandbox(inst, sandbox_id, "read_file", read_step, &rc, err);
    *out = rc.content;
    return st;
}

/* {"file": <abs>, "content": <C>, "encoding": E, "append": A}, one buffer
 * with the content written in place (no copy of the content but its
 * encoding).  With `text`, content that is clean text (well-formed UTF-8
 * without NUL) whose escapes are no longer than its base64 goes as a JSON
 * string (E "utf-8"): its bytes as they are, escapes aside, rather than a
 * third more of base64 to encode here and decode there; any other content
 * goes as base64, written over what the escape left. */
static char *write_body(const char *abs, const void *data, size_t length, int append, int text)
{
    struct json_object *file = json_object_new_string(abs);
    const char *quoted = file != NULL ? json_object_to_json_string_ext(
                                            file, JSON_C_TO_STRING_PLAIN |
                                                      JSON_C_TO_STRING_NOSLASHESCAPE)
                                      : NULL;
    static const char head[] = "{\"file\":", middle[] = ",\"content\":\"";
    static const char longest_tail[] = "\",\"encoding\":\"base64\",\"append\":false}";
    size_t quoted_len = quoted != NULL ? strlen(quoted) : 0;
    char *body = NULL;
    if (quoted != NULL && length <= (SIZE_MAX - 64 - quoted_len) / 2)
        body = malloc(sizeof head - 1 + quoted_len + sizeof middle - 1 +
                      COMMON_BASE64_ENCODED_LEN(length) + sizeof longest_tail);
    if (body != NULL) {
        char *at = body;
        memcpy(at, head, sizeof head - 1);
        at += sizeof head - 1;
        memcpy(at, quoted, quoted_len);
        at += quoted_len;
        memcpy(at, middle, sizeof middle - 1);
        at += sizeof middle - 1;
        /* text only when its escapes take no more than base64 would: a
         * body is never larger than before (the server's size bound) */
        size_t n = text ? common_json_escape(data, length, at, COMMON_BASE64_ENCODED_LEN(length))
                        : (size_t)-1;
        text = n != (size_t)-1;
        at += text ? n : common_base64_encode(data, length, at);
        snprintf(at, sizeof longest_tail, "\",\"encoding\":\"%s\",\"append\":%s}",
                 text ? "utf-8" : "base64", append ? "true" : "false");
    }
    json_object_put(file);
    return body;
}

/* Whether a write needs the check script before /v1/file/write.  The AIO
 * write carries neither a mode nor `exclusive` nor `mkdirs`, and an AIO
 * server may make a missing parent itself; sbx-provisiond's sandbox API
 * (a provisioner that names the sandbox's incarnation is sbx's, whose API
 * writes through its backend's write_file) refuses a missing parent and a
 * directory in the way itself, and makes a new file 0644: a plain write
 * there needs no exec in the sandbox first. */
static int write_needs_check(const remote_endpoint *ep, unsigned flags, uint32_t mode)
{
    int plain = (flags & (SBX_WRITE_EXCLUSIVE | SBX_WRITE_MKDIRS)) == 0 &&
                (mode == 0 || (mode & 07777) == 0644);
    return !plain || ep->incarnation == NULL;
}

/* A write's arguments. */
typedef struct write_call {
    const char *path;
    const void *data;
    size_t length;
    unsigned flags;
    uint32_t mode;
} write_call;

static sbx_status write_step(remote_endpoint *ep, void *ctx, sbx_error *err)
{
    const write_call *wc = ctx;
    char *abs = NULL, *parent = NULL, *script = NULL, *body = NULL;
    sbx_status st = remote_endpoint_path(ep, wc->path, 0, &abs, err);
    int check = st == SBX_OK && write_needs_check(ep, wc->flags, wc->mode);
    if (check) {
        parent = remote_parent_dir(abs);
        script = parent != NULL ? remote_write_check_script(abs, parent, wc->flags, wc->mode)
                                : NULL;
        if (script == NULL)
            st = remote_endpoint_no_memory(ep, err);
    }
    if (st == SBX_OK && check)
        st = run_check(ep, script, abs, err);
    /* Text goes as text only to sbx-provisiond (whose write decodes it
     * byte-exact, as its tests show): what another AIO server makes of a
     * text content (its encoding, its line ends) is not ours to promise. */
    if (st == SBX_OK && (body = write_body(abs, wc->data, wc->length,
                                           (wc->flags & SBX_WRITE_APPEND) != 0,
                                           ep->incarnation != NULL)) == NULL)
        st = remote_endpoint_no_memory(ep, err);
    if (st == SBX_OK) {
        remote_aio_answer answer;
        file_call fc = { "/v1/file/write", body, abs, SBX_ERR_IS_A_DIRECTORY };
        st = post_file(ep, &fc, &answer, err);
        json_object_put(answer.root);
    }
    free(abs);
    free(parent);
    free(script);
    free(body);
    return st;
}

sbx_status remote_write_file(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *path, const void *data, size_t length, unsigned flags,
                             uint32_t mode, sbx_error *err)
{
    if ((flags & ~(SBX_WRITE_APPEND | SBX_WRITE_EXCLUSIVE | SBX_WRITE_MKDIRS)) != 0)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "write_file: unknown flags 0x%x",
                                     flags);
    if (data == NULL && length > 0)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "write_file: data is NULL");
    if (length > remote_max_file_bytes(&inst->options))
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "write_file: %zu bytes are more than the remote backend "
                                     "writes in one call (%" PRIu64 ")", length,
                                     remote_max_file_bytes(&inst->options));
    write_call wc = { path, data, length, flags, mode };
    return on_sandbox(inst, sandbox_id, "write_file", write_step, &wc, err);
}

/* A listing's arguments and the listing once made. */
typedef struct list_call {
    const char *path;
    unsigned max_depth;
    size_t max_entries;
    sbx_dir_listing *listing;
} list_call;

static sbx_status list_step(remote_endpoint *ep, void *ctx, sbx_error *err)
{
    list_call *lc = ctx;
    char *abs = NULL, *body = NULL;
    sbx_status st = remote_endpoint_path(ep, lc->path, 0, &abs, err);
    if (st == SBX_OK && (body = list_body(abs, lc->max_depth)) == NULL)
        st = remote_endpoint_no_memory(ep, err);
    if (st == SBX_OK) {
        common_http_response resp;
        file_call fc = { "/v1/file/list", body, abs, SBX_ERR_NOT_A_DIRECTORY };
        st = post_call(ep, &fc, &resp, err);
        if (st == SBX_OK) {
            st = remote_list_answer_read(resp.body, resp.body_len, abs, lc->max_depth,
                                         lc->max_entries, &lc->listing, err);
            if (st != SBX_OK)
                remote_endpoint_fail(ep, err);
            common_http_response_clear(&resp);
        }
    }
    free(abs);
    free(body);
    return st;
}

sbx_status remote_list_dir(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                           unsigned max_depth, size_t max_entries, sbx_dir_listing **out,
                           sbx_error *err)
{
    *out = NULL;
    if (max_depth < 1 || max_entries == 0)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "list_dir: max_depth and max_entries must be > 0");
    list_call lc = { path, max_depth, max_entries, NULL };
    sbx_status st = on_sandbox(inst, sandbox_id, "list_dir", list_step, &lc, err);
    *out = lc.listing;
    return st;
}

sbx_status remote_remove_path(sbx_backend_instance *inst, const char *sandbox_id,
                              const char *path, unsigned flags, sbx_error *err)
{
    if ((flags & ~SBX_REMOVE_RECURSIVE) != 0)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "remove_path: unknown flags 0x%x",
                                     flags);
    remote_endpoint ep;
    sbx_status st = remote_endpoint_open(inst, sandbox_id, "remove_path", &ep, err);
    if (st != SBX_OK)
        return st;
    char *abs = NULL, *script = NULL;
    st = remote_endpoint_path(&ep, path, 0, &abs, err);
    if (st == SBX_OK &&
        (script = remote_remove_script(abs, (flags & SBX_REMOVE_RECURSIVE) != 0)) == NULL)
        st = remote_endpoint_no_memory(&ep, err);
    if (st == SBX_OK)
        st = run_check(&ep, script, abs, err);
    free(abs);
    free(script);
    remote_endpoint_close(&ep);
    return st;
}
