/* The streaming container list decoder (see docker_list_stream.h).
 *
 * Depths are the lexer's: the answer's array is the value at depth 0, its
 * entries at 1, an entry's members at 2, the items of Labels, Names and
 * Ports at 3, a Ports item's members at 4.  Each member the rules read is
 * reset when its value begins, so the last of a repeated key wins, as in
 * json-c's tree. */
#include <config.h>

#include "plugin/docker/docker_list_stream.h"

#include "common/json_fields.h"
#include "common/json_stream.h"
#include "common/skip_log.h"
#include "plugin/docker/docker_engine.h"
#include <sbx/backend_support.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entry members the rules read. */
enum { M_LABELS, M_NAMES, M_PORTS, M_STATE, M_ID, M_CREATED, M_COUNT };
static const char *const member_keys[M_COUNT] = { "Labels", "Names", "Ports",
                                                  "State", "Id", "Created" };

/* The labels, in the order of docker_labels. */
enum { L_MANAGED, L_SANDBOX, L_THREAD, L_USER, L_EXPIRES, L_COUNT };
static const char *const label_keys[L_COUNT] = { DOCKER_LABEL_MANAGED, DOCKER_LABEL_SANDBOX,
                                                 DOCKER_LABEL_THREAD, DOCKER_LABEL_USER,
                                                 DOCKER_LABEL_EXPIRES };

/* The members of a Ports item. */
enum { P_PRIVATE, P_PUBLIC, P_TYPE, P_COUNT };
static const char *const port_keys[P_COUNT] = { "PrivatePort", "PublicPort", "Type" };

struct docker_list_stream {
    common_json_stream lex;
    const docker_options *options;
    int keep_unaddressed;
    docker_list_found_fn found;
    void *found_ctx;
    int out_of_memory;
    int root_array;            /* the answer is an array (so far) */
    size_t next_index;         /* entries begun */

    /* the entry being read */
    int in_entry;
    size_t entry_index;
    int entry_object;
    int entry_clean;           /* every string and key so far is clean text */
    common_dynbuf kept;   /* its bytes, for an entry that is not clean */
    const char *kept_from;     /* where its bytes begin in the chunk being read */
    int pending_member, value_member; /* M_*, or -1 */

    int labels_open;           /* the entry's Labels is the object at depth 2 */
    int pending_label, value_label;
    int label_ok[L_COUNT];
    common_dynbuf label[L_COUNT];

    int names_array;           /* the last Names is an array */
    int names_open;            /* ... and it is the array at depth 2 */
    common_dynbuf name;   /* the Names item being read */
    common_dynbuf names;  /* the items that could be a name of ours, NUL after each */

    int ports_open;            /* the entry's Ports is the array at depth 2 */
    int port_item_open;        /* ... and an object item of it is open at depth 3 */
    int pending_port, value_port;
    int port_ok[P_COUNT];
    int port_number[2];        /* PrivatePort, PublicPort */
    common_dynbuf type;
    int public_port;

    int state_ok, id_ok;
    common_dynbuf state, id;
    int64_t created_ms;

    common_skip_log skipped; /* per skipped entry: its skip and why */
};

/* ------------------------------------------------------------ helpers */

/* The index of the key just read in keys[0..count), or -1. */
static int key_index(const common_json_stream *lex, const char *const *keys, int count)
{
    for (int i = 0; i < count; i++)
        if (strlen(keys[i]) == lex->key_len && memcmp(keys[i], lex->key, lex->key_len) == 0)
            return i;
    return -1;
}

static void keep(docker_list_stream *s, common_dynbuf *b, const char *bytes, size_t n)
{
    if (common_dynbuf_add(b, bytes, n) != 0)
        s->out_of_memory = 1;
}

/* The string about to be read goes to `b`. */
static void read_into(docker_list_stream *s, common_dynbuf *b)
{
    common_dynbuf_reset(b);
    s->lex.target = b;
}

static void note_skipped(docker_list_stream *s, size_t index, docker_skip skip, const char *why)
{
    if (common_skip_log_add(&s->skipped, index, (unsigned char)skip, why) != 0)
        s->out_of_memory = 1;
}

