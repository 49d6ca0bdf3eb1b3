/* The strict body check (see prov_json_strict.h): one pass of the
 * streaming lexer in its RFC 8259 mode, then the duplicate names found by
 * sorting every (object, name) pair, so that a body of many members costs
 * n log n, never n squared.  String values are not kept: the lexer says
 * whether one is clean text, and only an unclean one is read again, in
 * place, to say why (a body's 16 MiB content costs no copy here). */
#include <config.h>

#include "tools/provisioner-common/prov_json_strict.h"

#include "common/dynbuf.h"
#include "common/json_stream.h"
#include "common/printable.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One member name: the object it belongs to (numbered as they open), its
 * bytes (at `at` in the name pool while reading, then `bytes`), and the
 * offset of its closing quote in the text. */
typedef struct member_name {
    size_t object, at, len, end;
    const char *bytes;
} member_name;

typedef struct checker {
    common_json_stream stream;
    const char *text;
    common_dynbuf key;         /* the stream's key_full */
    const char *string_at;     /* the opening quote of the string value being read */
    common_dynbuf names;       /* every member name, one after another */
    member_name *members;
    size_t count, cap;
    size_t objects[COMMON_JSON_STREAM_MAX_OPEN]; /* the number of each open object */
    size_t next_object;
    const char *number_at;     /* where the number being read began */
    const char *text_end;      /* past the body: a number at the top ends there */
    int in_tail;               /* reading the space fed after the body */
    char last_name[80];        /* the last member name, printable */
    int has_name;
    size_t *offset;
    char *why;
    size_t why_len;
} checker;

/* `len` bytes of a name for a message: an escaped NUL shown as \u0000 (C
 * would end the text there), the rest as common_printable shows it (which
 * marks a name cut here as cut: it keeps fewer characters). */
static void printable_bytes(const char *bytes, size_t len, char *out, size_t cap)
{
    char shown[80];
    size_t n = 0;
    for (size_t i = 0; i < len && n + 7 < sizeof shown; i++) {
        if (bytes[i] == '\0') {
            memcpy(shown + n, "\\u0000", 6);
            n += 6;
        } else {
            shown[n++] = bytes[i];
        }
    }
    shown[n] = '\0';
    common_printable(shown, out, cap);
}

static prov_strict_result refuse(checker *c, size_t offset, const char *what,
                                     const char *name)
{
    *c->offset = offset;
    if (name != NULL)
        snprintf(c->why, c->why_len, "%s '%s'", what, name);
    else
        snprintf(c->why, c->why_len, "%s", what);
    return PROV_STRICT_REFUSED;
}

/* What a value's message names: its member, or nothing at the top. */
static const char *value_owner(const checker *c)
{
    return c->has_name ? c->last_name : NULL;
}

static prov_strict_result on_key(checker *c)
{
    const common_json_stream *s = &c->stream;
    size_t end = (size_t)(s->at - c->text) - 1;
    char name[80];
    printable_bytes(c->key.data, c->key.len, name, sizeof name);
    if (memchr(c->key.data, '\0', c->key.len) != NULL)
        return refuse(c, end, "a NUL character in member name", name);
    if (!s->text_clean)
        return refuse(c, end, "invalid UTF-8 in member name", name);
    if (c->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        member_name *grown = realloc(c->members, cap * sizeof *grown);
        if (grown == NULL)
            return PROV_STRICT_OUT_OF_MEMORY;
        c->members = grown;
        c->cap = cap;
    }
    c->members[c->count++] = (member_name){
        .object = c->objects[s->depth - 1], .at = c->names.len, .len = c->key.len, .end = end};
    if (common_dynbuf_add(&c->names, c->key.data, c->key.len) != COMMON_DYNBUF_OK)
        return PROV_STRICT_OUT_OF_MEMORY;
    memcpy(c->last_name, name, sizeof name);
    c->has_name = 1;
    return PROV_STRICT_OK;
}

/* Whether the string between `from` (past its opening quote) and `to` (its
 * closing quote), as written, holds a NUL: a raw one or \u0000. */
static int holds_nul(const char *from, const char *to)
{
    for (const char *p = from; p < to; p++) {
        if (*p == '\0')
            return 1;
        if (*p == '\\') {
            if (to - p > 5 && p[1] == 'u' && memcmp(p + 2, "0000", 4) == 0)
                return 1;
            p++;
        }
    }
    return 0;
}

static prov_strict_result on_string(checker *c)
{
    size_t end = (size_t)(c->stream.at - c->text) - 1;
    if (c->stream.text_clean)
        return PROV_STRICT_OK;
    if (holds_nul(c->string_at + 1, c->stream.at - 1))
        return refuse(c, end, "a NUL character in the value of member", value_owner(c));
    return refuse(c, end, "invalid UTF-8 in the value of member", value_owner(c));
}

/* 1 when the number from..to (RFC 8259 syntax, checked) is in range, 0
 * when not, -1 when out of memory. */
static int number_in_range(const char *from, const char *to, int integer)
{
    size_t n = (size_t)(to - from);
    /* No leading zeros: an integer of more characters than INT64_MIN's 20
     * is out of range without reading it. */
    if (integer && n > 20)
        return 0;
    char small[64];
    char *copy = n < sizeof small ? small : malloc(n + 1);
    if (copy == NULL)
        return -1;
    memcpy(copy, from, n);
    copy[n] = '\0';
    int in_range;
    errno = 0;
    if (integer) {
        (void)strtoll(copy, NULL, 10);
        in_range = errno != ERANGE;
    } else {
        in_range = !isinf(strtod(copy, NULL)); /* underflow reads as 0, as everywhere */
    }
    if (copy != small)
        free(copy);
    return in_range;
}

