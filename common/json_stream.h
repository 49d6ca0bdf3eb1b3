/*
 * A streaming JSON lexer that reads a text as json-c 0.16's default
 * (non-strict) tokener does, in chunks split anywhere, and tells its
 * consumer what it finds one event at a time: no tree, no allocation but
 * the string buffers the consumer hands it.  The list decoders of the HTTP
 * backends (remote: plugin/remote/remote_list_stream.h, docker:
 * plugin/docker/docker_list_stream.h) build their records on it.
 *
 * It accepts what common_json_parse accepts, json-c's extensions included
 * (comments, single-quoted strings, NaN/Infinity, case-insensitive
 * literals, trailing commas, json-c's number forms, lone surrogates read as
 * U+FFFD), with json-c's depth limit, keys cut at an escaped NUL, only
 * whitespace after the value, and no raw NUL byte anywhere.
 *
 * Or, with `strict` set, only RFC 8259's grammar: none of json-c's
 * extensions, no raw control character in a string, no escape of half a
 * surrogate pair unless `lone_surrogates` is set too (each then reads as
 * U+FFFD); keys are not cut at an escaped NUL (`key` keeps it, `key_full`
 * holds them whole).
 *
 * Use: embed a common_json_stream, common_json_stream_init it; for each
 * chunk call common_json_stream_feed, then common_json_stream_next until it
 * says COMMON_JSON_EVENT_NONE, reading the event's members after each
 * call; after the last chunk, common_json_stream_end says whether the text
 * was JSON.  One stream reads one text, from one thread at a time.
 */
#ifndef SBX_COMMON_JSON_STREAM_H
#define SBX_COMMON_JSON_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "common/dynbuf.h"
#include "common/utf8.h"

/* What common_json_stream_next found. */
typedef enum common_json_event {
    COMMON_JSON_EVENT_NONE = 0, /* the chunk is read: feed the next one */
    COMMON_JSON_EVENT_BEGIN,    /* a value begins: kind (OBJECT, ARRAY, STRING or SCALAR),
                                 * depth, at */
    COMMON_JSON_EVENT_KEY,      /* a member's key is read: key, key_len, depth, text_clean */
    COMMON_JSON_EVENT_SCALAR,   /* a scalar is complete: kind, depth, at, and for an
                                 * INT negative/magnitude, for a STRING text_clean
                                 * (its bytes are in `target`, NUL-terminated) */
    COMMON_JSON_EVENT_CLOSE     /* a container closed: depth, at */
} common_json_event;

/* A value's type as json-c gives it. */
typedef enum common_json_kind {
    COMMON_JSON_KIND_OBJECT,
    COMMON_JSON_KIND_ARRAY,
    COMMON_JSON_KIND_STRING,
    COMMON_JSON_KIND_SCALAR, /* BEGIN only: a number or a literal, type known at its end */
    COMMON_JSON_KIND_INT,
    COMMON_JSON_KIND_DOUBLE,
    COMMON_JSON_KIND_BOOL,
    COMMON_JSON_KIND_NULL
} common_json_kind;

/* How a text ended (common_json_stream_end). */
typedef enum common_json_outcome {
    COMMON_JSON_COMPLETE = 0, /* one JSON value, whitespace around it */
    COMMON_JSON_NOT_JSON,     /* anything else, a raw NUL, or more than INT_MAX bytes */
    COMMON_JSON_DEEP          /* nested deeper than json-c accepts (COMMON_JSON_TOO_DEEP) */
} common_json_outcome;

/* json-c's default depth: a value may sit inside at most 31 containers, so
 * a 32nd may be open only while empty. */
#define COMMON_JSON_STREAM_MAX_OPEN 32

/* The longest key kept whole: a longer one reads as key_len
 * COMMON_JSON_STREAM_KEY_MAX + 1 with its first bytes in `key`. */
#define COMMON_JSON_STREAM_KEY_MAX 32

typedef struct common_json_stream {
    /* ---- the last event (read them; never write) */
    common_json_kind kind;
    unsigned depth;         /* BEGIN, SCALAR: containers around the value; CLOSE: around the
                             * container that closed; KEY: containers open (its object's
                             * depth + 1) */
    const char *at;         /* BEGIN: the value's first byte; SCALAR, CLOSE: just past its
                             * last byte (both in the chunk fed last) */
    char key[COMMON_JSON_STREAM_KEY_MAX + 2]; /* the key up to an escaped NUL (strict: past
                                               * it), NUL-terminated */
    size_t key_len;
    int negative;           /* INT: a '-' leads it */
    uint64_t magnitude;     /* INT: its absolute value, saturating above INT64_MAX + 1 */
    int text_clean;         /* STRING, KEY: no NUL, valid UTF-8 (always 1 without check_text) */

    /* ---- set by the consumer */
    common_dynbuf *target;      /* after a STRING BEGIN: where its bytes go, appended
                                 * (NULL: dropped); the stream NUL-terminates them and
                                 * resets target to NULL at the string's end */
    int check_text;             /* compute text_clean for every string and key */
    int strict;                 /* read only RFC 8259 JSON (set before the first feed) */
    int lone_surrogates;        /* strict: let an escaped half of a surrogate pair through,
                                 * as RFC 8259's grammar does (read as U+FFFD) */
    common_dynbuf *key_full;    /* NULL, or where each key's bytes go whole, an escaped
                                 * NUL included (reset at each key; valid at its KEY
                                 * event) */
    int out_of_memory;          /* a target could not grow (set by the stream) */
    size_t failed_at;           /* the offset in the text of the byte that made it not
                                 * JSON; SIZE_MAX while none did (set by the stream) */

    /* ---- the lexer's own state */
    int state, resume, too_deep, saw_nul, after_comma;
    size_t total;
    const char *pos, *end;  /* the chunk still to read */
    unsigned open;
    char closer[COMMON_JSON_STREAM_MAX_OPEN];
    char quote;
    int in_key, key_cut;
    unsigned unicode, high_surrogate;
    int unicode_digits;
    common_utf8_scan utf8;
    int num_dfa, num_rfc, num_anchor_ok, num_double, num_exponent, num_neg_ok, num_pos_ok;
    size_t num_len;
    const char *word;
    size_t word_len, word_pos;
    common_json_kind word_kind;
    common_json_event event;
} common_json_stream;

/* Ready *s to read a new text. */
void common_json_stream_init(common_json_stream *s);

/* The next `len` bytes of the text, read by the common_json_stream_next
 * calls that follow (data must stay valid until one says NONE). */
void common_json_stream_feed(common_json_stream *s, const char *data, size_t len);

/* Read on to the next event of the chunk fed last; NONE when it is read
 * whole.  A text that turns out not to be JSON gives no more events. */
common_json_event common_json_stream_next(common_json_stream *s);

/* The INT just read as json-c's json_object_get_int64 gives it (clamped
 * to the int64 range). */
int64_t common_json_stream_int64(const common_json_stream *s);

/* 1 with *out set when the INT just read fits an int (the rule of
 * common_json_int_value), else 0. */
int common_json_stream_int(const common_json_stream *s, int *out);

/* After the last chunk: whether the bytes fed were one JSON value. */
common_json_outcome common_json_stream_end(const common_json_stream *s);

#endif /* SBX_COMMON_JSON_STREAM_H */
