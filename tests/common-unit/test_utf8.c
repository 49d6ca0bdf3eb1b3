/* common/utf8: the tree's one UTF-8 table and its one repair.  The repair
 * replaces each maximal subpart of an ill-formed sequence by one U+FFFD, as
 * the Unicode standard's "U+FFFD Substitution of Maximal Subparts" (section
 * 3.9: table 3-8 and the examples after it) spells it; truncated sequences, overlong forms, surrogates and code points
 * past U+10FFFF are ill-formed; the whole-text checks, the streamed check
 * and the repair agree on every short text; every code point encodes to
 * one well-formed character. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/hex_digit.h"
#include "common/utf8.h"

#include <stdlib.h>
#include <string.h>

#define FFFD "\xEF\xBF\xBD"

/* Repair the `len` bytes of `in` and check the result is `want` (a C
 * string) of `want_chars` characters. */
static void expect_repair(const char *in, size_t len, const char *want, size_t want_chars)
{
    size_t out_len = 99, chars = 99;
    char *out = common_utf8_repair(in, len, &out_len, &chars);
    CU_ASSERT_FATAL(out != NULL);
    CU_ASSERT_EQUAL(out_len, strlen(want));
    CU_ASSERT_STRING_EQUAL(out, want);
    CU_ASSERT_EQUAL(chars, want_chars);
    CU_ASSERT(common_utf8_is_valid(out, out_len));
    free(out);
}

#define REPAIR(in, want, chars) expect_repair(in, sizeof in - 1, want, chars)

/* Section 3.9's table 3-8 ('a' ... 'd') and the examples after it: each
 * maximal subpart (the longest start of a well-formed sequence) is one
 * U+FFFD. */
static void test_the_standard_maximal_subpart_examples(void)
{
    REPAIR("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64",
           "a" FFFD FFFD FFFD "b" FFFD "c" FFFD FFFD "d", 10);
    /* Non-shortest forms: no byte of them starts a well-formed sequence. */
    REPAIR("\xC0\xAF\xE0\x80\xBF\xF0\x81\x82\x41",
           FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD "A", 9);
    /* Surrogates. */
    REPAIR("\xED\xA0\x80\xED\xBF\xBF\xED\xAF\x41",
           FFFD FFFD FFFD FFFD FFFD FFFD FFFD FFFD "A", 9);
    /* Past U+10FFFF, a byte that never occurs, stray continuations. */
    REPAIR("\xF4\x91\x92\x93\xFF\x41\x80\xBF\x42",
           FFFD FFFD FFFD FFFD FFFD "A" FFFD FFFD "B", 9);
    /* Truncated sequences: one U+FFFD for each. */
    REPAIR("\xE1\x80\xE2\xF0\x91\x92\xF1\xBF\x41", FFFD FFFD FFFD FFFD "A", 5);
}

/* A sequence cut by the end of the text is one U+FFFD, whatever its
 * length; a whole one is kept. */
static void test_a_truncated_sequence_at_the_end_is_one_replacement(void)
{
    REPAIR("ab\xC3", "ab" FFFD, 3);
    REPAIR("ab\xE2\x82", "ab" FFFD, 3);
    REPAIR("ab\xF0\x9F\x98", "ab" FFFD, 3);
    REPAIR("\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80", 1);
    REPAIR("\xE2\x82\xAC" "x", "\xE2\x82\xAC" "x", 2);
}

/* Overlong forms, surrogates and values past U+10FFFF: ill-formed at their
 * lead byte (or at its second byte, which is then the subpart's end). */
static void test_overlongs_surrogates_and_past_the_last_code_point(void)
{
    REPAIR("\xC0\x80", FFFD FFFD, 2);                 /* U+0000 in two bytes */
    REPAIR("\xC1\xBF", FFFD FFFD, 2);
    REPAIR("\xE0\x80\x80", FFFD FFFD FFFD, 3);
    REPAIR("\xE0\x9F\xBF", FFFD FFFD FFFD, 3);
    REPAIR("\xF0\x80\x80\x80", FFFD FFFD FFFD FFFD, 4);
    REPAIR("\xF0\x8F\xBF\xBF", FFFD FFFD FFFD FFFD, 4);
    REPAIR("\xED\xA0\x80", FFFD FFFD FFFD, 3);        /* U+D800 */
    REPAIR("\xED\xBF\xBF", FFFD FFFD FFFD, 3);        /* U+DFFF */
    REPAIR("\xED\x9F\xBF", "\xED\x9F\xBF", 1);        /* U+D7FF is fine */
    REPAIR("\xF4\x90\x80\x80", FFFD FFFD FFFD FFFD, 4); /* U+110000 */
    REPAIR("\xF4\x8F\xBF\xBF", "\xF4\x8F\xBF\xBF", 1);  /* U+10FFFF is fine */
    REPAIR("\xF5\x80\x80\x80", FFFD FFFD FFFD FFFD, 4);
    REPAIR("\xF8\x88\x80\x80\x80", FFFD FFFD FFFD FFFD FFFD, 5);
}

/* NUL bytes are characters to the repair and to common_utf8_is_valid, but
 * not clean text. */
static void test_nul_is_kept_but_not_clean(void)
{
    size_t out_len = 0, chars = 0;
    char *out = common_utf8_repair("a\0\xFF", 3, &out_len, &chars);
    CU_ASSERT_FATAL(out != NULL);
    CU_ASSERT_EQUAL(out_len, 5);
    CU_ASSERT(memcmp(out, "a\0" FFFD, 5) == 0);
    CU_ASSERT_EQUAL(chars, 3);
    free(out);
    CU_ASSERT(common_utf8_is_valid("a\0b", 3));
    CU_ASSERT(!common_text_is_clean("a\0b", 3));
    CU_ASSERT(common_text_is_clean("caf\xC3\xA9", 5));
    out = common_utf8_repair("", 0, &out_len, &chars);
    CU_ASSERT(out != NULL && out[0] == '\0' && out_len == 0 && chars == 0);
    free(out);
}

