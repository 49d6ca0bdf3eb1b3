/* common/siphash: SipHash-2-4 against the paper's vector (key 00..0f,
 * message 00..0e) and the reference vectors of every block-length class
 * (message 00..n-1 under the same key); another key gives another hash. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/siphash.h"

#include <stdint.h>

static uint64_t hash_of_prefix(const common_siphash_key *key, size_t len)
{
    unsigned char message[64];
    for (size_t i = 0; i < sizeof message; i++)
        message[i] = (unsigned char)i;
    return common_siphash24(key, message, len);
}

static common_siphash_key counting_key(void)
{
    unsigned char bytes[16];
    for (unsigned i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)i;
    return common_siphash_key_from_bytes(bytes);
}

static void test_the_published_vectors_hold(void)
{
    common_siphash_key key = counting_key();
    CU_ASSERT_EQUAL(key.k0, UINT64_C(0x0706050403020100));
    CU_ASSERT_EQUAL(key.k1, UINT64_C(0x0f0e0d0c0b0a0908));
    static const struct {
        size_t len;
        uint64_t hash;
    } vectors[] = {
        {0, UINT64_C(0x726fdb47dd0e0e31)},  {1, UINT64_C(0x74f839c593dc67fd)},
        {15, UINT64_C(0xa129ca6149be45e5)}, {16, UINT64_C(0x3f2acc7f57c29bdb)},
        {32, UINT64_C(0x7127512f72f27cce)}, {64, UINT64_C(0xacd2c40b8502cad8)},
    };
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
        CU_ASSERT_EQUAL(hash_of_prefix(&key, vectors[i].len), vectors[i].hash);
}

static void test_another_key_gives_another_hash(void)
{
    common_siphash_key key = counting_key();
    common_siphash_key other = key;
    other.k1 ^= 1;
    for (size_t len = 0; len <= 64; len++)
        CU_ASSERT_NOT_EQUAL(hash_of_prefix(&key, len), hash_of_prefix(&other, len));
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"the published vectors hold", test_the_published_vectors_hold},
        {"another key gives another hash", test_another_key_gives_another_hash},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("siphash", NULL, NULL, tests);
}
