/* Shell words, base64 and query escaping for the AIO wire (see remote_aio_text.h). */
#include <config.h>

#include "plugin/remote/remote_aio_text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int remote_shell_quote(common_dynbuf *b, const char *word)
{
    common_dynbuf_add(b, "'", 1);
    for (const char *p = word; *p != '\0';) {
        size_t run = strcspn(p, "'");
        common_dynbuf_add(b, p, run);
        p += run;
        if (*p == '\'') {
            /* close the quotes, an escaped quote, open them again */
            common_dynbuf_add(b, "'\\''", 4);
            p++;
        }
    }
    return common_dynbuf_add(b, "'", 1);
}

char *remote_command_text(const char *const *argv, const char *shell_command)
{
    common_dynbuf b;
    common_dynbuf_init(&b, 0);
    if (argv != NULL) {
        for (size_t i = 0; argv[i] != NULL; i++) {
            if (i > 0)
                common_dynbuf_add(&b, " ", 1);
            remote_shell_quote(&b, argv[i]);
        }
    } else {
        common_dynbuf_add(&b, "/bin/sh -c ", 11);
        remote_shell_quote(&b, shell_command);
    }
    if (b.failed != COMMON_DYNBUF_OK) {
        common_dynbuf_free(&b);
        return NULL;
    }
    return common_dynbuf_take(&b, NULL);
}

char *remote_base64_encode(const void *bytes, size_t len)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (len / 3 >= (SIZE_MAX - 1) / 4 - 1)
        return NULL;
    size_t out_len = (len + 2) / 3 * 4;
    char *out = malloc(out_len + 1);
    if (out == NULL)
        return NULL;
    const unsigned char *in = bytes;
    size_t o = 0, i = 0;
    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = alphabet[v >> 18 & 63];
        out[o++] = alphabet[v >> 12 & 63];
        out[o++] = alphabet[v >> 6 & 63];
        out[o++] = alphabet[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0);
        out[o++] = alphabet[v >> 18 & 63];
        out[o++] = alphabet[v >> 12 & 63];
        out[o++] = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
    return out;
}

int remote_query_escape(common_dynbuf *b, const char *text)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        unsigned char c = *p;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            strchr("-._~/", c) != NULL) {
            common_dynbuf_add(b, p, 1);
        } else {
            char esc[3] = { '%', hex[c >> 4], hex[c & 15] };
            common_dynbuf_add(b, esc, 3);
        }
    }
    return common_dynbuf_add(b, "", 0);
}
