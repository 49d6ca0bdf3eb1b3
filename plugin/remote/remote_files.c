/* The sandbox operations over the AIO API (see remote_sandbox_ops.h). */
#include <config.h>

#include "plugin/remote/remote_sandbox_ops.h"

#include "common/base64.h"
#include "common/exec_request.h"
#include "common/op_results.h"
#include "common/sandbox_ids.h"
#include "common/utf8.h"
#include "plugin/remote/remote_aio_decode.h"
#include "plugin/remote/remote_aio_text.h"
#include "plugin/remote/remote_decode.h"
#include "plugin/remote/remote_endpoint.h"
#include "plugin/remote/remote_exec_answer.h"

#include <sbx/backend_support.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The server cuts a stream longer than max_output_length characters in the
 * middle (head and tail kept, a marker between).  Asking for twice the
 * byte cap and room for the marker keeps a head of at least `cap`
 * characters, so the first `cap` bytes received are always the command's
 * own; more than `cap` bytes received means the output was longer. */
#define MARKER_ROOM 256
#define SERVER_CHARS(cap) (2 * (cap) + MARKER_ROOM)

/* Room in an answer for what is not output, and the most bytes a character
 * of a JSON string may take (\uXXXX), for bounding an exec answer. */
#define ANSWER_OVERHEAD ((size_t)64 * 1024)
#define JSON_BYTES_PER_CHAR 6

/* Room for an exec body's members but the texts in them (command,
 * exec_dir, env): names, quotes, two numbers of at most 20 digits. */
#define EXEC_BODY_FRAME 160

/* The output a check script keeps. */
#define CHECK_CAP 2048

/* The largest output cap: both streams at their worst (every character
 * escaped) still fit max_response_bytes; at least 1. */
static size_t max_output(const remote_options *o)
{
    size_t room = o->max_response_bytes > ANSWER_OVERHEAD
                      ? o->max_response_bytes - ANSWER_OVERHEAD : 0;
    size_t chars = room / (2 * JSON_BYTES_PER_CHAR);
    size_t cap = chars > SERVER_CHARS(0) ? (chars - MARKER_ROOM) / 2 : 0;
    return cap > 0 ? cap : 1;
}

/* The largest byte a read reaches (skipped bytes stream too) and the
 * largest write: max_response_bytes less libcurl's largest write chunk, so
 * a read stops before the bound aborts the transfer. */
static uint64_t max_file(const remote_options *o)
{
    return o->max_response_bytes > 16384 ? o->max_response_bytes - 16384 : 1;
}

