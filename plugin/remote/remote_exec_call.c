/* The exec call to a sandbox (see remote_exec_call.h). */
#include <config.h>

#include "plugin/remote/remote_exec_call.h"

#include "common/dynbuf.h"
#include "plugin/remote/remote_aio_text.h"
#include "plugin/remote/remote_exec_answer.h"

#include <sbx/backend_support.h>

#include <json-c/json.h>
#include <string.h>

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

size_t remote_exec_output_limit(const remote_options *o)
{
    size_t room = o->max_response_bytes > ANSWER_OVERHEAD
                      ? o->max_response_bytes - ANSWER_OVERHEAD : 0;
    size_t chars = room / (2 * JSON_BYTES_PER_CHAR);
    size_t cap = chars > SERVER_CHARS(0) ? (chars - MARKER_ROOM) / 2 : 0;
    return cap > 0 ? cap : 1;
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

/* Written directly rather than by json-c: it is on every exec's path. */
char *remote_exec_body(const char *command, const sbx_env_var *env, size_t env_count,
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

sbx_status remote_exec_post(remote_endpoint *ep, const char *body, int64_t timeout_ms,
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
