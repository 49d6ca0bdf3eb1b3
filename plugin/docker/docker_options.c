/* Option parsing of the docker backend (see docker_options.h). */
#include <config.h>

#include "plugin/docker/docker_options.h"

#include "common/option_values.h"
#include "plugin/docker/docker_backend.h"
#include <sbx/backend_support.h>

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

/* Split "K=V,K2=V2" into pairs; an empty value is no pairs.  Keys must be
 * non-empty; `reserved` (may be NULL) is a key prefix callers may not use. */
static sbx_status parse_pairs(const char *key, const char *value, const char *reserved,
                              docker_pair **out, size_t *count, sbx_error *err)
{
    pairs_free(*out, *count);
    *out = NULL;
    *count = 0;
    if (value == NULL || value[0] == '\0')
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
            return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                         "option '%s': item %zu is not KEY=VALUE", key, i + 1);
        }
        pairs[i].key = strndup(item, (size_t)(eq - item));
        pairs[i].value = strndup(eq + 1, len - (size_t)(eq - item) - 1);
        if (pairs[i].key == NULL || pairs[i].value == NULL) {
            pairs_free(pairs, i + 1);
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        }
        if (reserved != NULL && strncmp(pairs[i].key, reserved, strlen(reserved)) == 0) {
            sbx_status st = sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                                  "option '%s': label '%.64s' is reserved (%s*)",
                                                  key, pairs[i].key, reserved);
            pairs_free(pairs, i + 1);
            return st;
        }
        item += len + (item[len] == ',');
    }
    *out = pairs;
    *count = n;
    return SBX_OK;
}

static sbx_status checked_string(const char *key, const char *value,
                                 int (*valid)(const char *), char **dst, sbx_error *err)
{
    if (!valid(value))
        return sbx_backend_error_set(err, SBX_ERR_CONFIG, "option '%s': invalid value '%.64s'",
                                     key, value ? value : "");
    return common_option_copy_string(dst, value, err);
}

static int is_nonempty(const char *s)
{
    return s != NULL && s[0] != '\0';
}

static sbx_status parse_init(const char *key, const char *value, docker_init_mode *out,
                             sbx_error *err)
{
    static const struct {
        const char *word;
        docker_init_mode mode;
    } words[] = { { "auto", DOCKER_INIT_AUTO }, { "true", DOCKER_INIT_ON },
                  { "false", DOCKER_INIT_OFF } };
    for (size_t i = 0; value != NULL && i < sizeof words / sizeof words[0]; i++) {
        if (strcmp(value, words[i].word) == 0) {
            *out = words[i].mode;
            return SBX_OK;
        }
    }
    return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                 "option '%s': invalid value '%.64s' (auto, true or false)", key,
                                 value ? value : "");
}

static sbx_status apply_option(void *target, const char *k, const char *v, sbx_error *err)
{
    docker_options *o = target;
    if (strcmp(k, "socket") == 0)
        return checked_string(k, v, is_nonempty, &o->socket_path, err);
    if (strcmp(k, "image") == 0)
        return checked_string(k, v, is_nonempty, &o->image, err);
    if (strcmp(k, "name_prefix") == 0)
        return checked_string(k, v, is_name_prefix, &o->name_prefix, err);
    if (strcmp(k, "bind_host") == 0)
        return checked_string(k, v, is_bind_host, &o->bind_host, err);
    if (strcmp(k, "api_version") == 0)
        return checked_string(k, v, is_api_version, &o->api_version, err);
    if (strcmp(k, "command") == 0) {
        free(o->command);
        o->command = NULL;
        return is_nonempty(v) ? common_option_copy_string(&o->command, v, err) : SBX_OK;
    }
    if (strcmp(k, "port") == 0)
        return common_option_parse_long(k, v, 1, 65535, &o->port, err);
    if (strcmp(k, "timeout_ms") == 0)
        return common_option_parse_long(k, v, 1, 3600000L, &o->timeout_ms, err);
    if (strcmp(k, "stop_grace_s") == 0)
        return common_option_parse_long(k, v, 0, 3600L, &o->stop_grace_s, err);
    if (strcmp(k, "ready_timeout_ms") == 0)
        return common_option_parse_long(k, v, 0, 600000L, &o->ready_timeout_ms, err);
    if (strcmp(k, "init") == 0)
        return parse_init(k, v, &o->init, err);
    if (strcmp(k, "env") == 0)
        return parse_pairs(k, v, NULL, &o->env, &o->env_count, err);
    if (strcmp(k, "labels") == 0)
        return parse_pairs(k, v, "sbx.", &o->labels, &o->label_count, err);
    return common_option_unknown(DOCKER_NAME, k,
                                 "socket, image, name_prefix, bind_host, port, env, labels, "
                                 "command, api_version, timeout_ms, stop_grace_s, "
                                 "ready_timeout_ms, init", err);
}

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

static sbx_status apply_defaults(docker_options *o, sbx_error *err)
{
    sbx_status st = SBX_OK;
    if (o->socket_path == NULL)
        st = default_socket(o, err);
    if (st == SBX_OK && o->name_prefix == NULL)
        st = common_option_copy_string(&o->name_prefix, DEFAULT_PREFIX, err);
    if (st == SBX_OK && o->bind_host == NULL)
        st = common_option_copy_string(&o->bind_host, DEFAULT_BIND_HOST, err);
    if (st == SBX_OK && o->api_version == NULL)
        st = common_option_copy_string(&o->api_version, DEFAULT_API_VERSION, err);
    return st;
}

sbx_status docker_options_parse(const sbx_option *options, size_t count,
                                docker_options *out, sbx_error *err)
{
    memset(out, 0, sizeof *out);
    out->port = DEFAULT_PORT;
    out->timeout_ms = DEFAULT_TIMEOUT_MS;
    out->stop_grace_s = DEFAULT_STOP_GRACE_S;
    out->ready_timeout_ms = DEFAULT_READY_TIMEOUT_MS;
    sbx_status st = common_options_apply(options, count, apply_option, out, err);
    if (st == SBX_OK)
        st = apply_defaults(out, err);
    if (st != SBX_OK)
        docker_options_clear(out);
    return st;
}

void docker_options_clear(docker_options *o)
{
    free(o->socket_path);
    free(o->image);
    free(o->name_prefix);
    free(o->bind_host);
    free(o->command);
    free(o->api_version);
    pairs_free(o->env, o->env_count);
    pairs_free(o->labels, o->label_count);
    memset(o, 0, sizeof *o);
}
