/*
 * A validating one-pass JSON scanner for answers of which only one
 * top-level string is wanted (is_alive reads "status"): the shared
 * streaming lexer (common/json_stream.h, strict mode) reads the text; no
 * objects are built, nothing is allocated.  Pure functions of the text;
 * thread-safe.
 *
 * It accepts exactly RFC 8259 JSON nested as deep as json-c accepts (a
 * value inside at most 31 containers, so 32 only when the innermost is
 * empty) and refuses json-c's extensions (comments, single-quoted
 * strings, NaN/Infinity, trailing commas, leading zeros, raw control
 * characters in strings), so it never accepts an answer the json-c
 * decoders would refuse.
 */
#ifndef SBX_REMOTE_JSON_SCAN_H
#define SBX_REMOTE_JSON_SCAN_H

#include <stddef.h>

#include "common/json_fields.h"

/* A top-level member as the scanner found it. */
typedef struct remote_json_scanned_member {
    common_json_field state;  /* ABSENT, NULL, OK (a string) or WRONG_TYPE (another type) */
    const char *raw;       /* OK: the string's bytes between its quotes, escapes as sent */
    size_t raw_len;
} remote_json_scanned_member;

/* 1 when text[0..len) is one JSON object (whitespace around it allowed),
 * with *member describing its top-level member `key` (the last one when
 * the key repeats, as json-c keeps it; keys compare after unescaping);
 * 0 when the text is not JSON or not an object (*member then ABSENT).
 * `raw` points into `text`. */
int remote_json_scan_object_member(const char *text, size_t len, const char *key,
                                   remote_json_scanned_member *member);

/* The most members one scan looks for. */
#define REMOTE_JSON_SCAN_MAX_KEYS 4

/* remote_json_scan_object_member for `count` (at most REMOTE_JSON_SCAN_MAX_KEYS)
 * distinct keys in one pass: members[i] describes keys[i]. */
int remote_json_scan_object_members(const char *text, size_t len, const char *const *keys,
                                    size_t count, remote_json_scanned_member *members);

/* 1 when the string bytes `raw` (as found by the scanner: escapes valid)
 * decode to exactly the NUL-free UTF-8 text `expected`, else 0; an escaped
 * NUL or a lone surrogate never matches. */
int remote_json_scanned_string_equals(const char *raw, size_t raw_len, const char *expected);

/* 1 when the string bytes `raw` (as found by the scanner) decode to UTF-8
 * text without NUL: no escaped NUL, no lone surrogate, no invalid raw
 * bytes (common/utf8.h); else 0. */
int remote_json_scanned_string_is_clean(const char *raw, size_t raw_len);

#endif /* SBX_REMOTE_JSON_SCAN_H */
