/* Parsing and validation of the remote backend's options (see remote_options.h). */
#include <config.h>

#include "plugin/remote/remote_options.h"

#include "common/http_client.h"
#include "common/option_table.h"
#include "common/option_values.h"
#include "common/printable.h"
#include "common/secret_file.h"

#include <sbx/backend_support.h>

#include <stdio.h>
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
#define MAX_RESPONSE_LIMIT (1L << 30)

/* What parsing fills: the options, and the `timeout_ms` that overrides
 * every per-call timeout (0: not given). */
typedef struct remote_parse {
    remote_options opts;
    long timeout_ms;
} remote_parse;

static sbx_status set_rule(char *rule, size_t cap, const char *text)
{
    snprintf(rule, cap, "%s", text);
    return SBX_ERR_CONFIG;
}

/* Only scheme://[user:password@]host[:port][/path]: a query or fragment
 * would swallow the paths the backend appends (a DELETE would go to "/"
 * and its 404 read as "already gone"). */
static sbx_status parse_url(void *target, const char *value, char *rule, size_t cap,
                            sbx_error *err)
{
    remote_options *out = &((remote_parse *)target)->opts;
    if (strncasecmp(value, "http://", 7) != 0 && strncasecmp(value, "https://", 8) != 0)
        return set_rule(rule, cap, "must begin with http:// or https://");
    for (const unsigned char *p = (const unsigned char *)value; *p != '\0'; p++)
        if (*p <= ' ' || *p >= 0x7F)
            return set_rule(rule, cap,
                            "must not contain whitespace, control or non-ASCII characters");
    if (strpbrk(value, "?#") != NULL)
        return set_rule(rule, cap,
                        "must not have a query or fragment (only scheme, host, port and path)");
    const char *authority = strstr(value, "://") + 3;
    size_t start = 0, cred_len = 0;
    if (common_url_credentials(value, &start, &cred_len))
        authority = value + start + cred_len;
    size_t authority_len = strcspn(authority, "/");
    if (authority_len == 0 || authority[0] == ':')
        return set_rule(rule, cap, "has no host");
    const char *colon = authority[0] == '['
                            ? memchr(authority, ']', authority_len) : authority;
    if (colon == NULL)
        return set_rule(rule, cap, "has an unterminated IPv6 address");
    colon = memchr(colon, ':', authority_len - (size_t)(colon - authority));
    if (colon != NULL) {
        const char *port = colon + 1, *end = authority + authority_len;
        unsigned long n = 0;
        for (const char *p = port; p < end && n <= 65535; p++)
            n = (*p >= '0' && *p <= '9') ? n * 10 + (unsigned long)(*p - '0') : 65536;
        if (port == end || n == 0 || n > 65535)
            return set_rule(rule, cap, "has a port that is not 1-65535");
    }
    sbx_status st = common_option_copy_string(&out->provisioner_url, value, err);
    if (st != SBX_OK)
        return st;
    size_t len = strlen(out->provisioner_url);
    while (len > 0 && out->provisioner_url[len - 1] == '/')
        out->provisioner_url[--len] = '\0';
    return SBX_OK;
}

/* A CA bundle must be a readable regular file: a directory or a device
 * would pass open() and fail every call later, as if the network did. */
