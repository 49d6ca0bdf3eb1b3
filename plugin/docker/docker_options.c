/* Option parsing of the docker backend (see docker_options.h). */
#include <config.h>

#include "plugin/docker/docker_options.h"

#include "common/option_table.h"
#include "common/option_values.h"
#include "common/printable.h"
#include <sbx/backend_support.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SOCKET "/var/run/docker.sock"
#define DEFAULT_PREFIX "sbx"
#define DEFAULT_BIND_HOST "127.0.0.1"
#define DEFAULT_API_VERSION "v1.41"
#define DEFAULT_PORT 8080L
#define DEFAULT_TIMEOUT_MS 30000L
#define DEFAULT_STOP_GRACE_S 5L
#define DEFAULT_READY_TIMEOUT_MS 5000L
#define DEFAULT_MAX_PROCESSES 64L
#define DEFAULT_PROCESS_BUFFER (1L << 20)
#define DEFAULT_MAX_PROCESS_BUFFER (64L << 20)
#define MAX_PROCESS_BUFFER (1L << 30)

static void pairs_free(docker_pair *pairs, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(pairs[i].key);
        free(pairs[i].value);
    }
    free(pairs);
}

/* Container names: [a-zA-Z0-9][a-zA-Z0-9_.-]*, as both engines accept. */
static int is_name_prefix(const char *s)
{
    if (s == NULL || s[0] == '\0' || strlen(s) > 64)
        return 0;
    for (const char *p = s; *p != '\0'; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 (p != s && (c == '_' || c == '.' || c == '-'));
        if (!ok)
            return 0;
    }
    return 1;
}

/* "v1.41": the version travels in every path, so only this shape passes. */
static int is_api_version(const char *s)
{
    if (s == NULL || s[0] != 'v')
        return 0;
    const char *p = s + 1;
    size_t major = strspn(p, "0123456789");
    if (major == 0 || p[major] != '.')
        return 0;
    p += major + 1;
    size_t minor = strspn(p, "0123456789");
    return minor > 0 && p[minor] == '\0';
}

/* A host address for URLs and port bindings: letters, digits, '.', ':'
 * and '-' only (names, IPv4, IPv6 without brackets). */
