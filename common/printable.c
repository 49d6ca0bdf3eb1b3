/* Values quoted in messages (see printable.h). */
#include "common/printable.h"

#include <string.h>

const char *sbx_printable(const char *value, char *buf, size_t cap)
{
    const size_t max_chars = 64;
    size_t n = 0;
    if (cap == 0)
        return buf;
    if (value == NULL)
        value = "";
    for (; value[n] != '\0' && n < max_chars && n + 4 < cap; n++) {
        unsigned char ch = (unsigned char)value[n];
        buf[n] = (ch >= 0x20 && ch < 0x7F) ? (char)ch : '?';
    }
    if (value[n] != '\0' && n + 4 <= cap) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}
