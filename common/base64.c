/* Base64 (see base64.h). */
#include <config.h>

#include "common/base64.h"

#include <stdint.h>
#include <stdlib.h>

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t common_base64_encode(const void *bytes, size_t len, char *out)
{
    const unsigned char *in = bytes;
    size_t o = 0, i = 0;
    for (; i + 3 <= len; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (unsigned)in[i + 1] << 8 | in[i + 2];
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = alphabet[(v >> 6) & 63];
        out[o++] = alphabet[v & 63];
    }
    if (i < len) {
        unsigned v = (unsigned)in[i] << 16 | (i + 1 < len ? (unsigned)in[i + 1] << 8 : 0);
        out[o++] = alphabet[v >> 18];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
    return o;
}

char *common_base64_encode_alloc(const void *bytes, size_t len)
{
    if (len / 3 >= (SIZE_MAX - 1) / 4 - 1)
        return NULL;
    char *out = malloc(COMMON_BASE64_ENCODED_LEN(len) + 1);
    if (out != NULL)
        common_base64_encode(bytes, len, out);
    return out;
}

/* The value of one character, or -1. */
static int value_of(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int common_base64_decode(const char *text, size_t len, unsigned char *out, size_t *out_len)
{
    /* Padding only at the very end, at most two. */
    size_t pad = 0;
    while (pad < 2 && len > pad && text[len - 1 - pad] == '=')
        pad++;
    size_t data = len - pad;
    if (pad > 0 && len % 4 != 0)
        return -1;
    if (data % 4 == 1)
        return -1;
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (size_t i = 0; i < data; i++) {
        int v = value_of(text[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6 | (unsigned)v) & 0xFFFFFFu;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    *out_len = o;
    return 0;
}
