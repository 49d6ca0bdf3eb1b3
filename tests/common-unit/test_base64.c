/* common/base64: the one codec of the tree.  Encoding against RFC 4648's
 * vectors; decoding round-trips every byte value and every length class,
 * and refuses what is not base64 (strict), but for whitespace where the
 * wire's mode skips it. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/base64.h"

#include <stdlib.h>
#include <string.h>

/* Decode `text` with `flags`: 0 and the bytes in out/out_len, or -1. */
static int decode(const char *text, unsigned flags, unsigned char *out, size_t *out_len)
{
    return common_base64_decode(text, strlen(text), flags, out, out_len);
}

static void expect_decodes(const char *text, unsigned flags, const char *want, size_t want_len)
{
    unsigned char out[64];
    size_t len = 99;
    CU_ASSERT_FATAL(strlen(text) / 4 * 3 + 3 <= sizeof out);
    CU_ASSERT_EQUAL(decode(text, flags, out, &len), 0);
    CU_ASSERT_EQUAL(len, want_len);
    CU_ASSERT(len == want_len && memcmp(out, want, want_len) == 0);
}

static void expect_refused(const char *text, unsigned flags)
{
    unsigned char out[64];
    size_t len = 99;
    CU_ASSERT_EQUAL(decode(text, flags, out, &len), -1);
    CU_ASSERT_EQUAL(len, 99); /* nothing claimed */
}

/* RFC 4648 section 10, both ways. */
static void test_the_rfc_vectors_encode_and_decode(void)
{
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
                                        "Zm9vYmFy"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        char *got = common_base64_encode_alloc(plain[i], strlen(plain[i]));
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        CU_ASSERT_STRING_EQUAL(got, coded[i]);
        CU_ASSERT_EQUAL(strlen(got), COMMON_BASE64_ENCODED_LEN(strlen(plain[i])));
        free(got);
        expect_decodes(coded[i], COMMON_BASE64_STRICT, plain[i], strlen(plain[i]));
        expect_decodes(coded[i], COMMON_BASE64_SKIP_SPACE, plain[i], strlen(plain[i]));
    }
}

/* Every byte value and every length modulo 3 comes back as it was, NUL
 * included, and the alloc form ends its bytes with a NUL. */
static void test_every_byte_and_length_round_trips(void)
{
    unsigned char bytes[259];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(255 - i % 256);
    for (size_t len = 256; len <= sizeof bytes; len++) {
        char *text = common_base64_encode_alloc(bytes, len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(text);
        size_t out_len = 0;
        int invalid = -1;
        char *back = common_base64_decode_alloc(text, strlen(text), COMMON_BASE64_STRICT,
                                                &out_len, &invalid);
        CU_ASSERT_PTR_NOT_NULL_FATAL(back);
        CU_ASSERT_EQUAL(invalid, 0);
        CU_ASSERT_EQUAL(out_len, len);
        CU_ASSERT(memcmp(back, bytes, len) == 0);
        CU_ASSERT_EQUAL(back[len], '\0');
        free(back);
        free(text);
    }
}

/* Padding may be left out, but when written it must end the text and fill
 * its group exactly. */
static void test_padding_is_optional_but_exact(void)
{
    expect_decodes("Zg", COMMON_BASE64_STRICT, "f", 1);
    expect_decodes("Zm8", COMMON_BASE64_STRICT, "fo", 2);
    expect_decodes("Zm9vYg", COMMON_BASE64_STRICT, "foob", 4);
    expect_refused("Zg=", COMMON_BASE64_STRICT);       /* half the padding */
    expect_refused("Zm8==", COMMON_BASE64_STRICT);     /* one pad too many */
    expect_refused("Zm9v=", COMMON_BASE64_STRICT);     /* padding a full group */
    expect_refused("Zg===", COMMON_BASE64_STRICT);
    expect_refused("Zg==Zg==", COMMON_BASE64_STRICT);  /* data after padding */
    expect_refused("Z", COMMON_BASE64_STRICT);         /* a lone character */
    expect_refused("Zm9vY", COMMON_BASE64_STRICT);
    expect_refused("=", COMMON_BASE64_STRICT);
}

/* Anything outside the alphabet is refused in both modes (the URL-safe
 * alphabet, NUL, non-ASCII); whitespace only where the mode skips it. */
static void test_strange_characters_are_refused_and_whitespace_only_skipped(void)
{
    static const char *const bad[] = {"Zm9v-_==", "Zm9v\x80g==", "Zm.v", "Zm9v\"g==",
                                      "Zm9v\vYg=="};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        expect_refused(bad[i], COMMON_BASE64_STRICT);
        expect_refused(bad[i], COMMON_BASE64_SKIP_SPACE);
    }
    unsigned char out[8];
    size_t len = 99;
    CU_ASSERT_EQUAL(common_base64_decode("Zm\0v", 4, COMMON_BASE64_SKIP_SPACE, out, &len), -1);
    static const char *const spaced[] = {"Zm9v\nYmFy", " Zm9vYmFy\r\n", "Zm 9v\tYm Fy",
                                         "Zm9vYm\n==", "Zm9vYmFy\n\n"};
    static const char *const want[] = {"foobar", "foobar", "foobar", "foob", "foobar"};
    for (size_t i = 0; i < sizeof spaced / sizeof spaced[0]; i++) {
        expect_refused(spaced[i], COMMON_BASE64_STRICT);
        expect_decodes(spaced[i], COMMON_BASE64_SKIP_SPACE, want[i], strlen(want[i]));
    }
    expect_decodes(" \n\t", COMMON_BASE64_SKIP_SPACE, "", 0);
    size_t out_len = 99;
    int invalid = 0;
    CU_ASSERT_PTR_NULL(common_base64_decode_alloc("Zm9v Yg==", 9, COMMON_BASE64_STRICT,
                                                  &out_len, &invalid));
    CU_ASSERT_EQUAL(invalid, 1);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"the RFC 4648 vectors encode and decode", test_the_rfc_vectors_encode_and_decode},
        {"every byte value and length class round-trips", test_every_byte_and_length_round_trips},
        {"padding is optional, but exact when present", test_padding_is_optional_but_exact},
        {"characters outside the alphabet are refused; whitespace only skipped when asked",
         test_strange_characters_are_refused_and_whitespace_only_skipped},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("base64", NULL, NULL, tests);
}
