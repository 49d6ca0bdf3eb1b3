/* Base64 (see base64.h). */
#include <config.h>

#include "common/base64.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* The value of each byte as a base64 digit; PADDING, SPACE or OTHER for
 * the rest. */
enum { PADDING = -1, SPACE = -2, OTHER = -3 };

static void digit_values(signed char value[256])
{
    memset(value, OTHER, 256);
    for (int i = 0; i < 64; i++)
        value[(unsigned char)alphabet[i]] = (signed char)i;
    value['='] = PADDING;
    value[' '] = value['\n'] = value['\r'] = value['\t'] = SPACE;
}

int common_base64_decode(const char *text, size_t len, unsigned flags, unsigned char *out,
                         size_t *out_len)
{
    signed char value[256];
    digit_values(value);
    const unsigned char *in = (const unsigned char *)text;
    size_t n = 0, digits = 0, padding = 0;
    unsigned long group = 0;
    for (size_t i = 0; i < len;) {
        /* Whole groups of four digits, nearly all of a text, at once. */
        while (digits % 4 == 0 && padding == 0 && len - i >= 4) {
            int a = value[in[i]], b = value[in[i + 1]], c = value[in[i + 2]],
                d = value[in[i + 3]];
            if ((a | b | c | d) < 0)
                break;
            unsigned long g = (unsigned long)a << 18 | (unsigned long)b << 12 |
                              (unsigned long)c << 6 | (unsigned long)d;
            out[n++] = (unsigned char)(g >> 16);
            out[n++] = (unsigned char)(g >> 8);
            out[n++] = (unsigned char)g;
            i += 4;
            digits += 4;
        }
        if (i == len)
            break;
        int v = value[in[i++]];
        if (v == SPACE && (flags & COMMON_BASE64_SKIP_SPACE) != 0)
            continue;
        if (v == OTHER || v == SPACE || (v >= 0 && padding > 0))
            return -1;
        if (v == PADDING) {
            padding++;
            continue;
        }
        group = group << 6 | (unsigned long)v;
        if (++digits % 4 == 0) {
            out[n++] = (unsigned char)(group >> 16);
            out[n++] = (unsigned char)(group >> 8);
            out[n++] = (unsigned char)group;
            group = 0;
        }
    }
    size_t rest = digits % 4;
    if (rest == 1 || padding > 2 || (padding > 0 && (rest + padding) % 4 != 0))
        return -1;
    if (rest == 2) {
        out[n++] = (unsigned char)(group >> 4);
    } else if (rest == 3) {
        out[n++] = (unsigned char)(group >> 10);
        out[n++] = (unsigned char)(group >> 2);
    }
    *out_len = n;
    return 0;
}

char *common_base64_decode_alloc(const char *text, size_t len, unsigned flags, size_t *out_len,
                                 int *invalid)
{
    *invalid = 0;
    unsigned char *out = malloc(COMMON_BASE64_DECODED_MAX(len) + 1);
    if (out == NULL)
        return NULL;
    if (common_base64_decode(text, len, flags, out, out_len) != 0) {
        free(out);
        *invalid = 1;
        return NULL;
    }
    out[*out_len] = '\0';
    return (char *)out;
}