static int is_bind_host(const char *s)
{
    return s != NULL && s[0] != '\0' && strlen(s) < 256 &&
           s[strspn(s,
                    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:-")] == '\0';
}

/* Split "K=V,K2=V2" into *out (the old pairs freed); an empty value is
 * no pairs.  Keys must be non-empty; `reserved` (may be NULL) is a key
 * prefix callers may not use. */
static sbx_status parse_pairs(const char *value, const char *reserved, docker_pairs *out,
                              char *rule, size_t cap, sbx_error *err)
{
    pairs_free(out->items, out->count);
    out->items = NULL;
    out->count = 0;
    if (value[0] == '\0')
        return SBX_OK;
    size_t n = 1;
    for (const char *p = value; *p != '\0'; p++)
        n += *p == ',';
    docker_pair *pairs = calloc(n, sizeof *pairs);
    if (pairs == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    const char *item = value;
    for (size_t i = 0; i < n; i++) {
        size_t len = strcspn(item, ",");
        const char *eq = memchr(item, '=', len);
        if (eq == NULL || eq == item) {
            pairs_free(pairs, i);
            snprintf(rule, cap, "has an item (number %zu) that is not KEY=VALUE", i + 1);
            return SBX_ERR_CONFIG;
        }
        pairs[i].key = strndup(item, (size_t)(eq - item));
        pairs[i].value = strndup(eq + 1, len - (size_t)(eq - item) - 1);
        if (pairs[i].key == NULL || pairs[i].value == NULL) {
            pairs_free(pairs, i + 1);
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        }
        if (reserved != NULL && strncmp(pairs[i].key, reserved, strlen(reserved)) == 0) {
            char shown[80];
            snprintf(rule, cap, "has the label '%s', but %s* is reserved",
                     common_printable(pairs[i].key, shown, sizeof shown), reserved);
            pairs_free(pairs, i + 1);
            return SBX_ERR_CONFIG;
        }
        item += len + (item[len] == ',');
    }
    out->items = pairs;
    out->count = n;
    return SBX_OK;
}

static sbx_status parse_env(void *target, const char *value, char *rule, size_t cap,
                            sbx_error *err)
{
    docker_options *o = target;
    return parse_pairs(value, NULL, &o->env, rule, cap, err);
}

static sbx_status parse_labels(void *target, const char *value, char *rule, size_t cap,
                               sbx_error *err)
{
    docker_options *o = target;
    return parse_pairs(value, "sbx.", &o->labels, rule, cap, err);
}

/* Indexed by docker_init_mode. */
static const char *const init_words[] = { "auto", "true", "false", NULL };

#define STRING_AT(field) COMMON_OPTION_STRING_IN(docker_options, field)
#define LONG_AT(field, lo, hi, dflt) COMMON_OPTION_LONG_IN(docker_options, field, lo, hi, dflt)

/* docs/docker.md lists these, in this order.  The socket's default comes
 * from the environment (default_socket). */
static const common_option_spec docker_specs[] = {
    { .key = "socket", STRING_AT(socket_path), .flags = COMMON_OPTION_NOT_EMPTY },
    { .key = "image", STRING_AT(image), .flags = COMMON_OPTION_NOT_EMPTY },
    { .key = "name_prefix", STRING_AT(name_prefix), .fallback_text = DEFAULT_PREFIX,
      .valid = is_name_prefix,
      .rule = "must be [a-zA-Z0-9][a-zA-Z0-9_.-]* of at most 64 characters" },
    { .key = "bind_host", STRING_AT(bind_host), .fallback_text = DEFAULT_BIND_HOST,
      .valid = is_bind_host,
      .rule = "must be a host name or address of 1-255 letters, digits, '.', ':' or '-'" },
    { .key = "port", LONG_AT(port, 1, 65535, DEFAULT_PORT) },
    { .key = "env", .kind = COMMON_OPTION_CUSTOM, .parse = parse_env },
    { .key = "labels", .kind = COMMON_OPTION_CUSTOM, .parse = parse_labels },
    { .key = "command", STRING_AT(command), .flags = COMMON_OPTION_EMPTY_IS_NONE },
    { .key = "api_version", STRING_AT(api_version), .fallback_text = DEFAULT_API_VERSION,
      .valid = is_api_version, .rule = "must be vMAJOR.MINOR (e.g. v1.41)" },
    { .key = "timeout_ms", LONG_AT(timeout_ms, 1, 3600000L, DEFAULT_TIMEOUT_MS) },
    { .key = "stop_grace_s", LONG_AT(stop_grace_s, 0, 3600L, DEFAULT_STOP_GRACE_S) },
    { .key = "ready_timeout_ms", LONG_AT(ready_timeout_ms, 0, 600000L,
                                         DEFAULT_READY_TIMEOUT_MS) },
    { .key = "init", .kind = COMMON_OPTION_WORD, .offset = offsetof(docker_options, init),
      .words = init_words, .fallback = DOCKER_INIT_AUTO },
    { .key = "max_processes", LONG_AT(max_processes, 1, 4096L, DEFAULT_MAX_PROCESSES) },
    { .key = "process_buffer_bytes", LONG_AT(process_buffer_bytes, 1, MAX_PROCESS_BUFFER,
                                             DEFAULT_PROCESS_BUFFER) },
    { .key = "max_process_buffer_bytes", LONG_AT(max_process_buffer_bytes, 1,
                                                 MAX_PROCESS_BUFFER, DEFAULT_MAX_PROCESS_BUFFER) },
    { .key = "pty_helper", STRING_AT(pty_helper), .flags = COMMON_OPTION_NOT_EMPTY },
};

static const common_option_table docker_table = {
    DOCKER_NAME, docker_specs, sizeof docker_specs / sizeof docker_specs[0]
};

/* The socket when the `socket` option is not given. */
static sbx_status default_socket(docker_options *o, sbx_error *err)
{
    const char *docker_host = getenv("DOCKER_HOST");
    if (docker_host == NULL || docker_host[0] == '\0')
        return common_option_copy_string(&o->socket_path, DEFAULT_SOCKET, err);
    if (strncmp(docker_host, "unix://", 7) != 0 || docker_host[7] != '/')
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "DOCKER_HOST '%.100s' is not supported: only unix:///PATH "
                                     "(or set the option 'socket')", docker_host);
    return common_option_copy_string(&o->socket_path, docker_host + 7, err);
}

/* The terminal helper when the `pty_helper` option is not given: the
 * environment's SBX_DOCKER_PTY_HELPER (a build tree's tests), else the
 * installed one. */
static sbx_status default_pty_helper(docker_options *o, sbx_error *err)
{
    const char *from_env = getenv("SBX_DOCKER_PTY_HELPER");
    return common_option_copy_string(&o->pty_helper,
                                     from_env != NULL && from_env[0] != '\0'
                                         ? from_env
                                         : SBX_DOCKER_PTY_HELPER,
                                     err);
}

sbx_status docker_options_parse(const sbx_option *options, size_t count,
                                docker_options *out, sbx_error *err)
{
    memset(out, 0, sizeof *out);
    sbx_status st = common_option_table_parse(&docker_table, options, count, out, err);
    if (st == SBX_OK && out->socket_path == NULL)
        st = default_socket(out, err);
    if (st == SBX_OK && out->pty_helper == NULL)
        st = default_pty_helper(out, err);
    if (st != SBX_OK)
        docker_options_clear(out);
    return st;
}

const common_option_table *docker_options_table(void)
{
    return &docker_table;
}

void docker_options_clear(docker_options *o)
{
    free(o->socket_path);
    free(o->image);
    free(o->name_prefix);
    free(o->bind_host);
    free(o->command);
    free(o->api_version);
    free(o->pty_helper);
    pairs_free(o->env.items, o->env.count);
    pairs_free(o->labels.items, o->labels.count);
    memset(o, 0, sizeof *o);
}