/* docker_list_entry.named over the Names items kept. */
static int kept_names_hold(const void *ctx, const char *expected)
{
    const docker_list_stream *s = ctx;
    if (!s->names_array)
        return 0;
    for (size_t at = 0; at < s->names.len; at += strlen(s->names.data + at) + 1)
        if (strcmp(s->names.data + at, expected) == 0)
            return 1;
    return 0;
}

/* ------------------------------------------------------------ entries */

static void begin_entry(docker_list_stream *s)
{
    s->in_entry = 1;
    s->entry_index = s->next_index++;
    s->entry_object = s->lex.kind == COMMON_JSON_KIND_OBJECT;
    s->entry_clean = 1;
    common_dynbuf_reset(&s->kept);
    s->kept_from = s->lex.at;
    s->pending_member = s->value_member = -1;
    s->labels_open = s->names_open = s->ports_open = s->port_item_open = 0;
    memset(s->label_ok, 0, sizeof s->label_ok);
    s->names_array = 0;
    common_dynbuf_reset(&s->names);
    s->public_port = 0;
    s->state_ok = s->id_ok = 0;
    s->created_ms = SBX_TIME_UNKNOWN;
}

/* A sandbox to hand over, or a skipped entry to note. */
static void settle(docker_list_stream *s, int found, docker_sandbox_view *view,
                   const docker_skip_note *skip)
{
    if (found && s->found(s->found_ctx, view) != 0)
        s->out_of_memory = 1;
    else if (!found)
        note_skipped(s, s->entry_index, skip->kind, skip->why);
}

/* An entry that is not clean text: its kept bytes through json-c. */
static void settle_by_json_c(docker_list_stream *s)
{
    json_object *entry = common_json_parse(s->kept.data, s->kept.len);
    if (entry == NULL) {
        /* It was read as JSON just now: only memory can fail it. */
        s->out_of_memory = 1;
        return;
    }
    docker_sandbox_view view;
    docker_skip_note skip;
    int found = docker_view_from_list_entry(s->options, entry, s->keep_unaddressed, &view, &skip);
    settle(s, found, &view, &skip);
    json_object_put(entry);
}

/* The entry's value ended just before s->lex.at. */
static void end_entry(docker_list_stream *s)
{
    s->in_entry = 0;
    if (!s->entry_clean) {
        keep(s, &s->kept, s->kept_from, (size_t)(s->lex.at - s->kept_from));
        if (!s->out_of_memory)
            settle_by_json_c(s);
        return;
    }
    docker_list_entry entry = { .named = kept_names_hold, .names = s };
    /* A value that is not an object has no members: all stay unset. */
    if (s->entry_object) {
        const char **labels[L_COUNT] = { &entry.labels.managed, &entry.labels.sandbox_id,
                                         &entry.labels.thread_id, &entry.labels.user_id,
                                         &entry.labels.expires_at };
        for (int i = 0; i < L_COUNT; i++)
            *labels[i] = s->label_ok[i] ? s->label[i].data : NULL;
        entry.public_port = s->public_port;
        entry.state = s->state_ok ? s->state.data : NULL;
        entry.id = s->id_ok ? s->id.data : NULL;
        entry.created_ms = s->created_ms;
    } else {
        entry.created_ms = SBX_TIME_UNKNOWN;
    }
    docker_sandbox_view view;
    docker_skip_note skip;
    int found = docker_view_from_list_members(s->options, &entry, s->keep_unaddressed, &view,
                                              &skip);
    settle(s, found, &view, &skip);
}

/* A Ports item closed: the first one that publishes the sandbox port counts. */
static void end_port_item(docker_list_stream *s)
{
    s->port_item_open = 0;
    if (s->public_port == 0 && s->port_ok[P_PRIVATE] && s->port_ok[P_PUBLIC] &&
        s->port_ok[P_TYPE] &&
        docker_port_is_sandbox(s->options, s->port_number[P_PRIVATE], s->port_number[P_PUBLIC],
                               s->type.data))
        s->public_port = s->port_number[P_PUBLIC];
}

/* ------------------------------------------------------------ events */

