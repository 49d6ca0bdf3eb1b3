/* The streaming list decoder (see remote_list_stream.h).
 *
 * A byte-driven state machine that follows json-c 0.16's tokener
 * (json_tokener.c, non-strict) state for state where the two could part:
 * what ends a token, which characters it takes, when the depth limit
 * fires, and when a literal or a number is complete (only at the next
 * character, which is then read again as the start of what follows).  On
 * top of it, a few flags place each value: the root, the root's
 * "sandboxes", an entry of that array, a member of an entry. */
#include <config.h>

#include "plugin/remote/remote_list_stream.h"

#include "common/json_fields.h"
#include "common/sandbox_records.h"
#include "common/utf8.h"
#include "plugin/remote/remote_sandbox_rules.h"

#include <sbx/backend_support.h>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* json-c's default depth: a value may sit inside at most 31 containers, so
 * a 32nd may be open only while empty. */
#define MAX_OPEN 32

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

/* The type a completed scalar has in json-c. */
typedef enum value_type { V_STRING, V_INT, V_DOUBLE, V_BOOL, V_NULL, V_CONTAINER } value_type;

/* The states of strtod's grammar over the bytes a json-c number takes:
 * -?(digits(.digits*)?|.digits)([eE][+-]?digits)? */
enum { D_START, D_SIGN, D_INT, D_DOT, D_FRAC, D_E, D_ESIGN, D_EXP, D_DEAD };

typedef enum root_kind { ROOT_NONE, ROOT_OBJECT, ROOT_NULL, ROOT_OTHER } root_kind;
typedef enum sandboxes_kind { SANDBOXES_ABSENT, SANDBOXES_ARRAY, SANDBOXES_OTHER } sandboxes_kind;

typedef struct text_buffer {
    char *data;
    size_t len, cap;
} text_buffer;

struct remote_list_stream {
    lex_state state;
    lex_state resume;          /* the state a comment returns to */
    int too_deep;              /* S_FAILED by json-c's depth limit */
    int out_of_memory;
    int saw_nul;               /* a NUL byte anywhere: not JSON (common_json_parse) */
    size_t total;              /* bytes fed (saturating) */
    unsigned open;             /* containers open */
    char closer[MAX_OPEN];     /* '}' or ']' of each */

    /* the string being read */
    char quote;                /* '"' or '\'' */
    int in_key;
    unsigned unicode;          /* \u: the value so far */
    int unicode_digits;
    unsigned high_surrogate;   /* a \uD8xx waiting for its low half, or 0 */
    text_buffer *target;       /* where the value's bytes go, or NULL */
    int key_wanted;            /* the key is one of those looked for */
    char key[REMOTE_FIELD_NAME_MAX + 1];
    size_t key_len;            /* up to REMOTE_FIELD_NAME_MAX + 1 (too long) */
    int key_cut;               /* an escaped NUL ended the key (json-c cuts keys there) */

    /* the number or literal being read */
    int num_dfa, num_anchor_ok, num_double, num_exponent, num_neg_ok, num_pos_ok;
    int num_negative;
    size_t num_len;            /* bytes taken, saturating at 2 */
    uint64_t num_magnitude;    /* saturating above INT_MAX + 1 */
    const char *word;          /* lower-case spelling of the literal */
    size_t word_len, word_pos;
    value_type word_type;

    /* where the values are */
    root_kind root;
    int pending_sandboxes;     /* the root's next member value is its "sandboxes" */
    sandboxes_kind sandboxes;  /* the last "sandboxes" seen */
    int in_entries;            /* the array at level 1 is that "sandboxes" */
    int in_entry;              /* the object at level 2 is one of its entries */
    int pending_field;         /* the entry's next member value is this field, or -1 */
    int value_field;           /* the scalar being read is this field, or -1 */
    size_t entry_index;        /* entries of the current "sandboxes" so far */
    size_t entry;              /* the index of the open entry */
    common_json_field field_state[REMOTE_FIELD_COUNT];
    int version;
    text_buffer field[REMOTE_FIELD_VERSION];

    common_sandbox_list records;
    text_buffer skipped;       /* per skipped entry: varint index gap, problem byte */
    size_t next_unskipped;     /* the index a gap of 0 names */
};

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

