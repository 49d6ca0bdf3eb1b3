/* Parsing and validation of the remote backend's options (see remote_options.h). */
#include <config.h>

#include "plugin/remote/remote_options.h"

#include "common/http_client.h"
#include "common/option_values.h"
#include "common/printable.h"
#include "plugin/remote/remote_backend.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Container paths the provisioner can recreate: the reference client's
 * allowlist, less /mnt/skills/custom, which in hostPath mode collides with
 * the provisioner's own mount there so that the Pod is rejected
 * (forward_mounts can add it back). */
static const char *const default_forward_mounts[] = {
    "/mnt/user-data/.upload-conversions",
    "/mnt/acp-workspace",
    "/mnt/skills/integrations",
    "/mnt/integrations/lark-cli/config",
    "/mnt/integrations/lark-cli/data",
    "/mnt/integrations/lark-cli/runtime",
};

/* Upper bounds that keep the arithmetic and the allocations sane. */
#define MAX_TIMEOUT_MS (24L * 3600 * 1000)
#define MAX_RESPONSE_LIMIT ((unsigned long long)1 << 30)

/* The value is quoted as common_printable_url shows it: only provisioner_url
 * can hold credentials, and for any other value it is common_printable. */
static sbx_status bad_value(const char *key, const char *value, const char *rule,
                            sbx_error *err)
{
    char shown[80];
    return sbx_backend_error_set(err, SBX_ERR_CONFIG, "remote backend option %s='%s': %s", key,
                                 common_printable_url(value, shown, sizeof shown), rule);
}

static sbx_status parse_positive(const char *key, const char *value,
                                 unsigned long long max, unsigned long long *out,
                                 sbx_error *err)
{
    char *end = NULL;
    errno = 0;
    if (value[0] < '0' || value[0] > '9')
        return bad_value(key, value, "must be a positive integer", err);
    unsigned long long v = strtoull(value, &end, 10);
    if (errno != 0 || *end != '\0' || v == 0 || v > max) {
        char rule[96];
        snprintf(rule, sizeof rule, "must be a positive integer of at most %llu", max);
        return bad_value(key, value, rule, err);
    }
    *out = v;
    return SBX_OK;
}

static sbx_status parse_timeout(const char *key, const char *value, long *out,
                                sbx_error *err)
{
    unsigned long long v = 0;
    sbx_status st = parse_positive(key, value, (unsigned long long)MAX_TIMEOUT_MS, &v, err);
    if (st == SBX_OK)
        *out = (long)v;
    return st;
}