/* A member value of the entry begins: it replaces the member's last one. */
static void member_begins(docker_list_stream *s, common_json_kind kind)
{
    int m = s->value_member = s->pending_member;
    s->pending_member = -1;
    switch (m) {
    case M_LABELS:
        memset(s->label_ok, 0, sizeof s->label_ok);
        s->labels_open = kind == COMMON_JSON_KIND_OBJECT;
        s->pending_label = s->value_label = -1;
        break;
    case M_NAMES:
        common_dynbuf_reset(&s->names);
        s->names_array = s->names_open = kind == COMMON_JSON_KIND_ARRAY;
        break;
    case M_PORTS:
        s->public_port = 0;
        s->ports_open = kind == COMMON_JSON_KIND_ARRAY;
        break;
    case M_STATE:
    case M_ID:
        *(m == M_STATE ? &s->state_ok : &s->id_ok) = 0;
        if (kind == COMMON_JSON_KIND_STRING)
            read_into(s, m == M_STATE ? &s->state : &s->id);
        break;
    case M_CREATED:
        s->created_ms = SBX_TIME_UNKNOWN;
        break;
    default:
        break;
    }
}

static void value_begins(docker_list_stream *s)
{
    const common_json_stream *lex = &s->lex;
    switch (lex->depth) {
    case 0:
        s->root_array = lex->kind == COMMON_JSON_KIND_ARRAY;
        break;
    case 1:
        if (s->root_array)
            begin_entry(s);
        break;
    case 2:
        if (s->in_entry && s->entry_object)
            member_begins(s, lex->kind);
        break;
    case 3:
        if (s->labels_open) {
            int i = s->value_label = s->pending_label;
            s->pending_label = -1;
            if (i >= 0) {
                s->label_ok[i] = 0;
                if (lex->kind == COMMON_JSON_KIND_STRING)
                    read_into(s, &s->label[i]);
            }
        } else if (s->names_open && lex->kind == COMMON_JSON_KIND_STRING) {
            read_into(s, &s->name);
        } else if (s->ports_open && lex->kind == COMMON_JSON_KIND_OBJECT) {
            s->port_item_open = 1;
            s->pending_port = -1;
            memset(s->port_ok, 0, sizeof s->port_ok);
        }
        break;
    case 4:
        if (s->port_item_open) {
            int i = s->value_port = s->pending_port;
            s->pending_port = -1;
            if (i >= 0) {
                s->port_ok[i] = 0;
                if (i == P_TYPE && lex->kind == COMMON_JSON_KIND_STRING)
                    read_into(s, &s->type);
            }
        }
        break;
    default:
        break;
    }
}

static void key_ends(docker_list_stream *s)
{
    const common_json_stream *lex = &s->lex;
    if (!lex->text_clean && s->in_entry)
        s->entry_clean = 0;
    if (lex->depth == 2 && s->in_entry && s->entry_object)
        s->pending_member = key_index(lex, member_keys, M_COUNT);
    else if (lex->depth == 3 && s->labels_open)
        s->pending_label = key_index(lex, label_keys, L_COUNT);
    /* A label of a create request (any key): read by json-c, whose rules
     * keep them, as a rare entry that is not clean text is. */
    if (lex->depth == 3 && s->labels_open && s->in_entry &&
        lex->key_len >= strlen(DOCKER_LABEL_USER_PREFIX) &&
        memcmp(lex->key, DOCKER_LABEL_USER_PREFIX, strlen(DOCKER_LABEL_USER_PREFIX)) == 0)
        s->entry_clean = 0;
    else if (lex->depth == 4 && s->port_item_open)
        s->pending_port = key_index(lex, port_keys, P_COUNT);
}

