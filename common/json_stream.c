/* The streaming JSON lexer (see json_stream.h).
 *
 * A byte-driven state machine that follows json-c 0.16's tokener
 * (json_tokener.c, non-strict) state for state where the two could part:
 * what ends a token, which characters it takes, when the depth limit
 * fires, and when a literal or a number is complete (only at the next
 * character, which is then read again as the start of what follows).  Each
 * step reads at least one byte or changes state, and raises at most one
 * event, which common_json_stream_next hands to the consumer before the
 * next step. */
#include <config.h>

#include "common/json_stream.h"

#include "common/hex_digit.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef enum lex_state {
    S_VALUE,       /* before a value (in an array also before its ']') */
    S_KEY,         /* in an object, before a key or its '}' */
    S_COLON,       /* after a key */
    S_AFTER,       /* after a value: ',' or the closer; at the top, the end */
    S_STRING,      /* in a string or a key */
    S_ESCAPE,      /* after a backslash */
    S_UNICODE,     /* in the 4 hex digits of \u */
    S_LOW_SLASH,   /* after a high surrogate's \uXXXX: a '\' may follow */
    S_LOW_U,       /* ... then a 'u' */
    S_NUMBER,
    S_WORD,        /* true, false, null, NaN, Infinity */
    S_COMMENT_OPEN,  /* after a '/' */
    S_COMMENT,       /* in a block comment */
    S_COMMENT_STAR,  /* after a '*' in a block comment */
    S_LINE_COMMENT,
    S_TRAILER,     /* after the value stopped json-c: only isspace() bytes */
    S_FAILED       /* not JSON (the rest is only counted) */
} lex_state;

/* The states of strtod's grammar over the bytes a json-c number takes:
 * -?(digits(.digits*)?|.digits)([eE][+-]?digits)? */
enum { D_START, D_SIGN, D_INT, D_DOT, D_FRAC, D_E, D_ESIGN, D_EXP, D_DEAD };

/* RFC 8259's number grammar, for strict texts:
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
enum { R_START, R_MINUS, R_ZERO, R_INT, R_DOT, R_FRAC, R_E, R_ESIGN, R_EXP, R_DEAD };

/* Where an integer's magnitude saturates: json-c clamps what int64 cannot
 * hold, so past this nothing a reader can see changes. */
#define MAGNITUDE_LIMIT ((uint64_t)INT64_MAX + 1)

#define REPLACEMENT_CHARACTER 0xFFFDu

/* ------------------------------------------------------------ helpers */

static int is_json_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* What common_json_parse lets follow the value: isspace() in the C locale. */
static int is_trailing_space(unsigned char c)
{
    return is_json_space(c) || c == '\v' || c == '\f';
}

static unsigned char ascii_lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + ('a' - 'A')) : c;
}

/* Not JSON at the byte s->pos points at. */
static void fail(common_json_stream *s, int too_deep)
{
    s->state = S_FAILED;
    s->too_deep = too_deep;
    s->failed_at = s->total - (size_t)(s->end - s->pos);
}

static void raise_event(common_json_stream *s, common_json_event event, common_json_kind kind,
                        const char *at)
{
    s->event = event;
    s->kind = kind;
    s->at = at;
}

/* Bytes of a key: all of them into the consumer's key_full; into `key`
 * up to an escaped NUL (`nul`: these bytes are one), where json-c cuts (a
 * strict text is not json-c's: its key goes on). */
static inline void emit_key(common_json_stream *s, const char *bytes, size_t n, int nul)
{
    if (s->key_full != NULL && common_dynbuf_add(s->key_full, bytes, n) != COMMON_DYNBUF_OK)
        s->out_of_memory = 1;
    if (nul && !s->strict)
        s->key_cut = 1;
    if (s->key_cut)
        return;
    if (s->check_text)
        common_utf8_scan_bytes(&s->utf8, bytes, n);
    size_t room = COMMON_JSON_STREAM_KEY_MAX + 1 - s->key_len;
    if (n > room)
        n = room;
    memcpy(s->key + s->key_len, bytes, n);
    s->key_len += n;
}

/* Bytes of the string being read (a NUL only from emit_code_point's
 * \u0000): into the key or into the consumer's target. */
