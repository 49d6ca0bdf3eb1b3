/* common/json_escape: clean text written as a JSON string's characters is
 * read back by json-c (the strict parser of the daemon's peers) as the
 * same bytes, for every escape class at every place of the blocks both
 * scans (sixteen bytes with SSE2, eight in a word) step over; a NUL or
 * ill-formed UTF-8 anywhere is not clean text; characters that would not
 * fit the room given are refused, however near its end they fall.  The
 * daemon's quick check of a string's characters (json_unescape.h) passes
 * all the escape writes and refuses what the strict lexer would, or leaves
 * it to that lexer (a surrogate escape). */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/json_escape.h"
#include "common/json_unescape.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

typedef size_t escape_fn(const char *text, size_t len, char *out, size_t cap);

/* Both scans: the one common_json_escape picks and the word one. */
static escape_fn *const scans[] = {common_json_escape, common_json_escape_words};
#define SCANS (sizeof scans / sizeof scans[0])

/* Escape `len` bytes of `text` with `escape` given room for six
 * characters a byte (the most any byte takes), parse the string back with
 * json-c and check the bytes are the same; returns the characters
 * written, which fit exactly that room and not one less. */
static size_t round_trip_with(escape_fn *escape, const char *text, size_t len)
{
    char *json = malloc(6 * len + 3);
    CU_ASSERT_FATAL(json != NULL);
    json[0] = '"';
    size_t n = escape(text, len, json + 1, 6 * len);
    CU_ASSERT_FATAL(n != (size_t)-1);
    json[n + 1] = '"';
    json[n + 2] = '\0';
    for (size_t i = 1; i <= n; i++)
        CU_ASSERT((unsigned char)json[i] >= 0x20); /* no raw control character */
    CU_ASSERT(common_json_chars_are_clean(json + 1, n));
    json_object *o = json_tokener_parse(json);
    CU_ASSERT_FATAL(o != NULL && json_object_is_type(o, json_type_string));
    CU_ASSERT_EQUAL((size_t)json_object_get_string_len(o), len);
    CU_ASSERT(memcmp(json_object_get_string(o), text, len) == 0);
    json_object_put(o);
    CU_ASSERT_EQUAL(escape(text, len, json, n), n);
    if (n > 0)
        CU_ASSERT_EQUAL(escape(text, len, json, n - 1), (size_t)-1);
    free(json);
    return n;
}

/* round_trip_with for both scans, which must agree. */
static size_t round_trip(const char *text, size_t len)
{
    size_t n = round_trip_with(scans[0], text, len);
    for (size_t s = 1; s < SCANS; s++)
        CU_ASSERT_EQUAL(round_trip_with(scans[s], text, len), n);
    return n;
}

static void test_each_escape_class_reads_back_as_its_bytes(void)
{
    static const char text[] = "quote \" backslash \\ slash / \b\f\n\r\t \x01\x1f\x7f"
                               " U+2028 \xE2\x80\xA8 U+2029 \xE2\x80\xA9 e \xC3\xA9"
                               " euro \xE2\x82\xAC emoji \xF0\x9F\x98\x80 end";
    round_trip(text, sizeof text - 1);
    CU_ASSERT_EQUAL(round_trip("a\"b", 3), 4);
    CU_ASSERT_EQUAL(round_trip("\n", 1), 2);
    CU_ASSERT_EQUAL(round_trip("\x01", 1), 6);
    CU_ASSERT_EQUAL(round_trip("\xF0\x9F\x98\x80", 4), 4);
    CU_ASSERT_EQUAL(round_trip("", 0), 0);
    CU_ASSERT_EQUAL(round_trip("plain text longer than a word", 29), 29);
}

/* Every byte value in every place of two blocks, between plain letters:
 * neither scan lets one through that needs a look. */