static prov_strict_result on_number(checker *c)
{
    int in_range = number_in_range(c->number_at, c->in_tail ? c->text_end : c->stream.at,
                                   c->stream.kind == COMMON_JSON_KIND_INT);
    if (in_range < 0)
        return PROV_STRICT_OUT_OF_MEMORY;
    if (in_range == 0)
        return refuse(c, (size_t)(c->number_at - c->text),
                      c->stream.kind == COMMON_JSON_KIND_INT
                          ? "an integer beyond 64 bits as the value of member"
                          : "a number beyond a double's range as the value of member",
                      value_owner(c));
    return PROV_STRICT_OK;
}

static prov_strict_result on_event(checker *c, common_json_event event)
{
    common_json_stream *s = &c->stream;
    switch (event) {
    case COMMON_JSON_EVENT_BEGIN:
        if (s->kind == COMMON_JSON_KIND_OBJECT) {
            c->objects[s->depth] = c->next_object++;
        } else if (s->kind == COMMON_JSON_KIND_STRING) {
            c->string_at = s->at;
        } else if (s->kind == COMMON_JSON_KIND_SCALAR) {
            c->number_at = s->at;
        }
        return PROV_STRICT_OK;
    case COMMON_JSON_EVENT_KEY:
        return on_key(c);
    case COMMON_JSON_EVENT_SCALAR:
        if (s->kind == COMMON_JSON_KIND_STRING)
            return on_string(c);
        if (s->kind == COMMON_JSON_KIND_INT || s->kind == COMMON_JSON_KIND_DOUBLE)
            return on_number(c);
        return PROV_STRICT_OK;
    case COMMON_JSON_EVENT_CLOSE:
    case COMMON_JSON_EVENT_NONE:
        break;
    }
    return PROV_STRICT_OK;
}

static int by_object_then_name(const void *a, const void *b)
{
    const member_name *x = a, *y = b;
    if (x->object != y->object)
        return x->object < y->object ? -1 : 1;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    int bytes = x->len > 0 ? memcmp(x->bytes, y->bytes, x->len) : 0;
    if (bytes != 0)
        return bytes;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* The first name (in the text) that repeats one of its object's. */
static prov_strict_result find_duplicate(checker *c)
{
    for (size_t i = 0; i < c->count; i++)
        c->members[i].bytes = c->names.data != NULL ? c->names.data + c->members[i].at : "";
    if (c->count > 1)
        qsort(c->members, c->count, sizeof *c->members, by_object_then_name);
    const member_name *first = NULL;
    for (size_t i = 1; i < c->count; i++) {
        const member_name *prev = &c->members[i - 1], *m = &c->members[i];
        if (m->object == prev->object && m->len == prev->len &&
            (m->len == 0 || memcmp(m->bytes, prev->bytes, m->len) == 0) &&
            (first == NULL || m->end < first->end))
            first = m;
    }
    if (first == NULL)
        return PROV_STRICT_OK;
    char name[80];
    printable_bytes(first->bytes, first->len, name, sizeof name);
    return refuse(c, first->end, "duplicate member name", name);
}

/* Hand the events of the chunk fed last to on_event. */
static prov_strict_result read_events(checker *c)
{
    common_json_event event;
    while ((event = common_json_stream_next(&c->stream)) != COMMON_JSON_EVENT_NONE) {
        prov_strict_result r = on_event(c, event);
        if (r != PROV_STRICT_OK)
            return r;
    }
    return PROV_STRICT_OK;
}

static prov_strict_result check(checker *c, size_t len)
{
    common_json_stream *s = &c->stream;
    common_json_stream_feed(s, c->text, len);
    prov_strict_result r = read_events(c);
    if (r != PROV_STRICT_OK)
        return r;
    /* A literal or number at the top ends only at the byte after it. */
    c->in_tail = 1;
    common_json_stream_feed(s, " ", 1);
    r = read_events(c);
    if (r != PROV_STRICT_OK)
        return r;
    if (s->out_of_memory)
        return PROV_STRICT_OUT_OF_MEMORY;
    common_json_outcome outcome = common_json_stream_end(s);
    if (outcome != COMMON_JSON_COMPLETE)
        return refuse(c, s->failed_at < len ? s->failed_at : len,
                      outcome == COMMON_JSON_DEEP ? "nested deeper than 32 levels"
                                                  : "not strict JSON (RFC 8259)",
                      NULL);
    return find_duplicate(c);
}

prov_strict_result prov_json_strict_check(const char *text, size_t len,
                                                  size_t *offset, char *why, size_t why_len)
{
    checker *c = calloc(1, sizeof *c);
    if (c == NULL)
        return PROV_STRICT_OUT_OF_MEMORY;
    common_dynbuf_init(&c->key, 0);
    common_dynbuf_init(&c->names, 0);
    c->text = text;
    c->text_end = text + len;
    c->offset = offset;
    c->why = why;
    c->why_len = why_len;
    common_json_stream_init(&c->stream);
    c->stream.strict = 1;
    c->stream.check_text = 1;
    c->stream.key_full = &c->key;
    prov_strict_result result = check(c, len);
    common_dynbuf_free(&c->key);
    common_dynbuf_free(&c->names);
    free(c->members);
    free(c);
    return result;
}
