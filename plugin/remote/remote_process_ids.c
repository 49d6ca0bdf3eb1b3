/* Process ids and command texts (see remote_process_ids.h). */
#include <config.h>

#include "plugin/remote/remote_process_ids.h"

#include "common/dynbuf.h"

#include <sbx/backend_support.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether `id` is a non-empty run of [A-Za-z0-9._-]. */
static int wire_id_is_clean(const char *id)
{
    static const char allowed[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";
    return id[0] != '\0' && id[strspn(id, allowed)] == '\0';
}

sbx_status remote_process_id_make(const char *session, const char *command,
                                  char out[SBX_PROCESS_ID_MAX + 1], sbx_error *err)
{
    out[0] = '\0';
    if (!wire_id_is_clean(session) || !wire_id_is_clean(command))
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "the sandbox named a command with ids outside "
                                     "[A-Za-z0-9._-]");
    size_t s = strlen(session);
    const char *tail = strcmp(session, command) == 0 ? "" : command;
    int n = snprintf(out, SBX_PROCESS_ID_MAX + 1, "%zu-%s%s", s, session, tail);
    if (n < 0 || n > SBX_PROCESS_ID_MAX) {
        out[0] = '\0';
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "the sandbox's session and command ids (%zu and %zu "
                                     "bytes) do not fit a process id of %d bytes",
                                     s, strlen(command), SBX_PROCESS_ID_MAX);
    }
    return SBX_OK;
}

int remote_process_id_split(const char *id, char session[SBX_PROCESS_ID_MAX + 1],
                            char command[SBX_PROCESS_ID_MAX + 1])
{
    size_t s = 0, digits = 0;
    while (id[digits] >= '0' && id[digits] <= '9' && digits < 3)
        s = s * 10 + (size_t)(id[digits++] - '0');
    if (digits == 0 || (digits > 1 && id[0] == '0') || id[digits] != '-')
        return 0;
    const char *rest = id + digits + 1;
    size_t rest_len = strlen(rest);
    if (s == 0 || s > rest_len || rest_len > SBX_PROCESS_ID_MAX)
        return 0;
    memcpy(session, rest, s);
    session[s] = '\0';
    strcpy(command, rest_len == s ? session : rest + s);
    return wire_id_is_clean(session) && wire_id_is_clean(command);
}

/* Free a NULL-terminated array of strings. */
static void free_words(char **words)
{
    for (size_t i = 0; words != NULL && words[i] != NULL; i++)
        free(words[i]);
    free(words);
}

/* Read one word at *p: bare (no quote, space or shell character) or
 * single-quoted runs joined by \' ; into *b.  Returns 0 when the text is
 * not of that form. */
static int read_word(const char **p, common_dynbuf *b)
{
    const char *s = *p;
    int any = 0;
    while (*s != '\0' && *s != ' ') {
        if (*s == '\'') {
            const char *end = strchr(s + 1, '\'');
            if (end == NULL)
                return 0;
            common_dynbuf_add(b, s + 1, (size_t)(end - s - 1));
            s = end + 1;
        } else if (s[0] == '\\' && s[1] == '\'') {
            common_dynbuf_add(b, "'", 1);
            s += 2;
        } else if (strchr("\"\\$`&|;<>()*?[]{}~#!\t\n", *s) == NULL) {
            common_dynbuf_add(b, s, 1);
            s++;
        } else {
            return 0;
        }
        any = 1;
    }
    *p = s;
    return any;
}

/* The words of `text` after "exec " (without a trailing stdin redirect),
 * or NULL when it is not a text remote_command_text made. */
static char **parse_words(const char *text, int *out_of_memory)
{
    size_t len = strlen(text), tail = sizeof REMOTE_STDIN_CLOSED - 1;
    if (strncmp(text, "exec ", 5) != 0)
        return NULL;
    if (len >= tail && strcmp(text + len - tail, REMOTE_STDIN_CLOSED) == 0)
        len -= tail;
    char *body = strndup(text + 5, len - 5);
    size_t count = 0;
    char **words = body != NULL ? calloc(len / 2 + 2, sizeof *words) : NULL;
    const char *p = body;
    int ok = words != NULL;
    while (ok && *p != '\0') {
        common_dynbuf b;
        common_dynbuf_init(&b, 0);
        ok = read_word(&p, &b) && (*p == '\0' || *p++ == ' ');
        common_dynbuf_add(&b, "", 0);
        if (b.failed != COMMON_DYNBUF_OK)
            *out_of_memory = ok = 0;
        if (ok)
            words[count++] = common_dynbuf_take(&b, NULL);
        else
            common_dynbuf_free(&b);
    }
    *out_of_memory |= body == NULL || words == NULL;
    free(body);
    if (!ok || count == 0) {
        free_words(words);
        return NULL;
    }
    return words;
}

char **remote_process_argv(const char *text)
{
    int out_of_memory = 0;
    char **words = parse_words(text, &out_of_memory);
    if (words != NULL || out_of_memory)
        return words;
    words = calloc(4, sizeof *words);
    if (words == NULL)
        return NULL;
    words[0] = strdup("/bin/sh");
    words[1] = strdup("-c");
    words[2] = strdup(text);
    if (words[0] == NULL || words[1] == NULL || words[2] == NULL) {
        free_words(words);
        return NULL;
    }
    return words;
}
