/* The validating one-pass JSON scanner (see remote_json_scan.h).  Iterative, with
 * a fixed stack of open containers, so hostile nesting costs no recursion. */
#include <config.h>

#include "plugin/remote/remote_json_scan.h"

#include "common/utf8.h"

#include <string.h>

/* json-c's default depth: 32 nested containers are accepted when the
 * innermost is empty; a value inside the 32nd, or a 33rd, is refused. */
#define REMOTE_JSON_SCAN_MAX_DEPTH 32

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The value of the 4 hex digits at p (end - p >= 4), or -1. */
static long hex4(const char *p)
{
    long value = 0;
    for (int i = 0; i < 4; i++) {
        int digit = hex_value(p[i]);
        if (digit < 0)
            return -1;
        value = value << 4 | digit;
    }
    return value;
}

/* The bytes that end a run of plain string characters: control
 * characters (refused), the quote and the backslash. */
static const unsigned char string_stop[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ['"'] = 1, ['\\'] = 1,
};

/* p at an opening quote: just past the closing quote, or NULL. */
static const char *scan_string(const char *p, const char *end)
{
    const unsigned char *u;
    for (p++;; p++) {
        /* Four bytes a step while none of them stops the run. */
        for (u = (const unsigned char *)p; end - p >= 4; p += 4, u += 4)
            if (string_stop[u[0]] | string_stop[u[1]] | string_stop[u[2]] | string_stop[u[3]])
                break;
        while (p < end && !string_stop[(unsigned char)*p])
            p++;
        if (p == end || *p != '\\')
            return p < end && *p == '"' ? p + 1 : NULL;
        if (++p == end)
            return NULL;
        if (*p == 'u') {
            if (end - p < 5 || hex4(p + 1) < 0)
                return NULL;
            p += 4;
        } else if (strchr("\"\\/bfnrt", *p) == NULL || *p == '\0') {
            return NULL;
        }
    }
}

static const char *scan_digits(const char *p, const char *end)
{
    const char *start = p;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p == start ? NULL : p;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static const char *scan_number(const char *p, const char *end)
{
    if (*p == '-')
        p++;
    if (p < end && *p == '0')
        p++;
    else if ((p = scan_digits(p, end)) == NULL)
        return NULL;
    if (p < end && *p == '.' && (p = scan_digits(p + 1, end)) == NULL)
        return NULL;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        p = scan_digits(p, end);
    }
    return p;
}

static const char *scan_word(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - p) >= n && memcmp(p, word, n) == 0 ? p + n : NULL;
}

/* p at a string, number or literal: just past it, or NULL. */
static const char *scan_scalar(const char *p, const char *end)
{
    switch (*p) {
    case '"': return scan_string(p, end);
    case 't': return scan_word(p, end, "true");
    case 'f': return scan_word(p, end, "false");
    case 'n': return scan_word(p, end, "null");
    default:
        return *p == '-' || (*p >= '0' && *p <= '9') ? scan_number(p, end) : NULL;
    }
}

typedef enum { EXPECT_VALUE, EXPECT_KEY, AFTER_VALUE } scan_state;

