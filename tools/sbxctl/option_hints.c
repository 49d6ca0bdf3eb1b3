/* Hints for options given to the wrong backend (see option_hints.h).  The
 * backends name an unknown key in their open() error; the hint is added
 * only to such a message, so a stale table can cost a hint, never an error. */
#include <config.h>

#include "tools/sbxctl/option_hints.h"

#include <stdio.h>
#include <string.h>

static const char *const remote_keys[] = {
    "provisioner_url", "api_key", "sandbox_api_key", "ca_file", "timeout_ms",
    "connect_timeout_ms", "list_timeout_ms", "create_timeout_ms", "destroy_timeout_ms",
    "get_timeout_ms", "max_response_bytes", "forward_mounts", NULL};

static const char *const docker_keys[] = {
    "socket", "image", "name_prefix", "bind_host", "api_version", "command", "port",
    "timeout_ms", "stop_grace_s", "ready_timeout_ms", "init", "env", "labels", NULL};

static const ctl_backend_options known[] = {
    {"remote", remote_keys},
    {"docker", docker_keys},
};

#define KNOWN_COUNT (sizeof known / sizeof known[0])

const ctl_backend_options *ctl_known_backend_options(size_t *count)
{
    *count = KNOWN_COUNT;
    return known;
}

static int takes(const ctl_backend_options *entry, const char *key)
{
    for (const char *const *k = entry->keys; *k != NULL; k++)
        if (strcmp(*k, key) == 0)
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
    for (size_t i = 0; i < KNOWN_COUNT && used < cap; i++) {
        if (strcmp(known[i].backend, backend) == 0 || !takes(&known[i], key))
            continue;
        int n = snprintf(hint + used, cap - used, "%s--backend %s",
                         found ? " or " : "; did you mean ", known[i].backend);
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
