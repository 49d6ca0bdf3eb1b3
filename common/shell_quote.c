/* A text as one single-quoted POSIX shell word (see shell_quote.h). */
#include <config.h>

#include "common/shell_quote.h"

#include <string.h>

int common_shell_quote(common_dynbuf *b, const char *text)
{
    common_dynbuf_add(b, "'", 1);
    for (const char *p = text; *p != '\0';) {
        size_t run = strcspn(p, "'");
        common_dynbuf_add(b, p, run);
        p += run;
        if (*p == '\'') {
            common_dynbuf_add(b, "'\\''", 4);
            p++;
        }
    }
    return common_dynbuf_add(b, "'", 1);
}
