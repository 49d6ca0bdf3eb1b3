/* The streaming list decoder (see remote_list_stream.h).
 *
 * The lexer (common/json_stream.h) reads the JSON as json-c does; on its
 * events, a few flags place each value: the root, the root's "sandboxes",
 * an entry of that array, a member of an entry. */
#include <config.h>

#include "plugin/remote/remote_list_stream.h"

#include "common/json_fields.h"
#include "common/json_stream.h"
#include "common/sandbox_records.h"
#include "common/skip_log.h"
#include "plugin/remote/remote_field_reader.h"
#include "plugin/remote/remote_sandbox_rules.h"

#include <sbx/backend_support.h>

#include <stdlib.h>
#include <string.h>

typedef enum root_kind { ROOT_NONE, ROOT_OBJECT, ROOT_NULL, ROOT_OTHER } root_kind;
typedef enum sandboxes_kind { SANDBOXES_ABSENT, SANDBOXES_ARRAY, SANDBOXES_OTHER } sandboxes_kind;

struct remote_list_stream {
    common_json_stream lex;
    int out_of_memory;

    /* where the values are */
    root_kind root;
    int pending_sandboxes;     /* the root's next member value is its "sandboxes" */
    sandboxes_kind sandboxes;  /* the last "sandboxes" seen */
    int in_entries;            /* the array at level 1 is that "sandboxes" */
    int in_entry;              /* the object at level 2 is one of its entries */
    size_t entry_index;        /* entries of the current "sandboxes" so far */
    size_t entry;              /* the index of the open entry */
    remote_field_reader fields; /* the open entry's members */

    common_sandbox_list records;
    common_skip_log skipped; /* per skipped entry: its problem byte, no text */
};

/* ------------------------------------------------------------ the records */

static void drop_entries(remote_list_stream *s)
{
    common_sandbox_records_free(s->records.items, s->records.count);
    memset(&s->records, 0, sizeof s->records);
    common_skip_log_reset(&s->skipped);
    s->entry_index = 0;
}

static void note_skipped(remote_list_stream *s, size_t index, remote_problem problem)
{
    if (common_skip_log_add(&s->skipped, index, problem, NULL) != 0)
        s->out_of_memory = 1;
}

static void begin_entry(remote_list_stream *s)
{
    s->in_entry = 1;
    s->entry = s->entry_index++;
    remote_field_reader_start(&s->fields);
}

/* The open entry closed: a record, or a note of why it is skipped. */
static void end_entry(remote_list_stream *s)
{
    s->in_entry = 0;
    remote_fields f;
    remote_field_reader_fields(&s->fields, &f);
    remote_problem problem = remote_check_fields(&f);
    if (problem != 0) {
        note_skipped(s, s->entry, problem);
        return;
    }
    sbx_error err;
    sbx_sandbox *record = common_sandbox_list_append(&s->records, &err);
    if (record == NULL ||
        common_sandbox_record_fill(record, &(common_sandbox_fields){
                                       f.text[REMOTE_FIELD_ID], f.text[REMOTE_FIELD_URL],
                                       f.text[REMOTE_FIELD_USER], f.text[REMOTE_FIELD_THREAD],
                                       f.text[REMOTE_FIELD_STATUS], f.version }, &err) != SBX_OK) {
        if (record != NULL)
            common_sandbox_list_drop_last(&s->records);
        s->out_of_memory = 1;
    }
}

/* ------------------------------------------------------------ where values are */

/* A value begins (containers: before they open). */
static void value_begins(remote_list_stream *s)
{
    const common_json_stream *lex = &s->lex;
    int container = lex->kind == COMMON_JSON_KIND_OBJECT || lex->kind == COMMON_JSON_KIND_ARRAY;
    if (lex->depth == 3 && s->in_entry) {
        remote_field_reader_value_begins(&s->fields, &s->lex);
        return;
    }
    remote_field_reader_other_begins(&s->fields);
    switch (lex->depth) {
    case 0:
        if (container)
            s->root = lex->kind == COMMON_JSON_KIND_OBJECT ? ROOT_OBJECT : ROOT_OTHER;
        break;
    case 1:
        if (!s->pending_sandboxes)
            break;
        s->pending_sandboxes = 0;
        drop_entries(s);
        s->sandboxes = lex->kind == COMMON_JSON_KIND_ARRAY ? SANDBOXES_ARRAY : SANDBOXES_OTHER;
        s->in_entries = s->sandboxes == SANDBOXES_ARRAY;
        break;
    case 2:
        if (!s->in_entries)
            break;
        if (lex->kind == COMMON_JSON_KIND_OBJECT)
            begin_entry(s);
        else
            note_skipped(s, s->entry_index++, REMOTE_NOT_OBJECT);
        break;
    default:
        break;
    }
}