static void emit(common_json_stream *s, const char *bytes, size_t n)
{
    if (s->in_key) {
        emit_key(s, bytes, n, 0);
        return;
    }
    if (s->check_text)
        common_utf8_scan_bytes(&s->utf8, bytes, n);
    if (s->target != NULL && common_dynbuf_add(s->target, bytes, n) != COMMON_DYNBUF_OK)
        s->out_of_memory = 1;
}

/* A decoded escape's code point.  json-c keeps a key only up to an
 * escaped NUL; a value keeps the NUL (which makes it unclean text). */
static void emit_code_point(common_json_stream *s, unsigned cp)
{
    char out[4];
    size_t n = common_utf8_encode(cp, out);
    if (s->in_key)
        emit_key(s, out, n, cp == 0);
    else
        emit(s, out, n);
}

/* ------------------------------------------------------------ tokens */

/* The bytes that end a run of plain string bytes: the quote, '\\', NUL. */
static const unsigned char double_quote_stop[256] = { [0] = 1, ['"'] = 1, ['\\'] = 1 };
static const unsigned char single_quote_stop[256] = { [0] = 1, ['\''] = 1, ['\\'] = 1 };
/* In a strict text a raw control character ends the run too (and fails). */
static const unsigned char strict_stop[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1,
    [0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0A] = 1, [0x0B] = 1, [0x0C] = 1, [0x0D] = 1,
    [0x0E] = 1, [0x0F] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
    [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1A] = 1, [0x1B] = 1,
    [0x1C] = 1, [0x1D] = 1, [0x1E] = 1, [0x1F] = 1, ['"'] = 1, ['\\'] = 1};

static void begin_string(common_json_stream *s, unsigned char quote, int in_key)
{
    if (s->strict && quote != '"') {
        fail(s, 0);
        return;
    }
    s->after_comma = 0;
    s->quote = (char)quote;
    s->in_key = in_key;
    s->high_surrogate = 0;
    memset(&s->utf8, 0, sizeof s->utf8);
    s->state = S_STRING;
}

/* The value starting with c (already past the depth check). */
static void begin_value(common_json_stream *s, unsigned char c)
{
    s->depth = s->open;
    s->after_comma = 0;
    if (s->strict && c != 't' && c != 'f' && c != 'n' && (c | 0x20) >= 'a' && (c | 0x20) <= 'z') {
        fail(s, 0); /* NaN, Infinity, literals in capitals */
        return;
    }
    switch (c) {
    case '{':
    case '[':
        s->closer[s->open++] = c == '{' ? '}' : ']';
        s->state = c == '{' ? S_KEY : S_VALUE;
        raise_event(s, COMMON_JSON_EVENT_BEGIN,
                    c == '{' ? COMMON_JSON_KIND_OBJECT : COMMON_JSON_KIND_ARRAY, s->pos);
        return;
    case '"':
    case '\'':
        s->target = NULL;
        begin_string(s, c, 0);
        if (s->state == S_STRING)
            raise_event(s, COMMON_JSON_EVENT_BEGIN, COMMON_JSON_KIND_STRING, s->pos);
        return;
    case 't': case 'T': s->word = "true"; s->word_kind = COMMON_JSON_KIND_BOOL; break;
    case 'f': case 'F': s->word = "false"; s->word_kind = COMMON_JSON_KIND_BOOL; break;
    case 'n': case 'N': s->word = "null"; s->word_kind = COMMON_JSON_KIND_NULL; break; /* or NaN */
    case 'i': case 'I': s->word = "infinity"; s->word_kind = COMMON_JSON_KIND_DOUBLE; break;
    default:
        if (c != '-' && (c < '0' || c > '9')) {
            fail(s, 0);
            return;
        }
        s->num_dfa = D_START;
        s->num_rfc = R_START;
        s->num_anchor_ok = s->num_double = s->num_exponent = s->num_pos_ok = 0;
        s->num_neg_ok = 1;
        s->negative = c == '-';
        s->num_len = 0;
        s->magnitude = 0;
        s->state = S_NUMBER;
        raise_event(s, COMMON_JSON_EVENT_BEGIN, COMMON_JSON_KIND_SCALAR, s->pos);
        return;
    }
    s->word_len = strlen(s->word);
    s->word_pos = 1;
    s->state = S_WORD;
    raise_event(s, COMMON_JSON_EVENT_BEGIN, COMMON_JSON_KIND_SCALAR, s->pos);
}

