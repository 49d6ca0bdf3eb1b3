/* The validating one-pass JSON scanner (see remote_json_scan.h): the shared
 * streaming lexer (common/json_stream.h) in its strict mode reads the
 * text; this file only picks the wanted members out of its events. */
#include <config.h>

#include "plugin/remote/remote_json_scan.h"

#include "common/hex_digit.h"
#include "common/json_stream.h"
#include "common/utf8.h"

#include <string.h>

/* The index of the wanted key the stream's KEY event names, or count.
 * A strict stream keeps an escaped NUL in `key`, so "status\u0000x" is
 * no "status"; a key longer than COMMON_JSON_STREAM_KEY_MAX matches none. */
static size_t wanted_key(const common_json_stream *s, const char *const *keys, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (s->key_len == strlen(keys[i]) && memcmp(s->key, keys[i], s->key_len) == 0)
            return i;
    return count;
}

int remote_json_scan_object_members(const char *text, size_t len, const char *const *keys,
                                    size_t count, remote_json_scanned_member *members)
{
    static const remote_json_scanned_member absent = { .state = COMMON_JSON_ABSENT };
    for (size_t i = 0; i < count; i++)
        members[i] = absent;
    if (count > REMOTE_JSON_SCAN_MAX_KEYS)
        return 0;
    remote_json_scanned_member found[REMOTE_JSON_SCAN_MAX_KEYS];
    for (size_t i = 0; i < count; i++)
        found[i] = absent;
    common_json_stream s;
    common_json_stream_init(&s);
    s.strict = 1;
    s.lone_surrogates = 1;
    common_json_stream_feed(&s, text, len);
    size_t wanted = count;     /* whose value is being read: keys[wanted], or none */
    const char *string_at = NULL; /* the opening quote of the wanted string */
    common_json_event event;
    while ((event = common_json_stream_next(&s)) != COMMON_JSON_EVENT_NONE) {
        if (event == COMMON_JSON_EVENT_BEGIN && s.depth == 0 && s.kind != COMMON_JSON_KIND_OBJECT)
            return 0;
        if (event == COMMON_JSON_EVENT_KEY) {
            wanted = s.depth == 1 ? wanted_key(&s, keys, count) : count;
            continue;
        }
        if (wanted == count || s.depth != 1 || event == COMMON_JSON_EVENT_CLOSE)
            continue;
        remote_json_scanned_member *f = &found[wanted];
        if (event == COMMON_JSON_EVENT_BEGIN && s.kind == COMMON_JSON_KIND_STRING) {
            string_at = s.at;
            continue;
        }
        if (event == COMMON_JSON_EVENT_BEGIN && s.kind == COMMON_JSON_KIND_SCALAR)
            continue;
        /* A container's BEGIN, or a scalar's end. */
        *f = absent;
        f->state = event == COMMON_JSON_EVENT_SCALAR && s.kind == COMMON_JSON_KIND_STRING
                       ? COMMON_JSON_OK
                   : event == COMMON_JSON_EVENT_SCALAR && s.kind == COMMON_JSON_KIND_NULL
                       ? COMMON_JSON_NULL
                       : COMMON_JSON_WRONG_TYPE;
        if (f->state == COMMON_JSON_OK) {
            f->raw = string_at + 1;
            f->raw_len = (size_t)(s.at - string_at) - 2;
        }
        wanted = count;
    }
    if (common_json_stream_end(&s) != COMMON_JSON_COMPLETE)
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
    long cp = end - p >= 5 ? common_hex4(p + 1) : -1;
    p += 5;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        long low = end - p >= 6 && p[0] == '\\' && p[1] == 'u' ? common_hex4(p + 2) : -1;
        if (low < 0xDC00 || low > 0xDFFF)
            return 0;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        p += 6;
    } else if (cp <= 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) {
        return 0;
    }
    *next = p;
    return common_utf8_encode((unsigned long)cp, (char *)out);
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