static void fail(remote_list_stream *s, int too_deep)
{
    s->state = S_FAILED;
    s->too_deep = too_deep;
}

/* Make room for `more` bytes and a NUL after them. */
static int reserve(remote_list_stream *s, text_buffer *b, size_t more)
{
    if (b->cap - b->len > more)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap - b->len <= more) {
        if (cap > SIZE_MAX / 2) {
            s->out_of_memory = 1;
            return -1;
        }
        cap *= 2;
    }
    char *grown = realloc(b->data, cap);
    if (grown == NULL) {
        s->out_of_memory = 1;
        return -1;
    }
    b->data = grown;
    b->cap = cap;
    return 0;
}

static void append(remote_list_stream *s, text_buffer *b, const char *bytes, size_t n)
{
    if (reserve(s, b, n) == 0) {
        memcpy(b->data + b->len, bytes, n);
        b->len += n;
    }
}

/* Bytes of the string being read: into the key (as json-c keeps it: up to
 * the first NUL) or into the value's buffer. */
static void emit(remote_list_stream *s, const char *bytes, size_t n)
{
    if (s->in_key) {
        if (!s->key_wanted || s->key_cut)
            return;
        for (size_t i = 0; i < n; i++) {
            if (bytes[i] == '\0') {
                s->key_cut = 1;
                return;
            }
            if (s->key_len <= REMOTE_FIELD_NAME_MAX)
                s->key[s->key_len++] = bytes[i];
        }
    } else if (s->target != NULL) {
        append(s, s->target, bytes, n);
    }
}

