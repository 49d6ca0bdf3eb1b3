/* The building blocks of common/: the growable buffer's one overflow
 * policy (an add that does not fit changes nothing and the failure sticks
 * until a reset), FNV-1a against its published test vectors, and the
 * masking of capability tokens in printed paths. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/dynbuf.h"
#include "common/fnv1a.h"
#include "common/redact.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Many small adds and one large one: the bytes come back in order, always
 * NUL-terminated, and take hands them over leaving an empty buffer. */
static void test_a_buffer_keeps_every_byte_and_a_nul(void)
{
    common_dynbuf b;
    common_dynbuf_init(&b, 0);
    CU_ASSERT_PTR_NULL(b.data);
    for (int i = 0; i < 1000; i++)
        CU_ASSERT_EQUAL(common_dynbuf_add(&b, "ab", 2), COMMON_DYNBUF_OK);
    char big[10000];
    memset(big, 'z', sizeof big);
    CU_ASSERT_EQUAL(common_dynbuf_add(&b, big, sizeof big), COMMON_DYNBUF_OK);
    CU_ASSERT_EQUAL(b.len, 2000 + sizeof big);
    CU_ASSERT_EQUAL(b.data[b.len], '\0');
    CU_ASSERT(memcmp(b.data, "abab", 4) == 0 && b.data[1999] == 'b' && b.data[2000] == 'z');
    size_t len = 0;
    char *taken = common_dynbuf_take(&b, &len);
    CU_ASSERT_EQUAL(len, 2000 + sizeof big);
    CU_ASSERT_PTR_NULL(b.data);
    CU_ASSERT_EQUAL(b.len, 0);
    free(taken);
}

/* Bytes with NULs inside are data, and an empty add still gives "". */
static void test_nul_bytes_are_data_and_empty_is_a_string(void)
{
    common_dynbuf b = {0};
    CU_ASSERT_EQUAL(common_dynbuf_add(&b, "", 0), COMMON_DYNBUF_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b.data);
    CU_ASSERT_STRING_EQUAL(b.data, "");
    CU_ASSERT_EQUAL(common_dynbuf_add(&b, "a\0b", 3), COMMON_DYNBUF_OK);
    CU_ASSERT_EQUAL(b.len, 3);
    CU_ASSERT(memcmp(b.data, "a\0b", 4) == 0);
    common_dynbuf_free(&b);
    CU_ASSERT_PTR_NULL(b.data);
}

/* The limit is exact: the last byte that fits is taken, the next add is
 * refused whole (nothing of it is kept), later adds are refused too, and a
 * reset makes the buffer usable again with its limit. */
static void test_the_limit_is_exact_and_a_failure_sticks(void)
{
    common_dynbuf b;
    common_dynbuf_init(&b, 10);
    CU_ASSERT_EQUAL(common_dynbuf_add(&b, "0123456", 7), COMMON_DYNBUF_OK);
    CU_ASSERT_EQUAL(common_dynbuf_add(&b, "789", 3), COMMON_DYNBUF_OK);
    CU_ASSERT(b.cap <= 11);
    CU_ASSERT_EQUAL(common_dynbuf_add(&b, "x", 1), COMMON_DYNBUF_TOO_BIG);
    CU_ASSERT_STRING_EQUAL(b.data, "0123456789");
    CU_ASSERT_EQUAL(common_dynbuf_add(&b, "", 0), COMMON_DYNBUF_TOO_BIG);
    CU_ASSERT_EQUAL(b.failed, COMMON_DYNBUF_TOO_BIG);
    common_dynbuf_reset(&b);
    CU_ASSERT_EQUAL(b.len, 0);
    CU_ASSERT_STRING_EQUAL(b.data, "");
    CU_ASSERT_EQUAL(common_dynbuf_add(&b, "0123456789", 10), COMMON_DYNBUF_OK);
    CU_ASSERT_EQUAL(common_dynbuf_add(&b, "0123456789", 10), COMMON_DYNBUF_TOO_BIG);
    CU_ASSERT_EQUAL(b.len, 10);
    common_dynbuf_free(&b);
    CU_ASSERT_EQUAL(b.limit, 10);
}

/* A size no allocation can reach is refused, not wrapped around. */
static void test_an_impossible_size_is_refused(void)
{
    common_dynbuf b = {0};
    CU_ASSERT_EQUAL(common_dynbuf_add(&b, "abc", 3), COMMON_DYNBUF_OK);
    volatile size_t huge = SIZE_MAX - 1; /* unknown to the compiler, as a peer's length */
    int st = common_dynbuf_add(&b, "x", huge);
    CU_ASSERT(st == COMMON_DYNBUF_TOO_BIG || st == COMMON_DYNBUF_NO_MEMORY);
    CU_ASSERT_EQUAL(b.len, 3);
    CU_ASSERT_STRING_EQUAL(b.data, "abc");
    common_dynbuf_free(&b);
}

/* A formatted add writes in place what printf would, whatever its length,
 * under the same limit: a text that does not fit is refused whole and the
 * failure sticks. */