static void scalar_ends(docker_list_stream *s)
{
    const common_json_stream *lex = &s->lex;
    int is_string = lex->kind == COMMON_JSON_KIND_STRING;
    if (is_string && !lex->text_clean && s->in_entry)
        s->entry_clean = 0;
    switch (lex->depth) {
    case 0:
        s->root_array = 0;
        break;
    case 1:
        if (s->in_entry)
            end_entry(s);
        break;
    case 2:
        if (s->value_member == M_STATE)
            s->state_ok = is_string;
        else if (s->value_member == M_ID)
            s->id_ok = is_string;
        else if (s->value_member == M_CREATED && lex->kind == COMMON_JSON_KIND_INT)
            s->created_ms = docker_created_ms(common_json_stream_int64(lex));
        s->value_member = -1;
        break;
    case 3:
        if (s->labels_open && s->value_label >= 0)
            s->label_ok[s->value_label] = is_string;
        else if (s->names_open && is_string && s->name.len <= DOCKER_NAME_MAX)
            keep(s, &s->names, s->name.data, s->name.len + 1);
        s->value_label = -1;
        break;
    case 4:
        if (s->port_item_open && s->value_port == P_TYPE)
            s->port_ok[P_TYPE] = is_string;
        else if (s->port_item_open && s->value_port >= 0)
            s->port_ok[s->value_port] = lex->kind == COMMON_JSON_KIND_INT &&
                                        common_json_stream_int(lex, &s->port_number[s->value_port]);
        s->value_port = -1;
        break;
    default:
        break;
    }
}

static void container_ends(docker_list_stream *s)
{
    switch (s->lex.depth) {
    case 1:
        if (s->in_entry)
            end_entry(s);
        break;
    case 2:
        s->labels_open = s->names_open = s->ports_open = 0;
        s->value_member = -1;
        break;
    case 3:
        if (s->port_item_open)
            end_port_item(s);
        s->value_label = -1;
        break;
    case 4:
        s->value_port = -1;
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------ interface */

docker_list_stream *docker_list_stream_new(const docker_options *o, int keep_unaddressed,
                                           docker_list_found_fn found, void *found_ctx)
{
    docker_list_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    common_json_stream_init(&s->lex);
    s->lex.check_text = 1;
    common_skip_log_init(&s->skipped, 1);
    s->options = o;
    s->keep_unaddressed = keep_unaddressed;
    s->found = found;
    s->found_ctx = found_ctx;
    return s;
}

int docker_list_stream_feed(docker_list_stream *s, const char *data, size_t len)
{
    common_json_stream_feed(&s->lex, data, len);
    s->kept_from = data;
    for (;;) {
        common_json_event event = common_json_stream_next(&s->lex);
        s->out_of_memory |= s->lex.out_of_memory;
        if (s->out_of_memory)
            return -1;
        switch (event) {
        case COMMON_JSON_EVENT_NONE:
            /* The entry goes on in the next chunk: keep what it has here. */
            if (s->in_entry)
                keep(s, &s->kept, s->kept_from, (size_t)(data + len - s->kept_from));
            return s->out_of_memory ? -1 : 0;
        case COMMON_JSON_EVENT_BEGIN: value_begins(s); break;
        case COMMON_JSON_EVENT_KEY: key_ends(s); break;
        case COMMON_JSON_EVENT_SCALAR: scalar_ends(s); break;
        case COMMON_JSON_EVENT_CLOSE: container_ends(s); break;
        }
    }
}

/* Where the skipped entries are told. */
typedef struct skip_teller {
    docker_list_skipped_fn skipped;
    void *ctx;
} skip_teller;

/* One skipped entry, told (a common_skip_fn). */
static void tell_skipped(void *ctx, size_t index, unsigned char skip, const char *why)
{
    const skip_teller *to = ctx;
    to->skipped(to->ctx, index, (docker_skip)skip, why);
}

sbx_status docker_list_stream_finish(docker_list_stream *s, const char *what,
                                     docker_list_skipped_fn skipped, void *skipped_ctx,
                                     sbx_error *err)
{
    if (s->out_of_memory)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    if (common_json_stream_end(&s->lex) != COMMON_JSON_COMPLETE || !s->root_array)
        return docker_engine_wrong_answer(what, json_type_array, err);
    if (skipped != NULL)
        common_skip_log_replay(&s->skipped, tell_skipped, &(skip_teller){ skipped, skipped_ctx });
    return SBX_OK;
}

void docker_list_stream_free(docker_list_stream *s)
{
    if (s == NULL)
        return;
    common_dynbuf *buffers[] = { &s->kept, &s->name, &s->names, &s->type, &s->state, &s->id };
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        common_dynbuf_free(buffers[i]);
    for (int i = 0; i < L_COUNT; i++)
        common_dynbuf_free(&s->label[i]);
    common_skip_log_free(&s->skipped);
    free(s);
}
