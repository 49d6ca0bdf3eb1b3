/* `command` placeholders (see local_command.h). */
#include <config.h>

#include "plugin/local/local_command.h"

#include <sbx/backend_support.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing string; on allocation failure `failed` is set and later
 * appends do nothing, so callers check once at the end. */
typedef struct text_buf {
    char *data;
    size_t len, cap;
    int failed;
} text_buf;

static void append(text_buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = (b->len + n + 1) * 2;
        char *grown = realloc(b->data, cap);
        if (grown == NULL) {
            b->failed = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

/* 'it'\''s' quoting: the only character special inside single quotes is the
 * quote itself. */
static void append_shell_word(text_buf *b, const char *s)
{
    append(b, "'", 1);
    for (; *s != '\0'; s++) {
        if (*s == '\'')
            append(b, "'\\''", 4);
        else
            append(b, s, 1);
    }
    append(b, "'", 1);
}

sbx_status local_command_expand(const char *command, int port, const char *dir,
                                char **out, sbx_error *err)
{
    text_buf b = { NULL, 0, 0, 0 };
    char port_text[16];
    snprintf(port_text, sizeof port_text, "%d", port);
    append(&b, "", 0);
    for (const char *p = command; *p != '\0';) {
        if (strncmp(p, "{port}", 6) == 0) {
            append(&b, port_text, strlen(port_text));
            p += 6;
        } else if (strncmp(p, "{dir}", 5) == 0) {
            append_shell_word(&b, dir);
            p += 5;
        } else {
            append(&b, p, 1);
            p++;
        }
    }
    if (b.failed) {
        free(b.data);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    *out = b.data;
    return SBX_OK;
}