static void test_a_formatted_add_appends_what_printf_writes(void)
{
    common_dynbuf b = {0};
    CU_ASSERT_EQUAL(common_dynbuf_addf(&b, "%d-%s", 42, "x"), COMMON_DYNBUF_OK);
    CU_ASSERT_EQUAL(common_dynbuf_addf(&b, "%s", ""), COMMON_DYNBUF_OK);
    CU_ASSERT_EQUAL(common_dynbuf_addf(&b, "|%300d|", 7), COMMON_DYNBUF_OK);
    CU_ASSERT_EQUAL(b.len, 4 + 302);
    CU_ASSERT(strncmp(b.data, "42-x|  ", 7) == 0 && strcmp(b.data + b.len - 2, "7|") == 0);
    common_dynbuf_free(&b);
    common_dynbuf_init(&b, 8);
    CU_ASSERT_EQUAL(common_dynbuf_addf(&b, "%s", "abcdef"), COMMON_DYNBUF_OK);
    CU_ASSERT_EQUAL(common_dynbuf_addf(&b, "%d", 123), COMMON_DYNBUF_TOO_BIG);
    CU_ASSERT_STRING_EQUAL(b.data, "abcdef");
    CU_ASSERT_EQUAL(common_dynbuf_addf(&b, "%d", 1), COMMON_DYNBUF_TOO_BIG);
    CU_ASSERT_EQUAL(common_dynbuf_add(&b, "1", 1), COMMON_DYNBUF_TOO_BIG);
    common_dynbuf_free(&b);
}

/* The 64-bit FNV-1a test vectors of its authors; bytes and strings hash
 * alike and several fields hash as one stream. */
static void test_fnv1a_matches_the_published_vectors(void)
{
    CU_ASSERT_EQUAL(common_fnv1a_string(COMMON_FNV1A_BASIS, ""), UINT64_C(0xcbf29ce484222325));
    CU_ASSERT_EQUAL(common_fnv1a_string(COMMON_FNV1A_BASIS, "a"), UINT64_C(0xaf63dc4c8601ec8c));
    CU_ASSERT_EQUAL(common_fnv1a_string(COMMON_FNV1A_BASIS, "foobar"),
                    UINT64_C(0x85944171f73967e8));
    CU_ASSERT_EQUAL(common_fnv1a_bytes(COMMON_FNV1A_BASIS, "foobar", 6),
                    UINT64_C(0x85944171f73967e8));
    uint64_t h = common_fnv1a_string(COMMON_FNV1A_BASIS, "foo");
    CU_ASSERT_EQUAL(common_fnv1a_string(h, "bar"), UINT64_C(0x85944171f73967e8));
}

/* `text` as common_redact_tokens shows it with room for `cap` bytes. */
static const char *tokens_masked(const char *text, size_t cap)
{
    static char out[256];
    common_redact_tokens(text, out, cap);
    return out;
}

/* A run of 16 or more hex digits, any case, wherever it stands, becomes
 * "..."; shorter runs stay; a cut never leaves part of a run. */
static void test_token_runs_are_masked_wherever_they_stand(void)
{
    CU_ASSERT_STRING_EQUAL(tokens_masked("GET /s/0123456789abcdef/v1", 256), "GET /s/.../v1");
    CU_ASSERT_STRING_EQUAL(tokens_masked("//s/0123456789ABCDEF0123x", 256), "//s/...x");
    CU_ASSERT_STRING_EQUAL(tokens_masked("/s/x0123456789abcdef", 256), "/s/x...");
    CU_ASSERT_STRING_EQUAL(tokens_masked("0123456789abcde :8002 /api/sandboxes/abc", 256),
                           "0123456789abcde :8002 /api/sandboxes/abc");
    CU_ASSERT_STRING_EQUAL(tokens_masked("a0123456789abcdefg0123456789abcdef", 256), "...g...");
    /* Cut to fit after masking: never a part of a token or of its mask. */
    CU_ASSERT_STRING_EQUAL(tokens_masked("/s/0123456789abcdef0123", 6), "/s/");
    CU_ASSERT_STRING_EQUAL(tokens_masked("/s/0123456789abcdef/v1", 8), "/s/.../");
}

void sbx_test_register(void)
{
    static const CU_TestInfo dynbuf_tests[] = {
        {"a buffer keeps every byte and a NUL after them", test_a_buffer_keeps_every_byte_and_a_nul},
        {"NUL bytes are data and an empty buffer is a string",
         test_nul_bytes_are_data_and_empty_is_a_string},
        {"the limit is exact and a failure sticks until a reset",
         test_the_limit_is_exact_and_a_failure_sticks},
        {"an impossible size is refused, not wrapped", test_an_impossible_size_is_refused},
        {"a formatted add appends what printf writes",
         test_a_formatted_add_appends_what_printf_writes},
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo hash_tests[] = {
        {"FNV-1a matches the published vectors", test_fnv1a_matches_the_published_vectors},
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo redact_tests[] = {
        {"token runs are masked wherever they stand",
         test_token_runs_are_masked_wherever_they_stand},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("dynbuf", NULL, NULL, dynbuf_tests);
    sbx_test_add_suite("redact tokens", NULL, NULL, redact_tests);
    sbx_test_add_suite("fnv1a", NULL, NULL, hash_tests);
}