/* A scalar is complete (a string's bytes are in its field's buffer). */
static void value_ends(remote_list_stream *s)
{
    common_json_stream *lex = &s->lex;
    if (lex->depth == 0) {
        s->root = lex->kind == COMMON_JSON_KIND_NULL ? ROOT_NULL : ROOT_OTHER;
        return;
    }
    remote_field_reader_value_ends(&s->fields, lex);
}

/* A key is complete: is it one looked for? */
static void key_ends(remote_list_stream *s)
{
    const common_json_stream *lex = &s->lex;
    if (lex->depth == 1 && s->root == ROOT_OBJECT) {
        s->pending_sandboxes = lex->key_len == 9 && memcmp(lex->key, "sandboxes", 9) == 0;
    } else if (lex->depth == 3 && s->in_entry) {
        remote_field_reader_key(&s->fields, lex);
    }
}

/* A container closed. */
static void container_ends(remote_list_stream *s)
{
    if (s->lex.depth == 2 && s->in_entry)
        end_entry(s);
    else if (s->lex.depth == 1)
        s->in_entries = 0;
}

/* ------------------------------------------------------------ interface */

remote_list_stream *remote_list_stream_new(void)
{
    remote_list_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    common_json_stream_init(&s->lex);
    remote_field_reader_init(&s->fields);
    common_skip_log_init(&s->skipped, 0);
    return s;
}

int remote_list_stream_feed(remote_list_stream *s, const char *data, size_t len)
{
    common_json_stream_feed(&s->lex, data, len);
    for (;;) {
        common_json_event event = common_json_stream_next(&s->lex);
        s->out_of_memory |= s->lex.out_of_memory;
        if (event == COMMON_JSON_EVENT_NONE || s->out_of_memory)
            return s->out_of_memory ? -1 : 0;
        switch (event) {
        case COMMON_JSON_EVENT_BEGIN: value_begins(s); break;
        case COMMON_JSON_EVENT_KEY: key_ends(s); break;
        case COMMON_JSON_EVENT_SCALAR: value_ends(s); break;
        case COMMON_JSON_EVENT_CLOSE: container_ends(s); break;
        case COMMON_JSON_EVENT_NONE: break;
        }
    }
}

/* One skipped entry's warning (a common_skip_fn; `ctx` is the
 * remote_warner). */
static void warn_skipped(void *ctx, size_t index, unsigned char problem, const char *why)
{
    (void)why; /* this log keeps only the problem */
    sbx_error message;
    remote_problem_error(problem, &message);
    remote_warn_skipped(ctx, index, message.message);
}

sbx_status remote_list_stream_finish(remote_list_stream *s, const remote_warner *warn,
                                     sbx_sandbox **out, size_t *count, sbx_error *err)
{
    *out = NULL;
    *count = 0;
    sbx_status st = SBX_OK;
    common_json_outcome outcome = common_json_stream_end(&s->lex);
    if (s->out_of_memory)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    else if (outcome != COMMON_JSON_COMPLETE || s->root == ROOT_NULL)
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "list answer is %s",
                                   outcome == COMMON_JSON_DEEP ? COMMON_JSON_TOO_DEEP
                                                               : "not JSON");
    else if (s->root != ROOT_OBJECT)
        remote_warn_not_object(warn);
    else if (s->sandboxes != SANDBOXES_ARRAY)
        remote_warn_not_array(warn);
    else {
        remote_warner to = warn != NULL ? *warn : (remote_warner){ NULL, NULL };
        common_skip_log_replay(&s->skipped, warn_skipped, &to);
    }
    int keep = st == SBX_OK && s->root == ROOT_OBJECT && s->sandboxes == SANDBOXES_ARRAY;
    if (!keep)
        drop_entries(s);
    common_sandbox_list_finish(&s->records, SBX_OK, out, count);
    return st;
}

void remote_list_stream_free(remote_list_stream *s)
{
    if (s == NULL)
        return;
    drop_entries(s);
    remote_field_reader_free(&s->fields);
    common_skip_log_free(&s->skipped);
    free(s);
}
