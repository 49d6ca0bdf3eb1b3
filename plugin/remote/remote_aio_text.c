/* Shell words and query escaping for the AIO wire (see remote_aio_text.h). */
#include <config.h>

#include "plugin/remote/remote_aio_text.h"

#include "common/shell_quote.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *remote_command_text(const char *const *argv, const char *shell_command)
{
    common_dynbuf b;
    common_dynbuf_init(&b, 0);
    /* exec: the server's shell does not stay between, so a signal that
     * ends the program is the program's, not a shell's 128+N. */
    common_dynbuf_add(&b, "exec", 4);
    if (argv != NULL) {
        for (size_t i = 0; argv[i] != NULL; i++) {
            common_dynbuf_add(&b, " ", 1);
            common_shell_quote(&b, argv[i]);
        }
    } else {
        common_dynbuf_add(&b, " /bin/sh -c ", 12);
        common_shell_quote(&b, shell_command);
    }
    if (b.failed != COMMON_DYNBUF_OK) {
        common_dynbuf_free(&b);
        return NULL;
    }
    return common_dynbuf_take(&b, NULL);
}

int remote_json_quote(common_dynbuf *b, const char *text)
{
    static const char hex[] = "0123456789abcdef";
    common_dynbuf_add(b, "\"", 1);
    for (const char *p = text; *p != '\0';) {
        const char *run = p;
        while ((unsigned char)*p >= 0x20 && *p != '"' && *p != '\\')
            p++;
        common_dynbuf_add(b, run, (size_t)(p - run));
        if (*p == '\0')
            break;
        unsigned char c = (unsigned char)*p++;
        char esc[6] = { '\\', (char)c, 0, 0, 0, 0 };
        size_t n = 2;
        if (c < 0x20) {
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            n = 6;
        }
        common_dynbuf_add(b, esc, n);
    }
    return common_dynbuf_add(b, "\"", 1);
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

/* The directory part of an absolute path ("/" for "/name"), malloc'd. */
char *remote_parent_dir(const char *abs)
{
    size_t n = strlen(abs);
    while (n > 1 && abs[n - 1] == '/')
        n--;
    while (n > 0 && abs[n - 1] != '/')
        n--;
    while (n > 1 && abs[n - 1] == '/')
        n--;
    char *dir = malloc(n + 2);
    if (dir != NULL)
        snprintf(dir, n + 2, "%.*s", (int)(n > 0 ? n : 1), n > 0 ? abs : "/");
    return dir;
}

/* A script's start: p=<abs, quoted>. */
static void start_script(common_dynbuf *s, const char *abs)
{
    common_dynbuf_init(s, 0);
    common_dynbuf_add(s, "p=", 2);
    common_shell_quote(s, abs);
}

/* The script with `tail` appended, handed over (NULL: out of memory). */
static char *finish_script(common_dynbuf *s, const char *tail)
{
    common_dynbuf_add(s, tail, strlen(tail));
    if (s->failed != COMMON_DYNBUF_OK) {
        common_dynbuf_free(s);
        return NULL;
    }
    return common_dynbuf_take(s, NULL);
}

/* The script that checks a write before the bytes are sent: the parent
 * (made with MKDIRS), a directory in the way, an existing file (EXCLUSIVE),
 * and a new file made empty here with its mode (set -C: O_EXCL). */
char *remote_write_check_script(const char *abs, const char *parent, unsigned flags,
                                uint32_t mode)
{
    common_dynbuf s;
    char tail[512];
    start_script(&s, abs);
    common_dynbuf_add(&s, "; d=", 4);
    common_shell_quote(&s, parent);
    snprintf(tail, sizeof tail,
             "\nif [ ! -d \"$d\" ]; then [ -e \"$d\" ] && exit 13; [ %d = 1 ] || exit 12; "
             "mkdir -p -- \"$d\" || exit 16; fi\n"
             "[ -d \"$p\" ] && exit 14\n"
             "if [ -e \"$p\" ] || [ -L \"$p\" ]; then [ %d = 1 ] && exit 15; exit 0; fi\n"
             "(set -C; : > \"$p\") || { [ -e \"$p\" ] && exit 15; exit 16; }\n"
             "chmod %o -- \"$p\" || exit 16\n",
             (flags & SBX_WRITE_MKDIRS) != 0, (flags & SBX_WRITE_EXCLUSIVE) != 0,
             (unsigned)(mode != 0 ? mode & 07777 : 0644));
    return finish_script(&s, tail);
}

/* The script of remove_path: a link is removed itself, never followed. */
char *remote_remove_script(const char *abs, int recursive)
{
    common_dynbuf s;
    char tail[320];
    start_script(&s, abs);
    snprintf(tail, sizeof tail,
             "\nif [ -L \"$p\" ]; then rm -f -- \"$p\" || exit 16; exit 0; fi\n"
             "[ -e \"$p\" ] || exit 12\n"
             "if [ -d \"$p\" ]; then [ %d = 1 ] || exit 14; rm -rf -- \"$p\" || exit 16; "
             "else rm -f -- \"$p\" || exit 16; fi\n",
             recursive);
    return finish_script(&s, tail);
}
