/* Finding the cgroup hierarchies a sandbox's limits go to (see
 * local_cgroup.h). */
#include <config.h>

#include "plugin/local/local_cgroup.h"

#include "common/fnv1a.h"
#include "plugin/local/local_instance.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The controllers' names, as mount options and cgroup.controllers say. */
static const char *const controller_names[LOCAL_CGROUP_KINDS] = { "memory", "cpu", "pids" };

/* The create request's member each controller enforces. */
static const char *const member_names[LOCAL_CGROUP_KINDS] = { "memory_bytes", "cpu_millicores",
                                                              "pids_limit" };

/* 1 when the comma- or space-separated `list` has the word `word`. */
static int has_word(const char *list, const char *word, const char *separators)
{
    size_t n = strlen(word);
    for (const char *p = list; *p != '\0';) {
        size_t len = strcspn(p, separators);
        if (len == n && strncmp(p, word, n) == 0)
            return 1;
        p += len;
        p += strspn(p, separators);
    }
    return 0;
}

/* The controllers a cgroup v2 mount offers, from its cgroup.controllers
 * (empty when it cannot be read). */
static void v2_controllers(const char *mount, char *buf, size_t size)
{
    char path[PATH_MAX + 32];
    buf[0] = '\0';
    snprintf(path, sizeof path, "%s/cgroup.controllers", mount);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return;
    if (fgets(buf, (int)size, f) == NULL)
        buf[0] = '\0';
    fclose(f);
}

/* Take the hierarchy at `mount` for `kind` when none is taken yet. */
static int take(local_cgroup_layout *out, local_cgroup_kind kind, const char *mount,
                const char *key, int v2)
{
    if (out->parent[kind] != NULL && !(v2 && !out->v2[kind]))
        return 1;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/sbx-local-%s", mount, key) >= (int)sizeof path)
        return 1;
    char *copy = strdup(path);
    if (copy == NULL)
        return 0;
    free(out->parent[kind]);
    out->parent[kind] = copy;
    out->v2[kind] = v2;
    return 1;
}

/* Read one line of the mount table ("DEV MOUNT TYPE OPTIONS ..."). */
static int take_mount(local_cgroup_layout *out, const char *line, const char *key)
{
    char mount[PATH_MAX], type[32], options[512];
    if (sscanf(line, "%*s %4095s %31s %511s", mount, type, options) != 3)
        return 1;
    int v2 = strcmp(type, "cgroup2") == 0;
    if ((!v2 && strcmp(type, "cgroup") != 0) || access(mount, W_OK) != 0)
        return 1;
    char offered[512];
    if (v2)
        v2_controllers(mount, offered, sizeof offered);
    for (int k = 0; k < LOCAL_CGROUP_KINDS; k++) {
        int has = v2 ? has_word(offered, controller_names[k], " \n")
                     : has_word(options, controller_names[k], ",");
        if (has && !take(out, (local_cgroup_kind)k, mount, key, v2))
            return 0;
    }
    return 1;
}

sbx_status local_cgroup_layout_find(const char *mounts, const char *key,
                                    local_cgroup_layout *out, sbx_error *err)
{
    memset(out, 0, sizeof *out);
    if (mounts == NULL)
        mounts = "/proc/mounts";
    snprintf(out->mounts, sizeof out->mounts, "%s", mounts);
    FILE *f = fopen(mounts, "re");
    if (f == NULL)
        return SBX_OK;  /* no table: no controller, refused when asked */
    char line[8192];
    int ok = 1;
    while (ok && fgets(line, sizeof line, f) != NULL)
        ok = take_mount(out, line, key);
    fclose(f);
    if (ok)
        return SBX_OK;
    local_cgroup_layout_clear(out);
    return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
}

void local_cgroup_layout_clear(local_cgroup_layout *layout)
{
    for (int k = 0; k < LOCAL_CGROUP_KINDS; k++) {
        free(layout->parent[k]);
        layout->parent[k] = NULL;
    }
}

int local_cgroup_dir(const local_cgroup_layout *layout, local_cgroup_kind kind, const char *id,
                     char *buf, size_t size)
{
    if (layout->parent[kind] == NULL)
        return 0;
    int n = snprintf(buf, size, "%s/%s", layout->parent[kind], id);
    return n > 0 && (size_t)n < size;
}

/* The limit `req` asks of `kind`: SBX_LIMIT_NONE when none. */
static int64_t asked(const sbx_create_request *req, local_cgroup_kind kind)
{
    return kind == LOCAL_CGROUP_MEMORY ? req->memory_bytes
           : kind == LOCAL_CGROUP_CPU  ? req->cpu_millicores
                                       : req->pids_limit;
}

sbx_status local_cgroup_check(const local_cgroup_layout *layout, const sbx_create_request *req,
                              sbx_error *err)
{
    for (int k = 0; k < LOCAL_CGROUP_KINDS; k++)
        if (asked(req, (local_cgroup_kind)k) != SBX_LIMIT_NONE && layout->parent[k] == NULL)
            return sbx_backend_error_set(
                err, SBX_ERR_UNSUPPORTED,
                "backend 'local': create request member '%s' of sandbox '%s' is not supported "
                "on this machine: no writable cgroup hierarchy has the '%s' controller (neither "
                "cgroup v2 nor v1 in %s)", member_names[k], req->sandbox_id, controller_names[k],
                layout->mounts);
    return SBX_OK;
}

int64_t local_cgroup_asked(const sbx_create_request *req, local_cgroup_kind kind)
{
    return asked(req, kind);
}

int local_cgroup_any_asked(const sbx_create_request *req)
{
    for (int k = 0; k < LOCAL_CGROUP_KINDS; k++)
        if (asked(req, (local_cgroup_kind)k) != SBX_LIMIT_NONE)
            return 1;
    return 0;
}

sbx_status local_cgroup_open(sbx_backend_instance *inst, sbx_error *err)
{
    /* Named after the state directory's path (resolved by the options),
     * which open must not write into. */
    char key[17];
    snprintf(key, sizeof key, "%016" PRIx64,
             common_fnv1a_string(COMMON_FNV1A_BASIS, inst->options.state_dir));
    return local_cgroup_layout_find(inst->options.cgroup_mounts, key, &inst->cgroups, err);
}