/* A scalar of `kind` is complete; it ended just before `at`. */
static void end_scalar(common_json_stream *s, common_json_kind kind, const char *at)
{
    s->depth = s->open;
    s->state = S_AFTER;
    raise_event(s, COMMON_JSON_EVENT_SCALAR, kind, at);
}

/* The innermost container closes at s->pos. */
static void close_container(common_json_stream *s)
{
    s->depth = --s->open;
    s->state = S_AFTER;
    raise_event(s, COMMON_JSON_EVENT_CLOSE, s->closer[s->open] == '}' ? COMMON_JSON_KIND_OBJECT
                                                                      : COMMON_JSON_KIND_ARRAY,
                s->pos + 1);
}

/* RFC 8259's grammar one byte on. */
static int rfc_number_step(int state, unsigned char c)
{
    int digit = c >= '0' && c <= '9';
    switch (state) {
    case R_START: return c == '-' ? R_MINUS : c == '0' ? R_ZERO : digit ? R_INT : R_DEAD;
    case R_MINUS: return c == '0' ? R_ZERO : digit ? R_INT : R_DEAD;
    case R_ZERO:
    case R_INT:
        if (c == '.')
            return R_DOT;
        if (c == 'e' || c == 'E')
            return R_E;
        return state == R_INT && digit ? R_INT : R_DEAD;
    case R_DOT: return digit ? R_FRAC : R_DEAD;
    case R_FRAC: return digit ? R_FRAC : c == 'e' || c == 'E' ? R_E : R_DEAD;
    case R_E: return c == '+' || c == '-' ? R_ESIGN : digit ? R_EXP : R_DEAD;
    case R_ESIGN:
    case R_EXP: return digit ? R_EXP : R_DEAD;
    default: return R_DEAD;
    }
}

static int strtod_step(int state, unsigned char c)
{
    int digit = c >= '0' && c <= '9';
    switch (state) {
    case D_START: return c == '-' ? D_SIGN : digit ? D_INT : c == '.' ? D_DOT : D_DEAD;
    case D_SIGN: return digit ? D_INT : c == '.' ? D_DOT : D_DEAD;
    case D_INT: return digit ? D_INT : c == '.' ? D_FRAC : (c | 0x20) == 'e' ? D_E : D_DEAD;
    case D_DOT: return digit ? D_FRAC : D_DEAD;
    case D_FRAC: return digit ? D_FRAC : (c | 0x20) == 'e' ? D_E : D_DEAD;
    case D_E: return c == '+' || c == '-' ? D_ESIGN : digit ? D_EXP : D_DEAD;
    case D_ESIGN:
    case D_EXP: return digit ? D_EXP : D_DEAD;
    default: return D_DEAD;
    }
}

/* The number ends before c (not taken).  json-c keeps "-" before an 'i' for
 * -Infinity; a double is what strtod reads whole once trailing [eE+-] are
 * dropped; an integer is anything but a lone "-". */
static void end_number(common_json_stream *s, unsigned char c)
{
    if (s->strict && s->num_rfc != R_ZERO && s->num_rfc != R_INT && s->num_rfc != R_FRAC &&
        s->num_rfc != R_EXP) {
        fail(s, 0);
        return;
    }
    if (s->negative && s->num_len == 1 && (c == 'i' || c == 'I')) {
        s->word = "infinity";
        s->word_len = 8;
        s->word_pos = 0;
        s->word_kind = COMMON_JSON_KIND_DOUBLE;
        s->state = S_WORD;
        return;
    }
    if (s->num_double ? !s->num_anchor_ok : s->negative && s->num_len == 1) {
        fail(s, 0);
        return;
    }
    end_scalar(s, s->num_double ? COMMON_JSON_KIND_DOUBLE : COMMON_JSON_KIND_INT, s->pos);
}

