/* A sandbox object's members from lexer events (see remote_field_reader.h). */
#include <config.h>

#include "plugin/remote/remote_field_reader.h"

#include "common/utf8.h"

#include <string.h>

void remote_field_reader_init(remote_field_reader *r)
{
    memset(r, 0, sizeof *r);
    r->pending_field = -1;
    r->value_field = -1;
}

void remote_field_reader_start(remote_field_reader *r)
{
    common_dynbuf_reset(&r->text);
    for (int i = 0; i < REMOTE_FIELD_COUNT; i++)
        r->state[i] = COMMON_JSON_ABSENT;
    r->pending_field = -1;
    r->value_field = -1;
}

void remote_field_reader_key(remote_field_reader *r, const common_json_stream *lex)
{
    int i = remote_field_index(lex->key, lex->key_len);
    r->pending_field = i < REMOTE_FIELD_COUNT ? i : -1;
}

void remote_field_reader_other_begins(remote_field_reader *r)
{
    r->value_field = -1;
}

void remote_field_reader_value_begins(remote_field_reader *r, common_json_stream *lex)
{
    r->value_field = -1;
    if (r->pending_field < 0)
        return;
    if (lex->kind == COMMON_JSON_KIND_OBJECT || lex->kind == COMMON_JSON_KIND_ARRAY)
        r->state[r->pending_field] = COMMON_JSON_WRONG_TYPE;
    else
        r->value_field = r->pending_field;
    r->pending_field = -1;
    /* A string member that is a field: its bytes go after the strings read
     * before (a repeated key's earlier value stays there, unused). */
    if (lex->kind == COMMON_JSON_KIND_STRING && r->value_field >= 0 &&
        r->value_field < REMOTE_FIELD_VERSION) {
        r->offset[r->value_field] = r->text.len;
        lex->target = &r->text;
    }
}

void remote_field_reader_value_ends(remote_field_reader *r, common_json_stream *lex)
{
    int i = r->value_field;
    if (i < 0)
        return;
    r->value_field = -1;
    common_json_field state = COMMON_JSON_WRONG_TYPE;
    if (lex->kind == COMMON_JSON_KIND_NULL) {
        state = COMMON_JSON_NULL;
    } else if (i == REMOTE_FIELD_VERSION) {
        if (lex->kind == COMMON_JSON_KIND_INT && common_json_stream_int(lex, &r->version))
            state = COMMON_JSON_OK;
    } else if (lex->kind == COMMON_JSON_KIND_STRING) {
        size_t start = r->offset[i], len = r->text.len - start;
        /* The lexer's NUL after the bytes becomes part of the buffer, so that
         * the next string goes after it. */
        if (common_dynbuf_add(&r->text, "", 1) != COMMON_DYNBUF_OK) {
            lex->out_of_memory = 1;
            return;
        }
        state = common_text_is_clean(r->text.data + start, len) ? COMMON_JSON_OK
                                                                : COMMON_JSON_BAD_TEXT;
    }
    r->state[i] = state;
}

void remote_field_reader_fields(const remote_field_reader *r, remote_fields *f)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < REMOTE_FIELD_COUNT; i++)
        f->state[i] = r->state[i];
    for (int i = 0; i < REMOTE_FIELD_VERSION; i++)
        if (f->state[i] == COMMON_JSON_OK)
            f->text[i] = r->text.data + r->offset[i];
    f->version = f->state[REMOTE_FIELD_VERSION] == COMMON_JSON_OK ? r->version
                                                                  : SBX_CONTRACT_NONE;
}

void remote_field_reader_free(remote_field_reader *r)
{
    common_dynbuf_free(&r->text);
}