static void test_every_byte_in_every_place_of_a_block(void)
{
    char text[40];
    for (int b = 1; b < 0x80; b++) {
        for (size_t at = 0; at < 32; at++) {
            memset(text, 'a', sizeof text);
            text[at] = (char)b;
            round_trip(text, sizeof text);
        }
    }
    static const char *const multibyte[] = {"\xC3\xA9", "\xE2\x80\xA8", "\xF0\x9F\x98\x80"};
    for (size_t m = 0; m < 3; m++) {
        for (size_t at = 0; at < 32; at++) {
            memset(text, 'a', sizeof text);
            memcpy(text + at, multibyte[m], strlen(multibyte[m]));
            round_trip(text, sizeof text);
        }
    }
}

static void test_nul_or_ill_formed_utf8_is_not_clean_text(void)
{
    static const char *const bad[] = {
        "aaaaaaaaaaaaaaa\x00", "aaaaaaa\xFF" "aaaaaaaa", "aaaaaaaaaaaaaaa\xC3",
        "\xC0\xAF" "aaaaaaaaaaaaaa", "aaaaaaaa\xED\xA0\x80" "aaaaa", "aaaaaaaaa\x80" "aaaaaa",
    };
    char out[6 * 40];
    for (size_t s = 0; s < SCANS; s++) {
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            CU_ASSERT_EQUAL(scans[s](bad[i], 16, out, sizeof out), (size_t)-1);
        /* past a whole block of plain text too */
        char text[40];
        memset(text, 'a', sizeof text);
        text[35] = '\0';
        CU_ASSERT_EQUAL(scans[s](text, sizeof text, out, sizeof out), (size_t)-1);
    }
}

/* Plain text and escapes against every room short of their characters:
 * the scans never write past the room, and refuse. */
static void test_characters_past_the_room_are_refused(void)
{
    char text[48];
    memset(text, 'a', sizeof text);
    text[20] = '\n';                   /* 2 characters */
    memcpy(text + 30, "\xE2\x82\xAC", 3); /* a character of 3 bytes */
    const size_t need = sizeof text + 1;
    char out[64];
    for (size_t s = 0; s < SCANS; s++) {
        for (size_t cap = 0; cap < need; cap++) {
            memset(out, '#', sizeof out);
            CU_ASSERT_EQUAL(scans[s](text, sizeof text, out, cap), (size_t)-1);
            for (size_t i = cap; i < sizeof out; i++)
                CU_ASSERT_EQUAL(out[i], '#');
        }
        CU_ASSERT_EQUAL(scans[s](text, sizeof text, out, need), need);
    }
}

/* Each fault at every place of two blocks of plain characters. */
static void test_the_quick_check_refuses_what_is_not_clean(void)
{
    static const char *const faults[] = {
        "\x01", "\x1f", "\"", "\\", "\\x", "\\u0g", "\\u12g4", "\\u0000",
        "\\ud83d\\ude00", "\\udc00", "\xC3", "\xFF", "\xED\xA0\x80", "\xC0\xAF",
    };
    char text[48];
    for (size_t f = 0; f < sizeof faults / sizeof faults[0]; f++) {
        size_t k = strlen(faults[f]);
        for (size_t at = 0; at + k <= sizeof text; at++) {
            memset(text, 'a', sizeof text);
            memcpy(text + at, faults[f], k);
            CU_ASSERT_FALSE(common_json_chars_are_clean(text, sizeof text));
            /* cut just after it: a backslash or a character cut at the end */
            CU_ASSERT_FALSE(common_json_chars_are_clean(text, at + 1));
        }
    }
    static const char good[] = "plain \\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u0001 \\u00e9 \\uFFFD"
                               " \xC3\xA9 \xF0\x9F\x98\x80 and more plain text past a block";
    CU_ASSERT(common_json_chars_are_clean(good, sizeof good - 1));
    CU_ASSERT(common_json_chars_are_clean("", 0));
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"each escape class reads back as its bytes",
         test_each_escape_class_reads_back_as_its_bytes},
        {"every byte in every place of a block", test_every_byte_in_every_place_of_a_block},
        {"NUL or ill-formed UTF-8 is not clean text",
         test_nul_or_ill_formed_utf8_is_not_clean_text},
        {"characters past the room are refused", test_characters_past_the_room_are_refused},
        {"the quick check refuses what is not clean",
         test_the_quick_check_refuses_what_is_not_clean},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("json escape", NULL, NULL, tests);
}
