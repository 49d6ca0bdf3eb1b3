/* SipHash-2-4 as the paper describes it: four 64-bit words of state, two
 * SipRounds per 8-byte block and four to finish. */
#include <config.h>

#include "common/siphash.h"

static uint64_t rotl(uint64_t x, unsigned b)
{
    return (x << b) | (x >> (64 - b));
}

/* Eight bytes as a little-endian word, whatever the machine's order. */
static uint64_t load_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

typedef struct sip_state {
    uint64_t v0, v1, v2, v3;
} sip_state;

static void sip_round(sip_state *s)
{
    s->v0 += s->v1;
    s->v1 = rotl(s->v1, 13);
    s->v1 ^= s->v0;
    s->v0 = rotl(s->v0, 32);
    s->v2 += s->v3;
    s->v3 = rotl(s->v3, 16);
    s->v3 ^= s->v2;
    s->v0 += s->v3;
    s->v3 = rotl(s->v3, 21);
    s->v3 ^= s->v0;
    s->v2 += s->v1;
    s->v1 = rotl(s->v1, 17);
    s->v1 ^= s->v2;
    s->v2 = rotl(s->v2, 32);
}

static void compress(sip_state *s, uint64_t m)
{
    s->v3 ^= m;
    sip_round(s);
    sip_round(s);
    s->v0 ^= m;
}

common_siphash_key common_siphash_key_from_bytes(const unsigned char bytes[16])
{
    return (common_siphash_key){load_le64(bytes), load_le64(bytes + 8)};
}

uint64_t common_siphash24(const common_siphash_key *key, const void *data, size_t len)
{
    const unsigned char *p = data;
    sip_state s = {key->k0 ^ UINT64_C(0x736f6d6570736575), key->k1 ^ UINT64_C(0x646f72616e646f6d),
                   key->k0 ^ UINT64_C(0x6c7967656e657261), key->k1 ^ UINT64_C(0x7465646279746573)};
    size_t whole = len - len % 8;
    for (size_t i = 0; i < whole; i += 8)
        compress(&s, load_le64(p + i));
    /* The last block: the remaining bytes, and the length's low byte on top. */
    uint64_t last = (uint64_t)(len & 0xff) << 56;
    for (size_t i = 0; i < len % 8; i++)
        last |= (uint64_t)p[whole + i] << (8 * i);
    compress(&s, last);
    s.v2 ^= 0xff;
    for (int i = 0; i < 4; i++)
        sip_round(&s);
    return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