int remote_json_scan_object_members(const char *text, size_t len, const char *const *keys,
                                    size_t count, remote_json_scanned_member *members)
{
    static const remote_json_scanned_member absent = { .state = COMMON_JSON_ABSENT };
    for (size_t i = 0; i < count; i++)
        members[i] = absent;
    const char *end = text + len;
    const char *p = skip_space(text, end);
    if (p == end || *p != '{' || count > REMOTE_JSON_SCAN_MAX_KEYS)
        return 0;
    remote_json_scanned_member found[REMOTE_JSON_SCAN_MAX_KEYS];
    for (size_t i = 0; i < count; i++)
        found[i] = absent;
    char closer[REMOTE_JSON_SCAN_MAX_DEPTH]; /* what closes each open container */
    size_t depth = 0;
    size_t wanted = count; /* whose value is about to be read: keys[wanted], or none */
    scan_state state = EXPECT_VALUE;
    for (;;) {
        p = skip_space(p, end);
        if (state == AFTER_VALUE && depth == 0)
            break;
        if (p == end)
            return 0;
        /* json-c refuses any value, scalar or not, inside the innermost
         * container it allows: only an empty one may be that deep. */
        if (state == EXPECT_VALUE && depth == REMOTE_JSON_SCAN_MAX_DEPTH)
            return 0;
        if (state == EXPECT_VALUE && (*p == '{' || *p == '[')) {
            if (wanted < count)
                found[wanted].state = COMMON_JSON_WRONG_TYPE;
            wanted = count;
            closer[depth++] = *p == '{' ? '}' : ']';
            p = skip_space(p + 1, end);
            if (p < end && *p == closer[depth - 1]) {
                depth--;
                p++;
                state = AFTER_VALUE;
            } else {
                state = closer[depth - 1] == '}' ? EXPECT_KEY : EXPECT_VALUE;
            }
        } else if (state == EXPECT_VALUE) {
            const char *value_end = scan_scalar(p, end);
            if (value_end == NULL)
                return 0;
            if (wanted < count) {
                remote_json_scanned_member *f = &found[wanted];
                f->state = *p == '"' ? COMMON_JSON_OK
                         : *p == 'n' ? COMMON_JSON_NULL : COMMON_JSON_WRONG_TYPE;
                f->raw = *p == '"' ? p + 1 : NULL;
                f->raw_len = *p == '"' ? (size_t)(value_end - p - 2) : 0;
            }
            wanted = count;
            p = value_end;
            state = AFTER_VALUE;
        } else if (state == EXPECT_KEY) {
            const char *key_end = *p == '"' ? scan_string(p, end) : NULL;
            if (key_end == NULL)
                return 0;
            wanted = count;
            for (size_t i = 0; depth == 1 && i < count && wanted == count; i++)
                if (remote_json_scanned_string_equals(p + 1, (size_t)(key_end - p - 2), keys[i]))
                    wanted = i;
            p = skip_space(key_end, end);
            if (p == end || *p != ':')
                return 0;
            p++;
            state = EXPECT_VALUE;
        } else if (*p == ',') {
            p++;
            state = closer[depth - 1] == '}' ? EXPECT_KEY : EXPECT_VALUE;
        } else if (*p == closer[depth - 1]) {
            depth--;
            p++;
        } else {
            return 0;
        }
    }
    if (p != end)
        return 0;
    for (size_t i = 0; i < count; i++)
        members[i] = found[i];
    return 1;
}

int remote_json_scan_object_member(const char *text, size_t len, const char *key,
                                   remote_json_scanned_member *member)
{
    return remote_json_scan_object_members(text, len, &key, 1, member);
}

/* The UTF-8 bytes of code point cp (1 .. 0x10FFFF) into out; their count. */
static size_t utf8_encode(long cp, unsigned char out[4])
{
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decode the escape at p (just past its backslash) into out; the bytes it
 * stands for (0: an escaped NUL, a lone surrogate or a malformed escape)
 * and *next past it. */
static size_t decode_escape(const char *p, const char *end, unsigned char out[4],
                            const char **next)
{
    static const char letters[] = "\"\\/bfnrt";
    static const char values[] = "\"\\/\b\f\n\r\t";
    if (p == end)
        return 0;
    if (*p != 'u') {
        const char *at = *p != '\0' ? strchr(letters, *p) : NULL;
        if (at == NULL)
            return 0;
        out[0] = (unsigned char)values[at - letters];
        *next = p + 1;
        return 1;
    }
    long cp = end - p >= 5 ? hex4(p + 1) : -1;
    p += 5;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        long low = end - p >= 6 && p[0] == '\\' && p[1] == 'u' ? hex4(p + 2) : -1;
        if (low < 0xDC00 || low > 0xDFFF)
            return 0;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        p += 6;
    } else if (cp <= 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) {
        return 0;
    }
    *next = p;
    return utf8_encode(cp, out);
}

int remote_json_scanned_string_equals(const char *raw, size_t raw_len, const char *expected)
{
    const char *p = raw, *end = raw + raw_len;
    const unsigned char *want = (const unsigned char *)expected;
    while (p < end) {
        if (*p != '\\') {
            if (*want == '\0' || (unsigned char)*p != *want)
                return 0;
            p++;
            want++;
            continue;
        }
        unsigned char bytes[4];
        size_t n = decode_escape(p + 1, end, bytes, &p);
        if (n == 0)
            return 0;
        for (size_t i = 0; i < n; i++, want++)
            if (*want == '\0' || bytes[i] != *want)
                return 0;
    }
    return *want == '\0';
}

int remote_json_scanned_string_is_clean(const char *raw, size_t raw_len)
{
    const char *p = raw, *end = raw + raw_len;
    while (p < end) {
        /* A run of raw bytes ends only at an ASCII backslash, which never
         * sits inside a UTF-8 sequence, so each run is checked whole. */
        const char *run = p;
        while (p < end && *p != '\\')
            p++;
        if (!common_text_is_clean(run, (size_t)(p - run)))
            return 0;
        unsigned char bytes[4];
        if (p < end && decode_escape(p + 1, end, bytes, &p) == 0)
            return 0;
    }
    return 1;
}
