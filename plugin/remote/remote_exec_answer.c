/* An exec answer read in one pass (see remote_exec_answer.h). */
#include <config.h>

#include "plugin/remote/remote_exec_answer.h"

#include "common/dynbuf.h"
#include "common/json_fields.h"
#include "common/json_stream.h"
#include "common/utf8.h"
#include "plugin/remote/remote_aio_decode.h"

#include <string.h>

/* The members read: the envelope's two, then data's four. */
enum { M_SUCCESS, M_DATA, M_STDOUT, M_STDERR, M_STATUS, M_EXIT_CODE, M_COUNT, M_NONE = M_COUNT };

#define MEMBER(name) { name, sizeof name - 1 }
static const struct member_name {
    const char *text;
    size_t len;
} member_names[M_COUNT] = {
    MEMBER("success"), MEMBER("data"), MEMBER("stdout"),
    MEMBER("stderr"), MEMBER("status"), MEMBER("exit_code")
};
#undef MEMBER

typedef struct exec_scan {
    common_json_stream lex;
    int root_object;                /* the text is an object */
    int pending;                    /* the member whose value comes next, or M_NONE */
    int in_data;                    /* the object open at depth 1 is the last "data" */
    common_json_field state[M_COUNT]; /* as json-c would classify the last one of each */
    int success, code;              /* an OK success's value; an OK exit_code's */
    common_dynbuf text[3];          /* stdout, stderr, status */
} exec_scan;

/* Which member a key at `depth` names: the envelope's at 1, data's at 2. */
static int member_of(const exec_scan *s)
{
    int first = s->lex.depth == 1 ? M_SUCCESS : M_STDOUT;
    int last = s->lex.depth == 1 ? M_DATA : M_EXIT_CODE;
    if (s->lex.depth == 2 && !s->in_data)
        return M_NONE;
    for (int i = first; s->lex.depth <= 2 && i <= last; i++)
        if (s->lex.key_len == member_names[i].len &&
            memcmp(s->lex.key, member_names[i].text, member_names[i].len) == 0)
            return i;
    return M_NONE;
}

static void value_begins(exec_scan *s)
{
    const common_json_stream *lex = &s->lex;
    int m = s->pending;
    s->pending = M_NONE;
    if (lex->depth == 0) {
        s->root_object = lex->kind == COMMON_JSON_KIND_OBJECT;
        return;
    }
    if (m == M_NONE)
        return;
    if (m == M_DATA) {
        /* A later "data" replaces the one before, as in json-c. */
        for (int i = M_STDOUT; i < M_COUNT; i++)
            s->state[i] = COMMON_JSON_ABSENT;
        s->in_data = lex->kind == COMMON_JSON_KIND_OBJECT;
        s->state[M_DATA] = s->in_data ? COMMON_JSON_OK : COMMON_JSON_WRONG_TYPE;
        return;
    }
    if (lex->kind == COMMON_JSON_KIND_OBJECT || lex->kind == COMMON_JSON_KIND_ARRAY) {
        s->state[m] = COMMON_JSON_WRONG_TYPE;
        return;
    }
    s->pending = m; /* read at the scalar's end */
    if (lex->kind == COMMON_JSON_KIND_STRING && m >= M_STDOUT && m <= M_STATUS) {
        common_dynbuf_reset(&s->text[m - M_STDOUT]);
        s->lex.target = &s->text[m - M_STDOUT];
    }
}

