/*
 * The one reader of a hexadecimal digit, for the escapes the tree decodes
 * (JSON's \uXXXX, a URL's %XX, an HTTP chunk size).  Header-only: the
 * streaming decoders call it once per byte.
 */
#ifndef SBX_COMMON_HEX_DIGIT_H
#define SBX_COMMON_HEX_DIGIT_H

/* The value (0 to 15) of hex digit `c`, either case; -1 when `c` is none. */
static inline int common_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The value of the four hex digits at `p` (JSON's \uXXXX), or -1 when
 * one of them is none. */
static inline long common_hex4(const char *p)
{
    long value = 0;
    for (int i = 0; i < 4; i++) {
        int digit = common_hex_digit(p[i]);
        if (digit < 0)
            return -1;
        value = value << 4 | digit;
    }
    return value;
}

#endif /* SBX_COMMON_HEX_DIGIT_H */