static sbx_status parse_ca_file(void *target, const char *value, char *rule, size_t cap,
                                sbx_error *err)
{
    struct stat sb;
    int fd = value[0] != '\0' ? open(value, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
    int regular = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
    if (fd >= 0)
        close(fd);
    if (!regular)
        return set_rule(rule, cap, "must name a readable, non-empty regular file");
    return common_option_copy_string(&((remote_parse *)target)->opts.ca_file, value, err);
}

/* Replace the key in *slot (the old one wiped) with `key` (taken; NULL:
 * none). */
static void put_key(char **slot, char *key)
{
    common_secret_free(*slot);
    *slot = key;
}

/* A key's file form: the one line of a file only its owner may open. */
static sbx_status key_from_file(char **slot, const char *path, char *rule, size_t cap)
{
    char *key = NULL;
    if (!common_secret_file_read(path, &key, rule, cap))
        return SBX_ERR_CONFIG;
    put_key(slot, key);
    return SBX_OK;
}

/* A key's environment form: the value of the variable `name` (empty
 * there: none, as an empty key). */
static sbx_status key_from_env(char **slot, const char *name, char *rule, size_t cap,
                               sbx_error *err)
{
    const char *value = name[0] != '\0' ? getenv(name) : NULL;
    if (value == NULL)
        return set_rule(rule, cap, "names no environment variable that is set");
    if (strpbrk(value, "\r\n") != NULL)
        return set_rule(rule, cap, "names a variable whose value holds CR or LF");
    char *key = NULL;
    if (value[0] != '\0' && (key = strdup(value)) == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    put_key(slot, key);
    return SBX_OK;
}

static sbx_status parse_api_key_file(void *target, const char *value, char *rule, size_t cap,
                                     sbx_error *err)
{
    (void)err;
    return key_from_file(&((remote_parse *)target)->opts.api_key, value, rule, cap);
}

static sbx_status parse_sandbox_api_key_file(void *target, const char *value, char *rule,
                                             size_t cap, sbx_error *err)
{
    (void)err;
    return key_from_file(&((remote_parse *)target)->opts.sandbox_api_key, value, rule, cap);
}

static sbx_status parse_api_key_env(void *target, const char *value, char *rule, size_t cap,
                                    sbx_error *err)
{
    return key_from_env(&((remote_parse *)target)->opts.api_key, value, rule, cap, err);
}

static sbx_status parse_sandbox_api_key_env(void *target, const char *value, char *rule,
                                            size_t cap, sbx_error *err)
{
    return key_from_env(&((remote_parse *)target)->opts.sandbox_api_key, value, rule, cap, err);
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
 * entries are ignored, so "" forwards nothing.  Replaces the default list. */
static sbx_status parse_forward_mounts(void *target, const char *value, char *rule,
                                       size_t cap, sbx_error *err)
{
    remote_options *out = &((remote_parse *)target)->opts;
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
                return set_rule(rule, cap, "each entry must be an absolute container path");
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

#define TIMEOUT(name, field, dflt)                                                            \
    { .key = name, COMMON_OPTION_LONG_IN(remote_parse, field, 1, MAX_TIMEOUT_MS, dflt) }

/* docs/remote.md lists these, in this order. */
static const common_option_spec remote_specs[] = {
    { .key = "provisioner_url", .kind = COMMON_OPTION_CUSTOM, .parse = parse_url,
      .flags = COMMON_OPTION_REQUIRED },
    { .key = "api_key", COMMON_OPTION_STRING_IN(remote_parse, opts.api_key),
      .flags = COMMON_OPTION_SECRET | COMMON_OPTION_EMPTY_IS_NONE },
    /* Sent to each sandbox's API, never to the provisioner. */
    { .key = "sandbox_api_key", COMMON_OPTION_STRING_IN(remote_parse, opts.sandbox_api_key),
      .flags = COMMON_OPTION_SECRET | COMMON_OPTION_EMPTY_IS_NONE },
    /* The same keys from a file or a variable, off every command line; the
     * last of a key's forms given wins. */
    { .key = "api_key_file", .kind = COMMON_OPTION_CUSTOM, .parse = parse_api_key_file },
    { .key = "sandbox_api_key_file", .kind = COMMON_OPTION_CUSTOM,
      .parse = parse_sandbox_api_key_file },
    { .key = "api_key_env", .kind = COMMON_OPTION_CUSTOM, .parse = parse_api_key_env },
    { .key = "sandbox_api_key_env", .kind = COMMON_OPTION_CUSTOM,
      .parse = parse_sandbox_api_key_env },
    /* 0: not given (the per-call timeouts stand). */
    TIMEOUT("timeout_ms", timeout_ms, 0),
    TIMEOUT("list_timeout_ms", opts.list_timeout_ms, REMOTE_LIST_TIMEOUT_MS),
    TIMEOUT("create_timeout_ms", opts.create_timeout_ms, REMOTE_CREATE_TIMEOUT_MS),
    TIMEOUT("destroy_timeout_ms", opts.destroy_timeout_ms, REMOTE_DESTROY_TIMEOUT_MS),
    TIMEOUT("get_timeout_ms", opts.get_timeout_ms, REMOTE_GET_TIMEOUT_MS),
    /* 0: libcurl's default. */
    TIMEOUT("connect_timeout_ms", opts.connect_timeout_ms, 0),
    { .key = "ca_file", .kind = COMMON_OPTION_CUSTOM, .parse = parse_ca_file },
    { .key = "max_response_bytes", .kind = COMMON_OPTION_SIZE,
      .offset = offsetof(remote_parse, opts.max_response_bytes), .min = 1,
      .max = MAX_RESPONSE_LIMIT, .fallback = (long)COMMON_HTTP_DEFAULT_MAX_RESPONSE },
    { .key = "forward_mounts", .kind = COMMON_OPTION_CUSTOM, .parse = parse_forward_mounts },
};

static const common_option_table remote_table = {
    REMOTE_NAME, remote_specs, sizeof remote_specs / sizeof remote_specs[0]
};

sbx_status remote_options_parse(const sbx_option *options, size_t option_count,
                                remote_options *out, sbx_error *err)
{
    remote_parse ps;
    memset(&ps, 0, sizeof ps);
    /* forward_mounts, when given, replaces the default list. */
    sbx_status st = set_default_mounts(&ps.opts, err);
    if (st == SBX_OK)
        st = common_option_table_parse(&remote_table, options, option_count, &ps, err);
    if (st == SBX_OK && ps.timeout_ms > 0) {
        ps.opts.list_timeout_ms = ps.timeout_ms;
        ps.opts.create_timeout_ms = ps.timeout_ms;
        ps.opts.destroy_timeout_ms = ps.timeout_ms;
        ps.opts.get_timeout_ms = ps.timeout_ms;
    }
    if (st != SBX_OK)
        remote_options_clear(&ps.opts);
    *out = ps.opts;
    return st;
}

const common_option_table *remote_options_table(void)
{
    return &remote_table;
}

void remote_options_clear(remote_options *opts)
{
    free(opts->provisioner_url);
    /* Secrets: not left in freed memory. */
    common_secret_free(opts->api_key);
    common_secret_free(opts->sandbox_api_key);
    free(opts->ca_file);
    free_mounts(opts);
    memset(opts, 0, sizeof *opts);
}