sbx_status remote_operations_info(sbx_backend_instance *inst, sbx_operations_info *out,
                                  sbx_error *err)
{
    (void)err;
    size_t cap = max_output(&inst->options);
    sbx_operations_info info = {
        .struct_size = out->struct_size,
        .operations = SBX_OP_EXEC | SBX_OP_EXEC_SHELL | SBX_OP_READ_FILE | SBX_OP_WRITE_FILE |
                      SBX_OP_LIST_DIR | SBX_OP_REMOVE_PATH,
        .default_timeout_ms = REMOTE_EXEC_DEFAULT_TIMEOUT_MS,
        .max_timeout_ms = REMOTE_EXEC_MAX_TIMEOUT_MS,
        .default_output_bytes = cap < REMOTE_EXEC_DEFAULT_OUTPUT ? cap : REMOTE_EXEC_DEFAULT_OUTPUT,
        .max_output_bytes = cap,
        .max_file_bytes = max_file(&inst->options),
    };
    size_t n = out->struct_size < sizeof info ? out->struct_size : sizeof info;
    memcpy(out, &info, n);
    return SBX_OK;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Append the decimal digits of `v`. */
static void add_decimal(common_dynbuf *b, uint64_t v)
{
    char digits[20];
    size_t n = sizeof digits;
    do
        digits[--n] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    common_dynbuf_add(b, digits + n, sizeof digits - n);
}

/* The env object of an exec body, built by json-c (a name given twice
 * keeps its last value), appended to *b; 0, or -1 when out of memory. */
static int add_env(common_dynbuf *b, const sbx_env_var *env, size_t env_count)
{
    struct json_object *vars = json_object_new_object();
    int bad = vars == NULL;
    for (size_t i = 0; !bad && i < env_count; i++)
        bad = json_object_object_add(vars, env[i].name,
                                     json_object_new_string(env[i].value)) != 0;
    const char *text = bad ? NULL : json_object_to_json_string_ext(
                                        vars, JSON_C_TO_STRING_PLAIN |
                                                  JSON_C_TO_STRING_NOSLASHESCAPE);
    if (text != NULL)
        common_dynbuf_add(b, text, strlen(text));
    json_object_put(vars);
    return text != NULL ? 0 : -1;
}

/* The /v1/bash/exec body, written directly (it is on every exec's path).
 * `env` may be NULL; exec_dir NULL is left out.  NULL when out of memory. */
static char *exec_body(const char *command, const sbx_env_var *env, size_t env_count,
                       const char *exec_dir, int64_t timeout_ms, size_t cap)
{
    common_dynbuf b;
    common_dynbuf_init(&b, 0);
    /* The members around the texts take under EXEC_BODY_FRAME bytes: a body
     * whose texts need no escapes is written without growing. */
    common_dynbuf_reserve(&b, EXEC_BODY_FRAME + strlen(command) +
                                  (exec_dir != NULL ? strlen(exec_dir) : 0));
    common_dynbuf_add(&b, "{\"command\":", 11);
    remote_json_quote(&b, command);
    if (exec_dir != NULL) {
        common_dynbuf_add(&b, ",\"exec_dir\":", 12);
        remote_json_quote(&b, exec_dir);
    }
    int bad = 0;
    if (env_count > 0) {
        common_dynbuf_add(&b, ",\"env\":", 7);
        bad = add_env(&b, env, env_count);
    }
    /* Seconds with the milliseconds exact: "1.500", never 1.49999. */
    char millis[5] = { '.', (char)('0' + timeout_ms % 1000 / 100),
                       (char)('0' + timeout_ms % 100 / 10), (char)('0' + timeout_ms % 10), 0 };
    common_dynbuf_add(&b, ",\"hard_timeout\":", 16);
    add_decimal(&b, (uint64_t)(timeout_ms / 1000));
    common_dynbuf_add(&b, millis, 4);
    common_dynbuf_add(&b, ",\"max_output_length\":", 21);
    add_decimal(&b, (uint64_t)SERVER_CHARS(cap));
    common_dynbuf_add(&b, ",\"async_mode\":false}", 20);
    if (bad || b.failed != COMMON_DYNBUF_OK) {
        common_dynbuf_free(&b);
        return NULL;
    }
    return common_dynbuf_take(&b, NULL);
}

/* POST /v1/bash/exec with `body`, bounded by the command's timeout and a
 * grace for the answer to travel; the result keeps `cap` bytes a stream. */
static sbx_status post_exec(remote_endpoint *ep, const char *body, int64_t timeout_ms,
                            size_t cap, sbx_exec_result **out, sbx_error *err)
{
    common_http_response resp;
    common_http_call call = {.method = "POST", .path = "/v1/bash/exec", .json_body = body,
                             .timeout_ms = (long)(timeout_ms + 30000)};
    sbx_status st = common_http_perform(ep->http, &call, &resp, err);
    if (st != SBX_OK)
        return remote_endpoint_fail(ep, err);
    if (resp.status == 404) {
        st = sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                   "%s: the sandbox has no /v1/bash/exec (HTTP 404: an AIO "
                                   "sandbox image older than 1.9.3)", remote_endpoint_what(ep));
        err->http_status = 404;
    } else if (resp.status != 200) {
        st = remote_endpoint_answer_error(ep, &resp, err);
    } else {
        st = remote_exec_answer_read(resp.body, resp.body_len, cap, out, err);
        if (st != SBX_OK)
            remote_endpoint_fail(ep, err);
    }
    common_http_response_clear(&resp);
    return st;
}

/* Text the wire carries: UTF-8 without NUL (`what` names it, never its
 * value). */
static sbx_status check_text(const char *text, const char *sandbox_id, const char *what,
                             size_t index, sbx_error *err)
{
    if (common_text_is_clean(text, strlen(text)))
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                 "exec in sandbox '%s': %s #%zu is not UTF-8 text, which the "
                                 "AIO API cannot carry", sandbox_id, what, index);
}

/* What the wire cannot carry of a checked request: stdin, and text that is
 * not UTF-8. */