/* Read number bytes from s->pos; stops at the first byte json-c does not take. */
static void read_number(common_json_stream *s)
{
    const char *q = s->pos;
    while (q < s->end) {
        unsigned char c = (unsigned char)*q;
        int digit = c >= '0' && c <= '9';
        if (digit) {
            unsigned d = c - (unsigned)'0';
            s->magnitude = s->magnitude > (MAGNITUDE_LIMIT - d) / 10 ? MAGNITUDE_LIMIT
                                                                       : s->magnitude * 10 + d;
        } else if (!(((c | 0x20) == 'e' && !s->num_exponent) || (c == '-' && s->num_neg_ok) ||
                     (c == '+' && s->num_pos_ok) || (c == '.' && !s->num_double))) {
            s->pos = q;
            end_number(s, c);
            return;
        }
        s->num_pos_ok = s->num_neg_ok = 0;
        if (c == '.' || (c | 0x20) == 'e') {
            s->num_double = 1;
            s->num_pos_ok = s->num_neg_ok = 1;
            if (c != '.')
                s->num_exponent = 1;
        }
        s->num_dfa = strtod_step(s->num_dfa, c);
        s->num_rfc = rfc_number_step(s->num_rfc, c);
        if (c != '-' && c != '+' && (c | 0x20) != 'e')
            s->num_anchor_ok = s->num_dfa == D_INT || s->num_dfa == D_FRAC ||
                               s->num_dfa == D_EXP;
        if (s->num_len < 2)
            s->num_len++;
        q++;
    }
    s->pos = q;
}

/* One byte of a literal; after the last letter, the next byte (any byte)
 * completes it and is read again after the value, as json-c does. */
static int read_word(common_json_stream *s, unsigned char c)
{
    if (s->word_pos == s->word_len) {
        end_scalar(s, s->word_kind, s->pos);
        return 0; /* not taken */
    }
    if (!s->strict)
        c = ascii_lower(c);
    if (!s->strict && s->word_pos == 1 && s->word_kind == COMMON_JSON_KIND_NULL && c == 'a') {
        s->word = "nan";
        s->word_len = 3;
        s->word_kind = COMMON_JSON_KIND_DOUBLE;
    }
    if (c != (unsigned char)s->word[s->word_pos]) {
        fail(s, 0);
        return 0;
    }
    s->word_pos++;
    return 1;
}

/* A surrogate escape without its other half: U+FFFD, as json-c reads it;
 * in a strict text without lone_surrogates, the end (-1). */
static int lone_surrogate(common_json_stream *s)
{
    if (s->strict && !s->lone_surrogates) {
        fail(s, 0);
        return -1;
    }
    emit_code_point(s, REPLACEMENT_CHARACTER);
    return 0;
}

static void end_unicode_escape(common_json_stream *s)
{
    unsigned cp = s->unicode, high = s->high_surrogate;
    s->state = S_STRING;
    s->high_surrogate = 0;
    if (high != 0) {
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            cp = 0x10000 + ((high & 0x3FF) << 10) + (cp & 0x3FF);
        else if (lone_surrogate(s) != 0)
            return;
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        s->high_surrogate = cp;
        s->state = S_LOW_SLASH;
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        lone_surrogate(s);
    } else {
        emit_code_point(s, cp);
    }
}

/* The closing quote at `quote`. */
static void end_string(common_json_stream *s, const char *quote)
{
    s->text_clean = !s->check_text || common_utf8_scan_clean(&s->utf8);
    if (s->in_key) {
        s->key[s->key_len < COMMON_JSON_STREAM_KEY_MAX + 1 ? s->key_len
                                                          : COMMON_JSON_STREAM_KEY_MAX + 1] = '\0';
        if (s->key_full != NULL && common_dynbuf_add(s->key_full, "", 0) != COMMON_DYNBUF_OK)
            s->out_of_memory = 1;
        s->depth = s->open;
        s->state = S_COLON;
        raise_event(s, COMMON_JSON_EVENT_KEY, COMMON_JSON_KIND_STRING, quote + 1);
        return;
    }
    if (s->target != NULL && common_dynbuf_add(s->target, "", 0) != COMMON_DYNBUF_OK)
        s->out_of_memory = 1;
    s->target = NULL;
    end_scalar(s, COMMON_JSON_KIND_STRING, quote + 1);
}

/* Plain string bytes from s->pos up to the quote, a backslash or a NUL
 * (in a strict text, any control character). */
static void read_string_run(common_json_stream *s)
{
    const unsigned char *stop = s->strict         ? strict_stop
                                : s->quote == '"' ? double_quote_stop
                                                  : single_quote_stop;
    const unsigned char *q = (const unsigned char *)s->pos, *e = (const unsigned char *)s->end;
    while (e - q >= 4 && !(stop[q[0]] | stop[q[1]] | stop[q[2]] | stop[q[3]]))
        q += 4;
    while (q < e && !stop[*q])
        q++;
    if (q != (const unsigned char *)s->pos)
        emit(s, s->pos, (size_t)((const char *)q - s->pos));
    s->pos = (const char *)q;
    if (q == e)
        return;
    if (*q == '\\')
        s->state = S_ESCAPE;
    else if (*q < 0x20)
        fail(s, 0);
    else
        end_string(s, s->pos);
    s->pos++;
}

