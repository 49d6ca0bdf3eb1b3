/* Option parsing and the state directory of the local backend. */
#include <config.h>

#include "plugin/local/local_options.h"

#include "common/option_table.h"
#include "plugin/local/local_isolation_ids.h"
#include "plugin/local/local_state.h"
#include <sbx/backend_support.h>

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_STOP_TIMEOUT_MS 5000L
#define DEFAULT_READY_TIMEOUT_MS 5000L

/* Without lock_timeout_ms, a waiter outlasts the longest a destroy holds
 * the lock (stop_timeout_ms, then up to 5 s for SIGKILL) with room left. */
#define LOCK_TIMEOUT_OVER_STOP_MS 25000L

/* The default state directory: $XDG_STATE_HOME/sbx/local when that is an
 * absolute path (the XDG spec says to ignore relative ones), else
 * $HOME/.local/state/sbx/local. */
static sbx_status default_state_dir(char **out, sbx_error *err)
{
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *home = getenv("HOME");
    const char *base, *suffix;
    if (xdg != NULL && xdg[0] == '/') {
        base = xdg;
        suffix = "/sbx/local";
    } else if (home != NULL && home[0] == '/') {
        base = home;
        suffix = "/.local/state/sbx/local";
    } else {
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "option 'state_dir' is not set and neither "
                                     "XDG_STATE_HOME nor HOME is an absolute path");
    }
    size_t len = strlen(base) + strlen(suffix) + 1;
    char *dir = malloc(len);
    if (dir == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    snprintf(dir, len, "%s%s", base, suffix);
    *out = dir;
    return SBX_OK;
}

/* mkdir -p: parents get 0755 as usual, the state directory itself 0700
 * since it holds every sandbox of this user. */
static sbx_status make_dirs(const char *path, sbx_error *err)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG, "option 'state_dir': path too long");
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                         "option 'state_dir': cannot create '%s': %s",
                                         buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0700) != 0 && errno != EEXIST)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "option 'state_dir': cannot create '%s': %s",
                                     buf, strerror(errno));
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "option 'state_dir': '%s' is not a directory", buf);
    return SBX_OK;
}

/* Create the state directory and make its path absolute, so that sandbox
 * directories and file:// URLs do not depend on the current directory. */
static sbx_status prepare_state_dir(local_options *out, sbx_error *err)
{
    sbx_status st = make_dirs(out->state_dir, err);
    if (st != SBX_OK)
        return st;
    char *resolved = realpath(out->state_dir, NULL);
    if (resolved == NULL)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG,
                                     "option 'state_dir': cannot resolve '%s': %s",
                                     out->state_dir, strerror(errno));
    free(out->state_dir);
    out->state_dir = resolved;
    return local_claim_state_dir(out->state_dir, err);
}

#define LONG_AT(field, hi, dflt) COMMON_OPTION_LONG_IN(local_options, field, 0, hi, dflt)

/* docs/local.md lists these, in this order.  The state directory's
 * default comes from the environment (default_state_dir). */