static void value_ends(exec_scan *s)
{
    const common_json_stream *lex = &s->lex;
    int m = s->pending;
    s->pending = M_NONE;
    if (m == M_NONE || lex->depth == 0)
        return;
    common_json_field state = lex->kind == COMMON_JSON_KIND_NULL ? COMMON_JSON_NULL
                                                                 : COMMON_JSON_WRONG_TYPE;
    if (m == M_SUCCESS && lex->kind == COMMON_JSON_KIND_BOOL) {
        state = COMMON_JSON_OK;
        s->success = lex->at[-2] == 'u'; /* tr(u)e, fal(s)e: `at` is past the word */
    } else if (m == M_EXIT_CODE && lex->kind == COMMON_JSON_KIND_INT) {
        state = common_json_stream_int(lex, &s->code) ? COMMON_JSON_OK : COMMON_JSON_WRONG_TYPE;
    } else if (m >= M_STDOUT && m <= M_STATUS && lex->kind == COMMON_JSON_KIND_STRING) {
        const common_dynbuf *b = &s->text[m - M_STDOUT];
        state = m != M_STATUS || common_text_is_clean(b->data, b->len) ? COMMON_JSON_OK
                                                                       : COMMON_JSON_BAD_TEXT;
    }
    s->state[m] = state;
}

/* Scan the text; 1 when it is the plain successful shape (an object,
 * success true or absent, data an object whose streams are strings, null
 * or absent), 0 when json-c must read it. */
static int scan(exec_scan *s, const char *body, size_t len)
{
    common_json_stream_init(&s->lex);
    s->pending = M_NONE;
    common_json_stream_feed(&s->lex, body, len);
    common_json_event event;
    while ((event = common_json_stream_next(&s->lex)) != COMMON_JSON_EVENT_NONE) {
        switch (event) {
        case COMMON_JSON_EVENT_BEGIN: value_begins(s); break;
        case COMMON_JSON_EVENT_KEY: s->pending = member_of(s); break;
        case COMMON_JSON_EVENT_SCALAR: value_ends(s); break;
        case COMMON_JSON_EVENT_CLOSE:
            if (s->lex.depth == 1)
                s->in_data = 0;
            break;
        case COMMON_JSON_EVENT_NONE: break;
        }
    }
    if (common_json_stream_end(&s->lex) != COMMON_JSON_COMPLETE || s->lex.out_of_memory ||
        !s->root_object || s->state[M_DATA] != COMMON_JSON_OK)
        return 0;
    if (s->state[M_SUCCESS] != COMMON_JSON_ABSENT &&
        (s->state[M_SUCCESS] != COMMON_JSON_OK || !s->success))
        return 0;
    for (int i = M_STDOUT; i <= M_STDERR; i++)
        if (s->state[i] == COMMON_JSON_WRONG_TYPE)
            return 0;
    return 1;
}

/* The json-c reading, for every answer of another shape. */
static sbx_status read_with_json_c(const char *body, size_t len, size_t cap,
                                   sbx_exec_result **out, sbx_error *err)
{
    remote_aio_answer answer;
    sbx_status st = remote_aio_envelope(body, len, "exec", SBX_ERR_PROVISIONER, &answer, err);
    if (st == SBX_OK)
        st = remote_aio_decode_exec(answer.data, cap, out, err);
    json_object_put(answer.root);
    return st;
}

sbx_status remote_exec_answer_read(const char *body, size_t len, size_t cap,
                                   sbx_exec_result **out, sbx_error *err)
{
    *out = NULL;
    exec_scan s;
    memset(&s, 0, sizeof s);
    sbx_status st;
    if (!scan(&s, body, len)) {
        st = read_with_json_c(body, len, cap, out, err);
    } else {
        remote_aio_exec_fields f = {
            .stdout_text = s.state[M_STDOUT] == COMMON_JSON_OK ? s.text[0].data : NULL,
            .stdout_len = s.state[M_STDOUT] == COMMON_JSON_OK ? s.text[0].len : 0,
            .stderr_text = s.state[M_STDERR] == COMMON_JSON_OK ? s.text[1].data : NULL,
            .stderr_len = s.state[M_STDERR] == COMMON_JSON_OK ? s.text[1].len : 0,
            .status = s.state[M_STATUS] == COMMON_JSON_OK ? s.text[2].data : NULL,
            .has_code = s.state[M_EXIT_CODE] == COMMON_JSON_OK,
            .code = s.code,
        };
        st = remote_aio_exec_result(&f, cap, out, err);
    }
    for (int i = 0; i < 3; i++)
        common_dynbuf_free(&s.text[i]);
    return st;
}