/* Whitespace and comments, which json-c allows before and after every
 * token (a strict text: whitespace only): 1 when c was one of them
 * (taken), else 0. */
static int skip_space(common_json_stream *s, unsigned char c)
{
    if (is_json_space(c))
        return 1;
    if (c != '/' || s->strict)
        return 0;
    s->resume = s->state;
    s->state = S_COMMENT_OPEN;
    return 1;
}

/* A value (or an array's ']') starting with c at s->pos, which it takes
 * but for a number's first byte (read_number takes it). */
static void value_step(common_json_stream *s, unsigned char c)
{
    if (s->open > 0 && s->closer[s->open - 1] == ']' && c == ']') {
        if (s->strict && s->after_comma)
            fail(s, 0); /* a trailing comma */
        else
            close_container(s);
        s->pos++;
        return;
    }
    if (s->open == COMMON_JSON_STREAM_MAX_OPEN) {
        fail(s, 1);
        s->pos++;
        return;
    }
    begin_value(s, c);
    if (s->state != S_NUMBER)
        s->pos++;
}

/* In an object, a key (or its '}') starting with c at s->pos; a key's
 * plain bytes are read on at once, as no event comes between. */
static void key_step(common_json_stream *s, unsigned char c)
{
    if (c == '}') {
        if (s->strict && s->after_comma)
            fail(s, 0); /* a trailing comma */
        else
            close_container(s);
    } else if (c == '"' || c == '\'') {
        s->key_len = 0;
        s->key_cut = 0;
        if (s->key_full != NULL)
            common_dynbuf_reset(s->key_full);
        begin_string(s, c, 1);
        if (s->state == S_STRING) {
            s->pos++;
            read_string_run(s);
            return;
        }
    } else {
        fail(s, 0);
    }
    s->pos++;
}

/* The byte after a ':' or a ',' when it starts the next token at once
 * (no space, no comment): 1, with it in *c; 0 otherwise (the next step
 * reads it). */
static int token_follows(const common_json_stream *s, unsigned char *c)
{
    if (s->pos == s->end)
        return 0;
    *c = (unsigned char)*s->pos;
    return *c > ' ' && *c != '/';
}

/* One step: read from s->pos (at least one byte, or a state change).  The
 * ':' and ',' between tokens go on to the token after them in the same
 * step (the common case of JSON without spaces). */