static sbx_status replace_string(char **slot, const char *value, sbx_error *err)
{
    char *copy = strdup(value);
    if (copy == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    free(*slot);
    *slot = copy;
    return SBX_OK;
}

/* Only scheme://[user:password@]host[:port][/path]: a query or fragment
 * would swallow the paths the backend appends (a DELETE would go to "/"
 * and its 404 read as "already gone"). */
static sbx_status parse_url(const char *value, remote_options *out, sbx_error *err)
{
    if (strncasecmp(value, "http://", 7) != 0 && strncasecmp(value, "https://", 8) != 0)
        return bad_value("provisioner_url", value, "must begin with http:// or https://", err);
    for (const unsigned char *p = (const unsigned char *)value; *p != '\0'; p++)
        if (*p <= ' ' || *p >= 0x7F)
            return bad_value("provisioner_url", value,
                             "must not contain whitespace, control or non-ASCII characters",
                             err);
    if (strpbrk(value, "?#") != NULL)
        return bad_value("provisioner_url", value,
                         "must not have a query or fragment (only scheme, host, port and "
                         "path)", err);
    const char *authority = strstr(value, "://") + 3;
    size_t start = 0, cred_len = 0;
    if (common_url_credentials(value, &start, &cred_len))
        authority = value + start + cred_len;
    size_t authority_len = strcspn(authority, "/");
    if (authority_len == 0 || authority[0] == ':')
        return bad_value("provisioner_url", value, "has no host", err);
    const char *colon = authority[0] == '['
                            ? memchr(authority, ']', authority_len) : authority;
    if (colon == NULL)
        return bad_value("provisioner_url", value, "has an unterminated IPv6 address", err);
    colon = memchr(colon, ':', authority_len - (size_t)(colon - authority));
    if (colon != NULL) {
        const char *port = colon + 1, *end = authority + authority_len;
        unsigned long n = 0;
        for (const char *p = port; p < end && n <= 65535; p++)
            n = (*p >= '0' && *p <= '9') ? n * 10 + (unsigned long)(*p - '0') : 65536;
        if (port == end || n == 0 || n > 65535)
            return bad_value("provisioner_url", value, "has a port that is not 1-65535", err);
    }
    sbx_status st = replace_string(&out->provisioner_url, value, err);
    if (st != SBX_OK)
        return st;
    size_t len = strlen(out->provisioner_url);
    while (len > 0 && out->provisioner_url[len - 1] == '/')
        out->provisioner_url[--len] = '\0';
    return SBX_OK;
}

/* A CA bundle must be a readable regular file: a directory or a device
 * would pass open() and fail every call later, as if the network did. */
static sbx_status parse_ca_file(const char *value, remote_options *out, sbx_error *err)
{
    struct stat sb;
    int fd = value[0] != '\0' ? open(value, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
    int regular = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
    if (fd >= 0)
        close(fd);
    if (!regular)
        return bad_value("ca_file", value, "must name a readable, non-empty regular file",
                         err);
    return replace_string(&out->ca_file, value, err);
}

static void free_mounts(remote_options *opts)
{
    for (size_t i = 0; i < opts->forward_mount_count; i++)
        free(opts->forward_mounts[i]);
    free(opts->forward_mounts);
    opts->forward_mounts = NULL;
    opts->forward_mount_count = 0;
}

static sbx_status add_mount(remote_options *opts, const char *path, size_t len,
                            sbx_error *err)
{
    char **grown = realloc(opts->forward_mounts,
                           (opts->forward_mount_count + 1) * sizeof *grown);
    if (grown == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    opts->forward_mounts = grown;
    char *copy = strndup(path, len);
    if (copy == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    opts->forward_mounts[opts->forward_mount_count++] = copy;
    return SBX_OK;
}

/* Comma-separated absolute container paths; blanks around entries and empty
 * entries are ignored, so "" forwards nothing. */
static sbx_status parse_forward_mounts(const char *value, remote_options *out,
                                       sbx_error *err)
{
    free_mounts(out);
    const char *p = value;
    while (*p != '\0') {
        const char *comma = strchr(p, ',');
        const char *stop = comma != NULL ? comma : p + strlen(p);
        const char *start = p;
        while (start < stop && (*start == ' ' || *start == '\t'))
            start++;
        const char *end = stop;
        while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        if (end > start) {
            if (start[0] != '/')
                return bad_value("forward_mounts", value,
                                 "each entry must be an absolute container path", err);
            sbx_status st = add_mount(out, start, (size_t)(end - start), err);
            if (st != SBX_OK)
                return st;
        }
        p = comma != NULL ? comma + 1 : stop;
    }
    return SBX_OK;
}

static sbx_status set_default_mounts(remote_options *out, sbx_error *err)
{
    size_t n = sizeof default_forward_mounts / sizeof default_forward_mounts[0];
    for (size_t i = 0; i < n; i++) {
        sbx_status st = add_mount(out, default_forward_mounts[i],
                                  strlen(default_forward_mounts[i]), err);
        if (st != SBX_OK)
            return st;
    }
    return SBX_OK;
}

/* What parsing keeps beside the options: the `timeout_ms` that overrides
 * every per-call timeout, and whether forward_mounts was given. */
typedef struct parse_state {
    remote_options *out;
    long timeout_override;
    int mounts_set;
} parse_state;

/* A key option (api_key, sandbox_api_key): a secret, never echoed, not
 * even when refused; empty means none. */
static sbx_status parse_key(const char *key, const char *value, char **slot, sbx_error *err)
{
    if (strpbrk(value, "\r\n") != NULL)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "remote backend option %s contains CR or LF", key);
    if (*slot != NULL)
        memset(*slot, 0, strlen(*slot));
    free(*slot);
    *slot = NULL;
    return value[0] == '\0' ? SBX_OK : replace_string(slot, value, err);
}

static sbx_status apply_option(void *target, const char *key, const char *value,
                               sbx_error *err)
{
    parse_state *ps = target;
    remote_options *out = ps->out;
    if (strcmp(key, "provisioner_url") == 0)
        return parse_url(value, out, err);
    if (strcmp(key, "api_key") == 0)
        return parse_key(key, value, &out->api_key, err);
    if (strcmp(key, "sandbox_api_key") == 0)
        return parse_key(key, value, &out->sandbox_api_key, err);
    if (strcmp(key, "ca_file") == 0)
        return parse_ca_file(value, out, err);
    if (strcmp(key, "timeout_ms") == 0)
        return parse_timeout(key, value, &ps->timeout_override, err);
    if (strcmp(key, "connect_timeout_ms") == 0)
        return parse_timeout(key, value, &out->connect_timeout_ms, err);
    if (strcmp(key, "list_timeout_ms") == 0)
        return parse_timeout(key, value, &out->list_timeout_ms, err);
    if (strcmp(key, "create_timeout_ms") == 0)
        return parse_timeout(key, value, &out->create_timeout_ms, err);
    if (strcmp(key, "destroy_timeout_ms") == 0)
        return parse_timeout(key, value, &out->destroy_timeout_ms, err);
    if (strcmp(key, "get_timeout_ms") == 0)
        return parse_timeout(key, value, &out->get_timeout_ms, err);
    if (strcmp(key, "max_response_bytes") == 0) {
        unsigned long long v = 0;
        sbx_status st = parse_positive(key, value, MAX_RESPONSE_LIMIT, &v, err);
        if (st == SBX_OK)
            out->max_response_bytes = (size_t)v;
        return st;
    }
    if (strcmp(key, "forward_mounts") == 0) {
        ps->mounts_set = 1;
        return parse_forward_mounts(value, out, err);
    }
    return common_option_unknown(REMOTE_NAME, key,
                                 "provisioner_url, api_key, sandbox_api_key, timeout_ms, "
                                 "connect_timeout_ms, ca_file, max_response_bytes, "
                                 "forward_mounts, list_timeout_ms, create_timeout_ms, "
                                 "destroy_timeout_ms, get_timeout_ms", err);
}

sbx_status remote_options_parse(const sbx_option *options, size_t option_count,
                                remote_options *out, sbx_error *err)
{
    memset(out, 0, sizeof *out);
    out->list_timeout_ms = REMOTE_LIST_TIMEOUT_MS;
    out->create_timeout_ms = REMOTE_CREATE_TIMEOUT_MS;
    out->destroy_timeout_ms = REMOTE_DESTROY_TIMEOUT_MS;
    out->get_timeout_ms = REMOTE_GET_TIMEOUT_MS;
    out->max_response_bytes = COMMON_HTTP_DEFAULT_MAX_RESPONSE;
    parse_state ps = { out, 0, 0 };
    sbx_status st = common_options_apply(options, option_count, apply_option, &ps, err);
    if (st == SBX_OK && out->provisioner_url == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                   "remote backend option provisioner_url is required");
    if (st == SBX_OK && ps.timeout_override > 0) {
        out->list_timeout_ms = ps.timeout_override;
        out->create_timeout_ms = ps.timeout_override;
        out->destroy_timeout_ms = ps.timeout_override;
        out->get_timeout_ms = ps.timeout_override;
    }
    if (st == SBX_OK && !ps.mounts_set)
        st = set_default_mounts(out, err);
    if (st != SBX_OK)
        remote_options_clear(out);
    return st;
}

void remote_options_clear(remote_options *opts)
{
    free(opts->provisioner_url);
    if (opts->api_key != NULL) /* a secret: do not leave it in freed memory */
        memset(opts->api_key, 0, strlen(opts->api_key));
    free(opts->api_key);
    if (opts->sandbox_api_key != NULL)
        memset(opts->sandbox_api_key, 0, strlen(opts->sandbox_api_key));
    free(opts->sandbox_api_key);
    free(opts->ca_file);
    free_mounts(opts);
    memset(opts, 0, sizeof *opts);
}