static sbx_status check_wire(const sbx_exec_request *rq, const char *sandbox_id, sbx_error *err)
{
    if (rq->stdin_length > 0)
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                     "exec in sandbox '%s': the remote backend cannot pass stdin "
                                     "(the AIO /v1/bash/exec has no stdin)", sandbox_id);
    sbx_status st = SBX_OK;
    for (size_t i = 0; st == SBX_OK && rq->argv != NULL && rq->argv[i] != NULL; i++)
        st = check_text(rq->argv[i], sandbox_id, "argument", i, err);
    if (st == SBX_OK && rq->shell_command != NULL)
        st = check_text(rq->shell_command, sandbox_id, "shell command", 0, err);
    for (size_t i = 0; st == SBX_OK && i < rq->env_count; i++)
        st = check_text(rq->env[i].value, sandbox_id, "environment value", i, err);
    return st;
}

sbx_status remote_exec(sbx_backend_instance *inst, const char *sandbox_id,
                       const sbx_exec_request *request, sbx_exec_result **out, sbx_error *err)
{
    *out = NULL;
    sbx_exec_request rq;
    common_exec_request_read(request, &rq);
    size_t cap_limit = max_output(&inst->options);
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st == SBX_OK)
        st = common_exec_request_check(&rq, sandbox_id, REMOTE_EXEC_MAX_TIMEOUT_MS, cap_limit,
                                       err);
    if (st == SBX_OK)
        st = check_wire(&rq, sandbox_id, err);
    if (st != SBX_OK)
        return st;
    int64_t timeout_ms = rq.timeout_ms > 0 ? rq.timeout_ms : REMOTE_EXEC_DEFAULT_TIMEOUT_MS;
    size_t cap = rq.max_output_bytes > 0 ? rq.max_output_bytes
                 : cap_limit < REMOTE_EXEC_DEFAULT_OUTPUT ? cap_limit
                                                          : REMOTE_EXEC_DEFAULT_OUTPUT;
    remote_endpoint ep;
    st = remote_endpoint_open(inst, sandbox_id, "exec", &ep, err);
    if (st != SBX_OK)
        return st;
    char *dir = NULL, *command = NULL, *body = NULL;
    st = remote_endpoint_path(&ep, rq.working_dir, 1, &dir, err);
    if (st == SBX_OK) {
        command = remote_command_text(rq.argv, rq.shell_command);
        body = command != NULL ? exec_body(command, rq.env, rq.env_count, dir, timeout_ms, cap)
                               : NULL;
        if (body == NULL)
            st = remote_endpoint_no_memory(&ep, err);
    }
    if (st == SBX_OK) {
        int64_t start = now_ms();
        st = post_exec(&ep, body, timeout_ms, cap, out, err);
        if (st == SBX_OK)
            (*out)->duration_ms = now_ms() - start;
    }
    free(dir);
    free(command);
    free(body);
    remote_endpoint_close(&ep);
    return st;
}

/* Run a check script (POSIX sh, run by the server's bash) whose exit codes
 * 12..16 are the sbx kinds of what it found about `path`. */