static void step(common_json_stream *s)
{
    unsigned char c = (unsigned char)*s->pos;
    int taken = 1;
    /* Between tokens, most bytes are neither space nor a comment: one
     * comparison for them, here rather than in each of those states. */
    if (s->state <= S_AFTER && (c <= ' ' || c == '/') && skip_space(s, c)) {
        s->pos++;
        return;
    }
    switch ((lex_state)s->state) {
    case S_VALUE:
        value_step(s, c);
        return;
    case S_KEY:
        key_step(s, c);
        return;
    case S_COLON:
        if (c != ':') {
            fail(s, 0);
            break;
        }
        s->state = S_VALUE;
        s->pos++;
        if (token_follows(s, &c))
            value_step(s, c);
        return;
    case S_AFTER:
        if (s->open == 0) {
            s->state = S_TRAILER;
            taken = 0;
        } else if (c == ',') {
            int in_object = s->closer[s->open - 1] == '}';
            s->state = in_object ? S_KEY : S_VALUE;
            s->after_comma = 1;
            s->pos++;
            if (token_follows(s, &c)) {
                if (in_object)
                    key_step(s, c);
                else
                    value_step(s, c);
            }
            return;
        } else if (c == (unsigned char)s->closer[s->open - 1]) {
            close_container(s);
        } else {
            fail(s, 0);
        }
        break;
    case S_STRING:
        read_string_run(s);
        return;
    case S_ESCAPE: {
        static const char letters[] = "\"\\/bnrtf", values[] = "\"\\/\b\n\r\t\f";
        const char *at = c != '\0' ? strchr(letters, c) : NULL;
        if (c == 'u') {
            s->unicode = 0;
            s->unicode_digits = 0;
            s->state = S_UNICODE;
        } else if (at != NULL) {
            emit_code_point(s, (unsigned char)values[at - letters]);
            s->state = S_STRING;
        } else {
            fail(s, 0);
        }
        break;
    }
    case S_UNICODE: {
        int digit = common_hex_digit((char)c);
        if (digit < 0) {
            fail(s, 0);
            break;
        }
        s->unicode = s->unicode << 4 | (unsigned)digit;
        if (++s->unicode_digits == 4)
            end_unicode_escape(s);
        break;
    }
    case S_LOW_SLASH:
    case S_LOW_U:
        if (c == (s->state == S_LOW_SLASH ? '\\' : 'u')) {
            s->state = s->state == S_LOW_SLASH ? S_LOW_U : S_UNICODE;
            s->unicode = 0;
            s->unicode_digits = 0;
            break;
        }
        /* No low half: the high one reads as U+FFFD, and c as it would have. */
        s->high_surrogate = 0;
        if (lone_surrogate(s) != 0)
            break;
        s->state = s->state == S_LOW_SLASH ? S_STRING : S_ESCAPE;
        taken = 0;
        break;
    case S_NUMBER:
        read_number(s);
        return;
    case S_WORD:
        taken = read_word(s, c);
        break;
    case S_COMMENT_OPEN:
        if (c == '*')
            s->state = S_COMMENT;
        else if (c == '/')
            s->state = S_LINE_COMMENT;
        else
            fail(s, 0);
        break;
    case S_COMMENT:
    case S_LINE_COMMENT: {
        char close = s->state == S_COMMENT ? '*' : '\n';
        const char *q = s->pos;
        while (q < s->end && *q != close && *q != '\0')
            q++;
        s->pos = q;
        if (q == s->end)
            return;
        if (*q == '\0')
            fail(s, 0);
        else
            s->state = s->state == S_COMMENT ? S_COMMENT_STAR : s->resume;
        break;
    }
    case S_COMMENT_STAR:
        /* json-c reads the byte after a '*' only as a possible '/': in
         * "**" + "/" the second '*' does not start a new end. */
        if (c == '/')
            s->state = s->resume;
        else if (c == '\0')
            fail(s, 0);
        else
            s->state = S_COMMENT;
        break;
    case S_TRAILER:
        if (s->strict ? !is_json_space(c) : !is_trailing_space(c))
            fail(s, 0);
        break;
    case S_FAILED:
        s->pos = s->end;
        return;
    }
    if (taken)
        s->pos++;
}

/* ------------------------------------------------------------ interface */

void common_json_stream_init(common_json_stream *s)
{
    memset(s, 0, sizeof *s);
    s->state = S_VALUE;
    s->failed_at = SIZE_MAX;
}

void common_json_stream_feed(common_json_stream *s, const char *data, size_t len)
{
    s->total = len > SIZE_MAX - s->total ? SIZE_MAX : s->total + len;
    if (!s->saw_nul && len > 0 && memchr(data, '\0', len) != NULL)
        s->saw_nul = 1;
    s->pos = data;
    s->end = data + len;
}

common_json_event common_json_stream_next(common_json_stream *s)
{
    s->event = COMMON_JSON_EVENT_NONE;
    while (s->event == COMMON_JSON_EVENT_NONE && s->pos < s->end && !s->out_of_memory)
        step(s);
    return s->event;
}

int64_t common_json_stream_int64(const common_json_stream *s)
{
    if (s->negative)
        return s->magnitude >= MAGNITUDE_LIMIT ? INT64_MIN : -(int64_t)s->magnitude;
    return s->magnitude > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)s->magnitude;
}

int common_json_stream_int(const common_json_stream *s, int *out)
{
    int64_t v = common_json_stream_int64(s);
    if (v < INT_MIN || v > INT_MAX)
        return 0;
    *out = (int)v;
    return 1;
}

common_json_outcome common_json_stream_end(const common_json_stream *s)
{
    if (s->saw_nul || s->total > INT_MAX)
        return COMMON_JSON_NOT_JSON;
    if ((s->state == S_AFTER && s->open == 0) || s->state == S_TRAILER)
        return COMMON_JSON_COMPLETE;
    return s->state == S_FAILED && s->too_deep ? COMMON_JSON_DEEP : COMMON_JSON_NOT_JSON;
}