static void emit_code_point(remote_list_stream *s, unsigned cp)
{
    char out[4];
    size_t n;
    if (cp < 0x80) {
        out[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        out[0] = (char)(0xF0 | (cp >> 18));
        out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    emit(s, out, n);
}

#define REPLACEMENT_CHARACTER 0xFFFDu

/* ------------------------------------------------------------ the records */

static void drop_entries(remote_list_stream *s)
{
    common_sandbox_records_free(s->records.items, s->records.count);
    memset(&s->records, 0, sizeof s->records);
    s->skipped.len = 0;
    s->next_unskipped = 0;
    s->entry_index = 0;
}

static void note_skipped(remote_list_stream *s, size_t index, remote_problem problem)
{
    unsigned char bytes[sizeof(size_t) * 8 / 7 + 2];
    size_t n = 0, gap = index - s->next_unskipped;
    do {
        bytes[n++] = (unsigned char)((gap & 0x7F) | (gap > 0x7F ? 0x80 : 0));
        gap >>= 7;
    } while (gap > 0);
    bytes[n++] = problem;
    append(s, &s->skipped, (const char *)bytes, n);
    s->next_unskipped = index + 1;
}

static void begin_entry(remote_list_stream *s)
{
    s->in_entry = 1;
    s->entry = s->entry_index++;
    for (int i = 0; i < REMOTE_FIELD_COUNT; i++)
        s->field_state[i] = COMMON_JSON_ABSENT;
}

/* The open entry closed: a record, or a note of why it is skipped. */
static void end_entry(remote_list_stream *s)
{
    s->in_entry = 0;
    remote_fields f;
    memset(&f, 0, sizeof f);
    for (int i = 0; i < REMOTE_FIELD_COUNT; i++)
        f.state[i] = s->field_state[i];
    for (int i = 0; i < REMOTE_FIELD_VERSION; i++)
        if (f.state[i] == COMMON_JSON_OK)
            f.text[i] = s->field[i].data;
    f.version = f.state[REMOTE_FIELD_VERSION] == COMMON_JSON_OK ? s->version : SBX_CONTRACT_NONE;
    remote_problem problem = remote_check_fields(&f);
    if (problem != 0) {
        note_skipped(s, s->entry, problem);
        return;
    }
    sbx_error err;
    sbx_sandbox *record = common_sandbox_list_append(&s->records, &err);
    if (record == NULL ||
        common_sandbox_record_fill(record, f.text[REMOTE_FIELD_ID], f.text[REMOTE_FIELD_URL],
                                   f.text[REMOTE_FIELD_USER], f.text[REMOTE_FIELD_THREAD],
                                   f.text[REMOTE_FIELD_STATUS], f.version, &err) != SBX_OK) {
        if (record != NULL)
            common_sandbox_list_drop_last(&s->records);
        s->out_of_memory = 1;
    }
}

/* ------------------------------------------------------------ where values are */

/* A value begins at the current level (containers: before they open). */
static void value_begins(remote_list_stream *s, value_type type)
{
    s->value_field = -1;
    switch (s->open) {
    case 0:
        if (type == V_CONTAINER)
            s->root = s->closer[0] == '}' ? ROOT_OBJECT : ROOT_OTHER;
        break;
    case 1:
        if (!s->pending_sandboxes)
            break;
        s->pending_sandboxes = 0;
        drop_entries(s);
        s->sandboxes = type == V_CONTAINER && s->closer[1] == ']' ? SANDBOXES_ARRAY
                                                                  : SANDBOXES_OTHER;
        s->in_entries = s->sandboxes == SANDBOXES_ARRAY;
        break;
    case 2:
        if (!s->in_entries)
            break;
        if (type == V_CONTAINER && s->closer[2] == '}')
            begin_entry(s);
        else
            note_skipped(s, s->entry_index++, REMOTE_NOT_OBJECT);
        break;
    case 3:
        if (!s->in_entry || s->pending_field < 0)
            break;
        if (type == V_CONTAINER)
            s->field_state[s->pending_field] = COMMON_JSON_WRONG_TYPE;
        else
            s->value_field = s->pending_field;
        s->pending_field = -1;
        break;
    default:
        break;
    }
}

/* A scalar of `type` is complete (a string's bytes are in s->target). */
static void value_ends(remote_list_stream *s, value_type type)
{
    if (s->open == 0) {
        s->root = type == V_NULL ? ROOT_NULL : ROOT_OTHER;
        return;
    }
    int i = s->value_field;
    if (i < 0)
        return;
    s->value_field = -1;
    common_json_field state = COMMON_JSON_WRONG_TYPE;
    if (type == V_NULL) {
        state = COMMON_JSON_NULL;
    } else if (i == REMOTE_FIELD_VERSION) {
        if (type == V_INT && s->num_magnitude <= (s->num_negative ? (uint64_t)INT_MAX + 1
                                                                  : (uint64_t)INT_MAX)) {
            state = COMMON_JSON_OK;
            s->version = s->num_negative ? (int)-(int64_t)s->num_magnitude
                                         : (int)s->num_magnitude;
        }
    } else if (type == V_STRING) {
        text_buffer *b = &s->field[i];
        b->data[b->len] = '\0';
        state = common_text_is_clean(b->data, b->len) ? COMMON_JSON_OK : COMMON_JSON_BAD_TEXT;
    }
    s->field_state[i] = state;
}

/* A key is complete: is it one looked for? */
static void key_ends(remote_list_stream *s)
{
    if (!s->key_wanted)
        return;
    if (s->open == 1) {
        s->pending_sandboxes = s->key_len == 9 && memcmp(s->key, "sandboxes", 9) == 0;
    } else {
        int i = remote_field_index(s->key, s->key_len);
        s->pending_field = i < REMOTE_FIELD_COUNT ? i : -1;
    }
}

/* The innermost container closes. */
static void close_container(remote_list_stream *s)
{
    s->open--;
    if (s->open == 2 && s->in_entry)
        end_entry(s);
    else if (s->open == 1)
        s->in_entries = 0;
    s->state = S_AFTER;
}

/* ------------------------------------------------------------ tokens */

/* The bytes that end a run of plain string bytes: the quote, '\\', NUL. */
static const unsigned char double_quote_stop[256] = { [0] = 1, ['"'] = 1, ['\\'] = 1 };
static const unsigned char single_quote_stop[256] = { [0] = 1, ['\''] = 1, ['\\'] = 1 };

/* The value starting with c (already past the depth check). */
static void begin_value(remote_list_stream *s, unsigned char c)
{
    switch (c) {
    case '{':
    case '[':
        s->closer[s->open] = c == '{' ? '}' : ']';
        value_begins(s, V_CONTAINER);
        s->open++;
        s->state = c == '{' ? S_KEY : S_VALUE;
        return;
    case '"':
    case '\'':
        value_begins(s, V_STRING);
        s->quote = (char)c;
        s->in_key = 0;
        s->high_surrogate = 0;
        s->target = s->value_field >= 0 && s->value_field < REMOTE_FIELD_VERSION
                        ? &s->field[s->value_field] : NULL;
        if (s->target != NULL)
            s->target->len = 0;
        if (s->target != NULL && reserve(s, s->target, 0) != 0)
            return;
        s->state = S_STRING;
        return;
    case 't': case 'T': s->word = "true"; s->word_type = V_BOOL; break;
    case 'f': case 'F': s->word = "false"; s->word_type = V_BOOL; break;
    case 'n': case 'N': s->word = "null"; s->word_type = V_NULL; break; /* or NaN */
    case 'i': case 'I': s->word = "infinity"; s->word_type = V_DOUBLE; break;
    default:
        if (c != '-' && (c < '0' || c > '9')) {
            fail(s, 0);
            return;
        }
        value_begins(s, V_INT);
        s->num_dfa = D_START;
        s->num_anchor_ok = s->num_double = s->num_exponent = s->num_pos_ok = 0;
        s->num_neg_ok = 1;
        s->num_negative = c == '-';
        s->num_len = 0;
        s->num_magnitude = 0;
        s->state = S_NUMBER;
        return;
    }
    value_begins(s, s->word_type);
    s->word_len = strlen(s->word);
    s->word_pos = 1;
    s->state = S_WORD;
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
static void end_number(remote_list_stream *s, unsigned char c)
{
    if (s->num_negative && s->num_len == 1 && (c == 'i' || c == 'I')) {
        s->word = "infinity";
        s->word_len = 8;
        s->word_pos = 0;
        s->word_type = V_DOUBLE;
        s->state = S_WORD;
        return;
    }
    if (s->num_double ? !s->num_anchor_ok : s->num_negative && s->num_len == 1) {
        fail(s, 0);
        return;
    }
    value_ends(s, s->num_double ? V_DOUBLE : V_INT);
    s->state = S_AFTER;
}

/* Read number bytes from *p; stops at the first byte json-c does not take. */
static void read_number(remote_list_stream *s, const char **p, const char *end)
{
    const char *q = *p;
    while (q < end) {
        unsigned char c = (unsigned char)*q;
        int digit = c >= '0' && c <= '9';
        if (digit) {
            if (s->num_magnitude <= (uint64_t)INT_MAX + 1)
                s->num_magnitude = s->num_magnitude * 10 + (uint64_t)(c - '0');
        } else if (!(((c | 0x20) == 'e' && !s->num_exponent) || (c == '-' && s->num_neg_ok) ||
                     (c == '+' && s->num_pos_ok) || (c == '.' && !s->num_double))) {
            *p = q;
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
        if (c != '-' && c != '+' && (c | 0x20) != 'e')
            s->num_anchor_ok = s->num_dfa == D_INT || s->num_dfa == D_FRAC ||
                               s->num_dfa == D_EXP;
        if (s->num_len < 2)
            s->num_len++;
        q++;
    }
    *p = q;
}

/* One byte of a literal; after the last letter, the next byte (any byte)
 * completes it and is read again after the value, as json-c does. */
static int read_word(remote_list_stream *s, unsigned char c)
{
    if (s->word_pos == s->word_len) {
        value_ends(s, s->word_type);
        s->state = S_AFTER;
        return 0; /* not taken */
    }
    c = ascii_lower(c);
    if (s->word_pos == 1 && s->word_type == V_NULL && c == 'a') {
        s->word = "nan";
        s->word_len = 3;
        s->word_type = V_DOUBLE;
    }
    if (c != (unsigned char)s->word[s->word_pos]) {
        fail(s, 0);
        return 0;
    }
    s->word_pos++;
    return 1;
}

static void end_unicode_escape(remote_list_stream *s)
{
    unsigned cp = s->unicode;
    s->state = S_STRING;
    if (s->high_surrogate != 0) {
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            cp = 0x10000 + ((s->high_surrogate & 0x3FF) << 10) + (cp & 0x3FF);
        else
            emit_code_point(s, REPLACEMENT_CHARACTER);
        s->high_surrogate = 0;
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        s->high_surrogate = cp;
        s->state = S_LOW_SLASH;
    } else {
        emit_code_point(s, cp >= 0xDC00 && cp <= 0xDFFF ? REPLACEMENT_CHARACTER : cp);
    }
}

static void end_string(remote_list_stream *s)
{
    s->state = S_AFTER;
    if (s->in_key) {
        key_ends(s);
        s->state = S_COLON;
    } else {
        value_ends(s, V_STRING);
    }
}

/* Plain string bytes from *p up to the quote, a backslash or a NUL. */
static void read_string_run(remote_list_stream *s, const char **p, const char *end)
{
    const unsigned char *stop = s->quote == '"' ? double_quote_stop : single_quote_stop;
    const unsigned char *q = (const unsigned char *)*p, *e = (const unsigned char *)end;
    while (e - q >= 4 && !(stop[q[0]] | stop[q[1]] | stop[q[2]] | stop[q[3]]))
        q += 4;
    while (q < e && !stop[*q])
        q++;
    if (q != (const unsigned char *)*p)
        emit(s, *p, (size_t)((const char *)q - *p));
    *p = (const char *)q;
    if (q == e)
        return;
    if (*q == '\\')
        s->state = S_ESCAPE;
    else if (*q == '\0')
        fail(s, 0);
    else
        end_string(s);
    (*p)++;
}

/* Whitespace and comments, which json-c allows before and after every
 * token: 1 when c was one of them (taken), else 0. */
static int skip_space(remote_list_stream *s, unsigned char c)
{
    if (is_json_space(c))
        return 1;
    if (c != '/')
        return 0;
    s->resume = s->state;
    s->state = S_COMMENT_OPEN;
    return 1;
}

/* One step: read from *p (at least one byte, or a state change). */
static void step(remote_list_stream *s, const char **p, const char *end)
{
    unsigned char c = (unsigned char)**p;
    int taken = 1;
    switch (s->state) {
    case S_VALUE:
        if (skip_space(s, c))
            break;
        if (s->open > 0 && s->closer[s->open - 1] == ']' && c == ']') {
            close_container(s);
            break;
        }
        if (s->open == MAX_OPEN) {
            fail(s, 1);
            break;
        }
        begin_value(s, c);
        taken = s->state != S_NUMBER; /* read_number takes the first byte */
        break;
    case S_KEY:
        if (skip_space(s, c))
            break;
        if (c == '}') {
            close_container(s);
        } else if (c == '"' || c == '\'') {
            s->quote = (char)c;
            s->in_key = 1;
            s->high_surrogate = 0;
            s->key_wanted = (s->open == 1 && s->root == ROOT_OBJECT) ||
                            (s->open == 3 && s->in_entry);
            s->key_len = 0;
            s->key_cut = 0;
            s->state = S_STRING;
        } else {
            fail(s, 0);
        }
        break;
    case S_COLON:
        if (skip_space(s, c))
            break;
        if (c == ':')
            s->state = S_VALUE;
        else
            fail(s, 0);
        break;
    case S_AFTER:
        if (skip_space(s, c))
            break;
        if (s->open == 0) {
            s->state = S_TRAILER;
            taken = 0;
        } else if (c == ',') {
            s->state = s->closer[s->open - 1] == '}' ? S_KEY : S_VALUE;
        } else if (c == (unsigned char)s->closer[s->open - 1]) {
            close_container(s);
        } else {
            fail(s, 0);
        }
        break;
    case S_STRING:
        read_string_run(s, p, end);
        return;
    case S_ESCAPE: {
        static const char letters[] = "\"\\/bnrtf", values[] = "\"\\/\b\n\r\t\f";
        const char *at = c != '\0' ? strchr(letters, c) : NULL;
        if (c == 'u') {
            s->unicode = 0;
            s->unicode_digits = 0;
            s->state = S_UNICODE;
        } else if (at != NULL) {
            emit(s, &values[at - letters], 1);
            s->state = S_STRING;
        } else {
            fail(s, 0);
        }
        break;
    }
    case S_UNICODE: {
        unsigned lower = c | 0x20u;
        unsigned digit = c >= '0' && c <= '9'           ? c - (unsigned)'0'
                         : lower >= 'a' && lower <= 'f' ? lower - 'a' + 10u
                                                        : 16u;
        if (digit > 15) {
            fail(s, 0);
            break;
        }
        s->unicode = s->unicode << 4 | digit;
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
        emit_code_point(s, REPLACEMENT_CHARACTER);
        s->high_surrogate = 0;
        s->state = s->state == S_LOW_SLASH ? S_STRING : S_ESCAPE;
        taken = 0;
        break;
    case S_NUMBER:
        read_number(s, p, end);
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
        const char *q = *p;
        while (q < end && *q != close && *q != '\0')
            q++;
        *p = q;
        if (q == end)
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
        if (!is_trailing_space(c))
            fail(s, 0);
        break;
    case S_FAILED:
        *p = end;
        return;
    }
    if (taken)
        (*p)++;
}

/* ------------------------------------------------------------ interface */

remote_list_stream *remote_list_stream_new(void)
{
    remote_list_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->state = S_VALUE;
    s->pending_field = -1;
    s->value_field = -1;
    return s;
}

int remote_list_stream_feed(remote_list_stream *s, const char *data, size_t len)
{
    s->total = len > SIZE_MAX - s->total ? SIZE_MAX : s->total + len;
    if (!s->saw_nul && len > 0 && memchr(data, '\0', len) != NULL)
        s->saw_nul = 1;
    const char *p = data, *end = data + len;
    while (p < end && !s->out_of_memory)
        step(s, &p, end);
    return s->out_of_memory ? -1 : 0;
}

/* The warnings noted for skipped entries, in order. */
static void replay_skipped(const remote_list_stream *s, remote_warn_fn warn, void *warn_ctx)
{
    if (s->skipped.len == 0)
        return;
    size_t index = 0;
    const unsigned char *p = (const unsigned char *)s->skipped.data;
    const unsigned char *end = p + s->skipped.len;
    while (p < end) {
        size_t gap = 0;
        unsigned shift = 0;
        do {
            gap |= (size_t)(*p & 0x7F) << shift;
            shift += 7;
        } while (*p++ & 0x80);
        index += gap;
        sbx_error why;
        remote_problem_error(*p++, &why);
        remote_warn_skipped(warn, warn_ctx, index++, why.message);
    }
}

sbx_status remote_list_stream_finish(remote_list_stream *s, remote_warn_fn warn, void *warn_ctx,
                                     sbx_sandbox **out, size_t *count, sbx_error *err)
{
    *out = NULL;
    *count = 0;
    sbx_status st = SBX_OK;
    int complete = (s->state == S_AFTER && s->open == 0) || s->state == S_TRAILER;
    if (s->out_of_memory)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    else if (!complete || s->saw_nul || s->total > INT_MAX || s->root == ROOT_NULL)
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "list answer is %s",
                                   s->state == S_FAILED && s->too_deep && !s->saw_nul &&
                                   s->total <= INT_MAX
                               ? COMMON_JSON_TOO_DEEP : "not JSON");
    else if (s->root != ROOT_OBJECT)
        remote_warn_not_object(warn, warn_ctx);
    else if (s->sandboxes != SANDBOXES_ARRAY)
        remote_warn_not_array(warn, warn_ctx);
    else
        replay_skipped(s, warn, warn_ctx);
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
    for (int i = 0; i < REMOTE_FIELD_VERSION; i++)
        free(s->field[i].data);
    free(s->skipped.data);
    free(s);
}

sbx_status remote_stream_decode_list(const char *body, size_t len, remote_warn_fn warn,
                                     void *warn_ctx, sbx_sandbox **out, size_t *count,
                                     sbx_error *err)
{
    *out = NULL;
    *count = 0;
    remote_list_stream *s = remote_list_stream_new();
    if (s == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    remote_list_stream_feed(s, body, len);
    sbx_status st = remote_list_stream_finish(s, warn, warn_ctx, out, count, err);
    remote_list_stream_free(s);
    return st;
}