static sbx_status run_check(remote_endpoint *ep, const char *script, const char *path,
                            sbx_error *err)
{
    char *body = exec_body(script, NULL, 0, NULL, REMOTE_FILE_TIMEOUT_MS, CHECK_CAP);
    if (body == NULL)
        return remote_endpoint_no_memory(ep, err);
    sbx_exec_result *r = NULL;
    sbx_status st = post_exec(ep, body, REMOTE_FILE_TIMEOUT_MS, CHECK_CAP, &r, err);
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

/* Bytes [skip, skip + want) of a download, and whether any follow. */
typedef struct range_sink {
    uint64_t skip, want;
    common_dynbuf kept;
    int more;       /* a byte past the range arrived: the transfer was stopped */
} range_sink;

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

static char *list_body(const char *abs, unsigned max_depth);
static sbx_status post_file(remote_endpoint *ep, const char *route, const char *body,
                            const char *path, sbx_status invalid_target_kind,
                            struct json_object **root, struct json_object **data,
                            sbx_error *err);

/* Whether `abs` lists as a directory (the download route's 400 does not
 * say why it refused). */
static int lists_as_directory(remote_endpoint *ep, const char *abs)
{
    char *body = list_body(abs, 1);
    struct json_object *root = NULL, *data = NULL;
    sbx_error ignored;
    int is_dir = body != NULL && post_file(ep, "/v1/file/list", body, abs,
                                           SBX_ERR_NOT_A_DIRECTORY, &root, &data,
                                           &ignored) == SBX_OK;
    json_object_put(root);
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
    struct json_object *root = NULL, *data = NULL;
    sbx_status kind = remote_aio_envelope(resp->body, resp->body_len, abs,
                                          SBX_ERR_IS_A_DIRECTORY, &root, &data, err);
    json_object_put(root);
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

sbx_status remote_read_file(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                            uint64_t offset, uint64_t max_bytes, sbx_file_content **out,
                            sbx_error *err)
{
    *out = NULL;
    uint64_t reach = max_file(&inst->options);
    if (max_bytes == 0)
        return sbx_backend_error_set(err, SBX_ERR_USAGE, "read_file: max_bytes must be > 0");
    if (offset >= reach)
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                     "read_file: the remote backend reads no further than byte "
                                     "%" PRIu64 " of a file (max_response_bytes)", reach);
    remote_endpoint ep;
    sbx_status st = remote_endpoint_open(inst, sandbox_id, "read_file", &ep, err);
    if (st != SBX_OK)
        return st;
    char *abs = NULL;
    common_dynbuf url;
    common_dynbuf_init(&url, 0);
    st = remote_endpoint_path(&ep, path, 0, &abs, err);
    if (st == SBX_OK) {
        common_dynbuf_add(&url, "/v1/file/download?path=", 23);
        if (remote_query_escape(&url, abs) != COMMON_DYNBUF_OK)
            st = remote_endpoint_no_memory(&ep, err);
    }
    /* Bytes past the reach would abort the transfer as oversize: a read
     * that asks for more gets what there is up to it, truncated set. */
    range_sink range = { .skip = offset,
                         .want = max_bytes < reach - offset ? max_bytes : reach - offset };
    common_dynbuf_init(&range.kept, 0);
    common_http_response resp = { 0 };
    if (st == SBX_OK) {
        common_http_body_sink sink = { .status = 200, .write = range_write, .ctx = &range };
        common_http_call call = {.method = "GET", .path = url.data,
                                 .timeout_ms = REMOTE_FILE_TIMEOUT_MS, .sink = &sink};
        st = common_http_perform(ep.http, &call, &resp, err);
        if (st != SBX_OK && range.more && range.kept.failed == COMMON_DYNBUF_OK)
            st = SBX_OK; /* stopped on purpose, with every wanted byte */
        else if (st != SBX_OK)
            remote_endpoint_fail(&ep, err);
        else if (resp.status != 200)
            st = download_error(&ep, &resp, abs, err);
    }
    if (st == SBX_OK) {
        common_dynbuf_add(&range.kept, "", 0);
        *out = common_file_content_new(&range.kept, range.more);
        if (*out == NULL)
            st = remote_endpoint_no_memory(&ep, err);
    }
    common_http_response_clear(&resp);
    common_dynbuf_free(&range.kept);
    common_dynbuf_free(&url);
    free(abs);
    remote_endpoint_close(&ep);
    return st;
}

/* {"file": <abs>, "content": <base64>, "encoding": "base64", "append": A},
 * built without a second copy of the content. */
static char *write_body(const char *abs, const void *data, size_t length, int append)
{
    struct json_object *file = json_object_new_string(abs);
    char *b64 = common_base64_encode_alloc(data, length);
    common_dynbuf b;
    common_dynbuf_init(&b, 0);
    if (file != NULL && b64 != NULL) {
        const char *quoted = json_object_to_json_string_ext(
            file, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        common_dynbuf_add(&b, "{\"file\":", 8);
        common_dynbuf_add(&b, quoted, strlen(quoted));
        common_dynbuf_add(&b, ",\"content\":\"", 12);
        common_dynbuf_add(&b, b64, strlen(b64));
        const char *end = append ? "\",\"encoding\":\"base64\",\"append\":true}"
                                 : "\",\"encoding\":\"base64\",\"append\":false}";
        common_dynbuf_add(&b, end, strlen(end));
    }
    json_object_put(file);
    free(b64);
    if (file == NULL || b64 == NULL || b.failed != COMMON_DYNBUF_OK) {
        common_dynbuf_free(&b);
        return NULL;
    }
    return common_dynbuf_take(&b, NULL);
}

/* POST a JSON body to a file route and read its envelope: *root and *data
 * as remote_aio_envelope (the caller puts *root). */
static sbx_status post_file(remote_endpoint *ep, const char *route, const char *body,
                            const char *path, sbx_status invalid_target_kind,
                            struct json_object **root, struct json_object **data,
                            sbx_error *err)
{
    common_http_response resp;
    common_http_call call = {.method = "POST", .path = route, .json_body = body,
                             .timeout_ms = REMOTE_FILE_TIMEOUT_MS};
    sbx_status st = common_http_perform(ep->http, &call, &resp, err);
    if (st != SBX_OK)
        return remote_endpoint_fail(ep, err);
    if (resp.status != 200) {
        st = remote_endpoint_answer_error(ep, &resp, err);
    } else {
        st = remote_aio_envelope(resp.body, resp.body_len, path, invalid_target_kind, root,
                                 data, err);
        if (st != SBX_OK)
            remote_endpoint_fail(ep, err);
    }
    common_http_response_clear(&resp);
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
    if (length > max_file(&inst->options))
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "write_file: %zu bytes are more than the remote backend "
                                     "writes in one call (%" PRIu64 ")", length,
                                     max_file(&inst->options));
    remote_endpoint ep;
    sbx_status st = remote_endpoint_open(inst, sandbox_id, "write_file", &ep, err);
    if (st != SBX_OK)
        return st;
    char *abs = NULL, *parent = NULL, *script = NULL, *body = NULL;
    st = remote_endpoint_path(&ep, path, 0, &abs, err);
    if (st == SBX_OK) {
        parent = remote_parent_dir(abs);
        script = parent != NULL ? remote_write_check_script(abs, parent, flags, mode) : NULL;
        if (script == NULL)
            st = remote_endpoint_no_memory(&ep, err);
    }
    if (st == SBX_OK)
        st = run_check(&ep, script, abs, err);
    if (st == SBX_OK && (body = write_body(abs, data, length, (flags & SBX_WRITE_APPEND) != 0))
                            == NULL)
        st = remote_endpoint_no_memory(&ep, err);
    if (st == SBX_OK) {
        struct json_object *root = NULL, *answer = NULL;
        st = post_file(&ep, "/v1/file/write", body, abs, SBX_ERR_IS_A_DIRECTORY, &root, &answer,
                       err);
        json_object_put(root);
    }
    free(abs);
    free(parent);
    free(script);
    free(body);
    remote_endpoint_close(&ep);
    return st;
}

static char *list_body(const char *abs, unsigned max_depth)
{
    struct json_object *o = json_object_new_object();
    int bad = o == NULL;
    bad = bad || json_object_object_add(o, "path", json_object_new_string(abs)) != 0;
    bad = bad || json_object_object_add(o, "recursive", json_object_new_boolean(max_depth > 1));
    bad = bad || json_object_object_add(o, "max_depth", json_object_new_int64(max_depth)) != 0;
    bad = bad || json_object_object_add(o, "show_hidden", json_object_new_boolean(1)) != 0;
    bad = bad || json_object_object_add(o, "include_size", json_object_new_boolean(1)) != 0;
    bad = bad ||
          json_object_object_add(o, "include_permissions", json_object_new_boolean(1)) != 0;
    char *body = NULL;
    if (!bad) {
        const char *text = json_object_to_json_string_ext(
            o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        body = text != NULL ? strdup(text) : NULL;
    }
    json_object_put(o);
    return body;
}

sbx_status remote_list_dir(sbx_backend_instance *inst, const char *sandbox_id, const char *path,
                           unsigned max_depth, size_t max_entries, sbx_dir_listing **out,
                           sbx_error *err)
{
    *out = NULL;
    if (max_depth < 1 || max_entries == 0)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "list_dir: max_depth and max_entries must be > 0");
    remote_endpoint ep;
    sbx_status st = remote_endpoint_open(inst, sandbox_id, "list_dir", &ep, err);
    if (st != SBX_OK)
        return st;
    char *abs = NULL, *body = NULL;
    st = remote_endpoint_path(&ep, path, 0, &abs, err);
    if (st == SBX_OK && (body = list_body(abs, max_depth)) == NULL)
        st = remote_endpoint_no_memory(&ep, err);
    if (st == SBX_OK) {
        struct json_object *root = NULL, *data = NULL;
        st = post_file(&ep, "/v1/file/list", body, abs, SBX_ERR_NOT_A_DIRECTORY, &root, &data,
                       err);
        if (st == SBX_OK &&
            (st = remote_aio_decode_listing(data, abs, max_depth, max_entries, out, err)) !=
                SBX_OK)
            remote_endpoint_fail(&ep, err);
        json_object_put(root);
    }
    free(abs);
    free(body);
    remote_endpoint_close(&ep);
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
