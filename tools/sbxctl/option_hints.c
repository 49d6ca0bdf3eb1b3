/* Hints for options given to the wrong backend (see option_hints.h).  The
 * backends name an unknown key in their open() error; the hint is added
 * only to such a message.  The keys are the backends' own option tables,
 * linked from their convenience libraries (the tables and their parsers,
 * nothing that talks to an engine or a provisioner). */
#include <config.h>

#include "tools/sbxctl/option_hints.h"

#include "plugin/docker/docker_options.h"
#include "plugin/remote/remote_options.h"

#include <stdio.h>
#include <string.h>

const common_option_table *ctl_known_backend_table(size_t index)
{
    switch (index) {
    case 0:
        return remote_options_table();
    case 1:
        return docker_options_table();
    default:
        return NULL;
    }
}

static int takes(const common_option_table *table, const char *key)
{
    for (size_t i = 0; i < table->count; i++)
        if (strcmp(table->specs[i].key, key) == 0)
            return 1;
    return 0;
}

/* Non-zero when `message` says that `key` is an unknown option. */
static int names_unknown(const char *message, const char *key)
{
    char needle[128];
    int n = snprintf(needle, sizeof needle, "unknown option '%s'", key);
    return n > 0 && (size_t)n < sizeof needle && strstr(message, needle) != NULL;
}

/* "; did you mean --backend A (or --backend B)?" for `key` into hint[cap];
 * 0 when no other backend takes it. */
static int format_hint(const char *backend, const char *key, char *hint, size_t cap)
{
    size_t used = 0;
    int found = 0;
    const common_option_table *table;
    for (size_t i = 0; (table = ctl_known_backend_table(i)) != NULL && used < cap; i++) {
        if (strcmp(table->backend, backend) == 0 || !takes(table, key))
            continue;
        int n = snprintf(hint + used, cap - used, "%s--backend %s",
                         found ? " or " : "; did you mean ", table->backend);
        if (n < 0)
            return 0;
        used += (size_t)n;
        found = 1;
    }
    if (found && used + 1 < cap) {
        hint[used] = '?';
        hint[used + 1] = '\0';
    }
    return found && used + 1 < cap;
}

void ctl_hint_backend(sbx_error *err, const char *backend, const sbx_option *options,
                          size_t count)
{
    if (err->kind != SBX_ERR_CONFIG)
        return;
    for (size_t i = 0; i < count; i++) {
        char hint[128];
        if (!names_unknown(err->message, options[i].key) ||
            !format_hint(backend, options[i].key, hint, sizeof hint))
            continue;
        size_t hint_len = strlen(hint);
        size_t len = strlen(err->message);
        if (len + hint_len >= sizeof err->message)
            len = sizeof err->message - 1 - hint_len;
        memcpy(err->message + len, hint, hint_len + 1);
        return;
    }
}