/* What common_utf8_char says of a text's start: a character's bytes, or
 * the bytes one U+FFFD replaces. */
static void test_a_character_or_its_maximal_subpart(void)
{
    static const struct {
        const char *text;
        size_t len, n, bad;
    } cases[] = {
        {"A", 1, 1, 0},           {"\0", 1, 1, 0},          {"\xC3\xA9", 2, 2, 0},
        {"\xC3", 1, 0, 1},        {"\xC3" "A", 2, 0, 1},    {"\x80", 1, 0, 1},
        {"\xE2\x82\xAC", 3, 3, 0}, {"\xE2\x82" "A", 3, 0, 2}, {"\xE0\x9F\x80", 3, 0, 1},
        {"\xF0\x9F\x98" "A", 4, 0, 3}, {"\xF4\x90", 2, 0, 1}, {"\xFF", 1, 0, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t bad = 0;
        CU_ASSERT_EQUAL(common_utf8_char(cases[i].text, cases[i].len, &bad), cases[i].n);
        CU_ASSERT_EQUAL(bad, cases[i].bad);
    }
}

/* A cut never ends inside a sequence. */
static void test_a_cut_falls_between_characters(void)
{
    const char *t = "a\xE2\x82\xAC" "b";
    CU_ASSERT_EQUAL(common_utf8_cut(t, 5, 9), 5);
    CU_ASSERT_EQUAL(common_utf8_cut(t, 5, 4), 4);
    CU_ASSERT_EQUAL(common_utf8_cut(t, 5, 3), 1);
    CU_ASSERT_EQUAL(common_utf8_cut(t, 5, 2), 1);
    CU_ASSERT_EQUAL(common_utf8_cut(t, 5, 1), 1);
    CU_ASSERT_EQUAL(common_utf8_cut(t, 5, 0), 0);
}

/* Every code point but the surrogates encodes to one well-formed
 * character of the right length, which decodes whole. */
static void test_every_code_point_encodes_to_one_character(void)
{
    size_t failures = 0;
    for (unsigned long cp = 0; cp <= 0x10FFFF; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        char out[4];
        size_t bad = 0, n = common_utf8_encode(cp, out);
        size_t want = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        if (n != want || common_utf8_char(out, n, &bad) != n)
            failures++;
    }
    CU_ASSERT_EQUAL(failures, 0);
}

/* Bytes at the edges of the table's ranges. */
static const unsigned char edges[] = {
    0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1,
    0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF,
};
#define EDGES (sizeof edges / sizeof edges[0])

/* Every text of up to four edge bytes: the streamed check (fed a byte at a
 * time) agrees with common_text_is_clean; well-formed text is repaired to
 * itself and anything else to different, well-formed text. */
static void test_the_checks_and_the_repair_agree_on_every_short_text(void)
{
    char text[4];
    size_t failures = 0;
    for (size_t len = 1; len <= 4; len++) {
        size_t total = 1;
        for (size_t k = 0; k < len; k++)
            total *= EDGES;
        for (size_t n = 0; n < total; n++) {
            size_t rest = n;
            common_utf8_scan scan = {0};
            for (size_t k = 0; k < len; k++, rest /= EDGES) {
                text[k] = (char)edges[rest % EDGES];
                common_utf8_scan_bytes(&scan, text + k, 1);
            }
            int valid = common_utf8_is_valid(text, len);
            int clean = valid && memchr(text, '\0', len) == NULL;
            size_t out_len = 0;
            char *out = common_utf8_repair(text, len, &out_len, NULL);
            if (out == NULL || common_text_is_clean(text, len) != clean ||
                common_utf8_scan_clean(&scan) != clean ||
                (out_len == len && memcmp(out, text, len) == 0) != valid ||
                !common_utf8_is_valid(out, out_len))
                failures++;
            free(out);
        }
    }
    CU_ASSERT_EQUAL(failures, 0);
}

/* The one hex digit reader: both cases, nothing else. */
static void test_hex_digits_in_either_case(void)
{
    for (int c = 0; c < 256; c++) {
        int want = c >= '0' && c <= '9' ? c - '0'
                 : c >= 'a' && c <= 'f' ? c - 'a' + 10
                 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        CU_ASSERT_EQUAL(common_hex_digit((char)c), want);
    }
}

void sbx_test_register(void)
{
    static const CU_TestInfo repair_tests[] = {
        {"the standard's maximal-subpart examples", test_the_standard_maximal_subpart_examples},
        {"a truncated sequence at the end is one U+FFFD",
         test_a_truncated_sequence_at_the_end_is_one_replacement},
        {"overlongs, surrogates and values past U+10FFFF are ill-formed",
         test_overlongs_surrogates_and_past_the_last_code_point},
        {"NUL is kept but is not clean text", test_nul_is_kept_but_not_clean},
        {"a character or its maximal subpart", test_a_character_or_its_maximal_subpart},
        {"a cut falls between characters", test_a_cut_falls_between_characters},
        {"every code point encodes to one character",
         test_every_code_point_encodes_to_one_character},
        {"the checks and the repair agree on every short text",
         test_the_checks_and_the_repair_agree_on_every_short_text},
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo hex_tests[] = {
        {"hex digits in either case", test_hex_digits_in_either_case},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("utf8", NULL, NULL, repair_tests);
    sbx_test_add_suite("hex digit", NULL, NULL, hex_tests);
}