static const common_option_spec local_specs[] = {
    { .key = "state_dir", COMMON_OPTION_STRING_IN(local_options, state_dir),
      .flags = COMMON_OPTION_NOT_EMPTY },
    /* Empty: directory-only sandboxes. */
    { .key = "command", COMMON_OPTION_STRING_IN(local_options, command),
      .flags = COMMON_OPTION_EMPTY_IS_NONE },
    { .key = "stop_timeout_ms", LONG_AT(stop_timeout_ms, 600000L, DEFAULT_STOP_TIMEOUT_MS) },
    { .key = "ready_timeout_ms", LONG_AT(ready_timeout_ms, 600000L, DEFAULT_READY_TIMEOUT_MS) },
    /* -1: not given, derived from stop_timeout_ms after parsing. */
    { .key = "lock_timeout_ms", LONG_AT(lock_timeout_ms, 1200000L, -1) },
    { .key = "isolation", .kind = COMMON_OPTION_WORD,
      .offset = offsetof(local_options, isolation.mode), .words = local_isolation_words,
      .fallback = LOCAL_ISOLATION_NAMESPACES },
    { .key = "network", .kind = COMMON_OPTION_WORD,
      .offset = offsetof(local_options, isolation.network), .words = local_network_words,
      .fallback = LOCAL_NETWORK_FORWARD },
    /* -1: not given (local_isolation_ids.h); never 0, root. */
    { .key = "sandbox_uid", COMMON_OPTION_LONG_IN(local_options, isolation.host_uid, 1,
                                                  4294967294L, -1) },
    { .key = "sandbox_gid", COMMON_OPTION_LONG_IN(local_options, isolation.host_gid, 1,
                                                  4294967294L, -1) },
    /* 0: the host's own limit. */
    { .key = "limit_processes", LONG_AT(isolation.max_processes, LONG_MAX,
                                        LOCAL_ISOLATION_DEFAULT_PROCESSES) },
    { .key = "limit_file_bytes", LONG_AT(isolation.max_file_bytes, LONG_MAX,
                                         LOCAL_ISOLATION_DEFAULT_FILE_BYTES) },
    { .key = "limit_open_files", LONG_AT(isolation.max_open_files, LONG_MAX,
                                         LOCAL_ISOLATION_DEFAULT_OPEN_FILES) },
    { .key = "limit_address_bytes", LONG_AT(isolation.max_address_bytes, LONG_MAX,
                                            LOCAL_ISOLATION_DEFAULT_ADDRESS_BYTES) },
    { .key = "limit_cpu_seconds", LONG_AT(isolation.max_cpu_seconds, LONG_MAX,
                                          LOCAL_ISOLATION_DEFAULT_CPU_SECONDS) },
    /* Live processes (ABI 1.4). */
    { .key = "max_processes", COMMON_OPTION_LONG_IN(local_options, max_processes, 1,
                                                    LOCAL_MAX_PROCESSES_LIMIT,
                                                    LOCAL_DEFAULT_MAX_PROCESSES) },
    { .key = "process_buffer_bytes", COMMON_OPTION_LONG_IN(local_options,
                                                           process_buffer_bytes, 1,
                                                           LOCAL_BUFFER_BYTES_LIMIT,
                                                           LOCAL_DEFAULT_BUFFER_BYTES) },
    { .key = "max_process_buffer_bytes",
      COMMON_OPTION_LONG_IN(local_options, max_process_buffer_bytes, 1,
                            LOCAL_BUFFER_BYTES_LIMIT, LOCAL_DEFAULT_MAX_BUFFER_BYTES) },
    /* Limits (local_cgroup.h): the mount table the cgroups are found in. */
    { .key = "cgroup_mounts", COMMON_OPTION_STRING_IN(local_options, cgroup_mounts),
      .flags = COMMON_OPTION_NOT_EMPTY },
    /* Disk (local_disk.h): checked at every create; 0: none kept. */
    { .key = "disk_reserve_bytes", LONG_AT(disk_reserve_bytes, LONG_MAX, 0) },
};

static const common_option_table local_table = {
    LOCAL_NAME, local_specs, sizeof local_specs / sizeof local_specs[0]
};

sbx_status local_options_parse(const sbx_option *options, size_t count,
                               local_options *out, sbx_error *err)
{
    memset(out, 0, sizeof *out);
    sbx_status st = common_option_table_parse(&local_table, options, count, out, err);
    if (st == SBX_OK && out->lock_timeout_ms < 0)
        out->lock_timeout_ms = out->stop_timeout_ms + LOCK_TIMEOUT_OVER_STOP_MS;
    if (st == SBX_OK && out->process_buffer_bytes > out->max_process_buffer_bytes)
        st = sbx_backend_error_set(err, SBX_ERR_CONFIG, "option 'process_buffer_bytes' of "
                                   "backend 'local': %ld is more than max_process_buffer_bytes "
                                   "(%ld)", out->process_buffer_bytes,
                                   out->max_process_buffer_bytes);
    if (st == SBX_OK)
        st = local_isolation_ids_resolve(&out->isolation, err);
    if (st == SBX_OK && out->state_dir == NULL)
        st = default_state_dir(&out->state_dir, err);
    if (st == SBX_OK)
        st = prepare_state_dir(out, err);
    if (st != SBX_OK)
        local_options_clear(out);
    return st;
}

void local_options_clear(local_options *options)
{
    free(options->state_dir);
    free(options->command);
    free(options->cgroup_mounts);
    memset(options, 0, sizeof *options);
}
