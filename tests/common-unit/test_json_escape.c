/* common/json_escape: clean text written as a JSON string's characters is
 * read back by json-c (the strict parser of the daemon's peers) as the
 * same bytes, for every escape class at every place of the eight-byte
 * words the scan steps over; a NUL or ill-formed UTF-8 anywhere is not
 * clean text; the count of characters is the one written. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/json_escape.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* Escape `len` bytes of `text`, parse the string back with json-c and
 * check the bytes are the same; returns the characters written. */
static size_t round_trip(const char *text, size_t len)
{
    size_t n = common_json_escaped_len(text, len);
    CU_ASSERT_FATAL(n != (size_t)-1);
    char *json = malloc(n + 3);
    CU_ASSERT_FATAL(json != NULL);
    json[0] = '"';
    CU_ASSERT_EQUAL(common_json_escape(text, len, json + 1), n);
    json[n + 1] = '"';
    json[n + 2] = '\0';
    for (size_t i = 1; i <= n; i++)
        CU_ASSERT((unsigned char)json[i] >= 0x20); /* no raw control character */
    json_object *o = json_tokener_parse(json);
    CU_ASSERT_FATAL(o != NULL && json_object_is_type(o, json_type_string));
    CU_ASSERT_EQUAL((size_t)json_object_get_string_len(o), len);
    CU_ASSERT(memcmp(json_object_get_string(o), text, len) == 0);
    json_object_put(o);
    free(json);
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

/* Every byte value in every place of a word, between plain letters: the
 * eight-byte test never lets one through that needs a look. */
static void test_every_byte_in_every_place_of_a_word(void)
{
    char text[24];
    for (int b = 1; b < 0x80; b++) {
        for (size_t at = 0; at < 16; at++) {
            memset(text, 'a', sizeof text);
            text[at] = (char)b;
            round_trip(text, sizeof text);
        }
    }
    static const char *const multibyte[] = {"\xC3\xA9", "\xE2\x80\xA8", "\xF0\x9F\x98\x80"};
    for (size_t m = 0; m < 3; m++) {
        for (size_t at = 0; at < 16; at++) {
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
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_EQUAL(common_json_escaped_len(bad[i], 16), (size_t)-1);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"each escape class reads back as its bytes",
         test_each_escape_class_reads_back_as_its_bytes},
        {"every byte in every place of a word", test_every_byte_in_every_place_of_a_word},
        {"NUL or ill-formed UTF-8 is not clean text",
         test_nul_or_ill_formed_utf8_is_not_clean_text},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("json escape", NULL, NULL, tests);
}
