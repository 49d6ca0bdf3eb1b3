/* Secret redaction for sbxctl's messages and log lines. */
#include <config.h>

#include "tools/sbxctl/redact.h"

#include "common/redact.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Whether `key` ends with `suffix`. */
static int ends_with(const char *key, const char *suffix)
{
    size_t len = strlen(key), suffix_len = strlen(suffix);
    return len >= suffix_len && strcmp(key + len - suffix_len, suffix) == 0;
}

int ctl_option_is_secret(const char *key)
{
    static const char *const secret_words[] = {"key", "token", "secret", "password"};
    /* A secret's file or variable (api_key_file, api_key_env) names where
     * it is, which an error must show (the file at fault). */
    if (ends_with(key, "_file") || ends_with(key, "_env"))
        return 0;
    for (size_t i = 0; i < sizeof secret_words / sizeof secret_words[0]; i++) {
        if (strcasestr(key, secret_words[i]) != NULL)
            return 1;
    }
    return 0;
}

sbx_status ctl_redactor_add_options(ctl_redactor *redactor,
                                        const sbx_option *options, size_t count,
                                        sbx_error *err)
{
    for (size_t i = 0; i < count; i++) {
        if (!ctl_option_is_secret(options[i].key) || options[i].value == NULL ||
            options[i].value[0] == '\0')
            continue;
        char **grown = realloc(redactor->secrets, (redactor->count + 1) * sizeof *grown);
        if (grown == NULL)
            return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        redactor->secrets = grown;
        grown[redactor->count] = strdup(options[i].value);
        if (grown[redactor->count] == NULL)
            return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        redactor->count++;
    }
    return SBX_OK;
}

void ctl_redactor_clear(ctl_redactor *redactor)
{
    if (redactor == NULL)
        return;
    for (size_t i = 0; i < redactor->count; i++)
        free(redactor->secrets[i]);
    free(redactor->secrets);
    redactor->secrets = NULL;
    redactor->count = 0;
}

int ctl_redacted_write(const ctl_redactor *redactor, const char *text,
                           FILE *stream)
{
    if (redactor == NULL || redactor->count == 0)
        return fputs(text, stream) == EOF ? EOF : 0;
    /* A mask may be longer than the secret it hides (one of 1 or 2
     * bytes), never more than three times. */
    size_t cap = 3 * strlen(text) + 1;
    char *buf[2] = { malloc(cap), malloc(cap) };
    int status = EOF;
    if (buf[0] != NULL && buf[1] != NULL) {
        const char *current = text;
        for (size_t i = 0; i < redactor->count; i++) {
            char *next = buf[i % 2];
            common_redact_secret(current, redactor->secrets[i], next, cap);
            current = next;
        }
        status = fputs(current, stream) == EOF ? EOF : 0;
    }
    free(buf[0]);
    free(buf[1]);
    return status;
}

void ctl_flatten_line(char *line)
{
    size_t len = strlen(line);
    if (len > 0 && line[len - 1] == '\n')
        len--;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c < 0x20 || c == 0x7f)
            line[i] = ' ';
    }
}
