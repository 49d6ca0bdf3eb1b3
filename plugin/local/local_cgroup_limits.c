/* Making, filling and removing a sandbox's cgroups (see local_cgroup.h). */
#include <config.h>

#include "plugin/local/local_cgroup.h"

#include "plugin/local/local_state.h"
#include "plugin/local/local_time.h"
#include "plugin/local/local_tomb.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long a remove waits for the killed processes to leave a cgroup:
 * the kernel frees a process's memory before the group can go, which a
 * loaded machine may take seconds over. */
#define REMOVE_TIMEOUT_MS 10000L

/* The CFS period of a CPU limit; ten times longer for limits below 10
 * millicores, whose quota would otherwise be under the kernel's 1 ms. */
#define CPU_PERIOD_US 100000L

/* Write `text` into the file `name` of `dir`; on failure `err` names it. */
static sbx_status write_text(const char *dir, const char *name, const char *text,
                             sbx_error *err)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    size_t len = strlen(text);
    ssize_t n = fd >= 0 ? write(fd, text, len) : -1;
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (n == (ssize_t)len)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED, "local: cannot write '%s' to %s: %s",
                                 text, path, strerror(e));
}

/* 1 when `dir`/`name` exists. */
static int has_file(const char *dir, const char *name)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* The limit's files of `kind` in cgroup `dir`. */
static sbx_status write_limit(const char *dir, local_cgroup_kind kind, int v2, int64_t value,
                              sbx_error *err)
{
    char text[64];
    sbx_status st = SBX_OK;
    snprintf(text, sizeof text, "%" PRId64, value);
    if (kind == LOCAL_CGROUP_PIDS)
        return write_text(dir, "pids.max", text, err);
    if (kind == LOCAL_CGROUP_MEMORY && v2) {
        st = write_text(dir, "memory.max", text, err);
        /* Without swap accounting there is no swap to bound. */
        if (st == SBX_OK && has_file(dir, "memory.swap.max"))
            st = write_text(dir, "memory.swap.max", "0", err);
        return st;
    }
    if (kind == LOCAL_CGROUP_MEMORY) {
        st = write_text(dir, "memory.limit_in_bytes", text, err);
        if (st == SBX_OK && has_file(dir, "memory.memsw.limit_in_bytes"))
            st = write_text(dir, "memory.memsw.limit_in_bytes", text, err);
        return st;
    }
    long period = value < 10 ? CPU_PERIOD_US * 10 : CPU_PERIOD_US;
    int64_t quota = value * (int64_t)period / 1000;
    if (v2) {
        snprintf(text, sizeof text, "%" PRId64 " %ld", quota, period);
        return write_text(dir, "cpu.max", text, err);
    }
    snprintf(text, sizeof text, "%ld", period);
    st = write_text(dir, "cpu.cfs_period_us", text, err);
    snprintf(text, sizeof text, "%" PRId64, quota);
    return st == SBX_OK ? write_text(dir, "cpu.cfs_quota_us", text, err) : st;
}

/* cgroup v2 gives a child a controller only when its parent enables it
 * for its children: the mount's root and the instance's group. */
static sbx_status enable_v2(const char *parent, local_cgroup_kind kind, sbx_error *err)
{
    static const char *const names[LOCAL_CGROUP_KINDS] = { "+memory", "+cpu", "+pids" };
    char root[PATH_MAX];
    snprintf(root, sizeof root, "%s", parent);
    char *slash = strrchr(root, '/');
    if (slash != NULL)
        *slash = '\0';
    sbx_status st = write_text(root, "cgroup.subtree_control", names[kind], err);
    return st == SBX_OK ? write_text(parent, "cgroup.subtree_control", names[kind], err) : st;
}

/* Kill every process in cgroup `dir`; 1 when there was none. */
static int kill_members(const char *dir)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return 1;
    long pid;
    int none = 1;
    while (fscanf(f, "%ld", &pid) == 1) {
        kill((pid_t)pid, SIGKILL);
        none = 0;
    }
    fclose(f);
    return none;
}

/* Remove cgroup `dir`, killing what is in it; 1 once it is gone. */
static int remove_dir(const char *dir)
{
    long deadline = local_now_ms() + REMOVE_TIMEOUT_MS;
    for (;;) {
        kill_members(dir);
        if (rmdir(dir) == 0 || errno == ENOENT)
            return 1;
        if (errno != EBUSY || local_now_ms() > deadline)
            return 0;
        /* The killed are still exiting: look again shortly. */
        struct timespec pause = { 0, 2 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
}

sbx_status local_cgroup_make(const local_cgroup_layout *layout, const char *id,
                             const sbx_create_request *req, sbx_error *err)
{
    sbx_status st = local_cgroup_remove(layout, id, err);
    for (int k = 0; st == SBX_OK && k < LOCAL_CGROUP_KINDS; k++) {
        int64_t limit = local_cgroup_asked(req, (local_cgroup_kind)k);
        char dir[PATH_MAX];
        if (limit == SBX_LIMIT_NONE ||
            !local_cgroup_dir(layout, (local_cgroup_kind)k, id, dir, sizeof dir))
            continue;
        /* A remove of another sandbox takes the instance's group away when
         * it finds it empty: then it is made again. */
        int made = 0;
        for (int tries = 0; st == SBX_OK && !made && tries < 8; tries++) {
            if (mkdir(layout->parent[k], 0755) != 0 && errno != EEXIST)
                return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED, "local: cannot make "
                                             "the cgroup %s: %s", layout->parent[k],
                                             strerror(errno));
            if (layout->v2[k])
                st = enable_v2(layout->parent[k], (local_cgroup_kind)k, err);
            made = st == SBX_OK && (mkdir(dir, 0755) == 0 || errno == EEXIST);
            if (st == SBX_OK && !made && errno != ENOENT)
                break;
        }
        if (st == SBX_OK && !made)
            st = sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED, "local: cannot make the "
                                       "cgroup %s: %s", dir, strerror(errno));
        if (st == SBX_OK)
            st = write_limit(dir, (local_cgroup_kind)k, layout->v2[k], limit, err);
    }
    return st;
}

sbx_status local_cgroup_adopt(const local_cgroup_layout *layout, const char *id, pid_t pid,
                              sbx_error *err)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", (long)pid);
    sbx_status st = SBX_OK;
    for (int k = 0; st == SBX_OK && k < LOCAL_CGROUP_KINDS; k++) {
        char dir[PATH_MAX];
        if (local_cgroup_dir(layout, (local_cgroup_kind)k, id, dir, sizeof dir) &&
            access(dir, F_OK) == 0)
            st = write_text(dir, "cgroup.procs", text, err);
    }
    return st;
}

sbx_status local_cgroup_remove(const local_cgroup_layout *layout, const char *id,
                               sbx_error *err)
{
    for (int k = 0; k < LOCAL_CGROUP_KINDS; k++) {
        char dir[PATH_MAX];
        if (local_cgroup_dir(layout, (local_cgroup_kind)k, id, dir, sizeof dir) &&
            !remove_dir(dir))
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "local: cannot remove the "
                                         "cgroup %s of sandbox '%s': %s", dir, id,
                                         strerror(errno));
        /* The instance's group goes with its last sandbox (it fails,
         * harmlessly, while others are in it). */
        if (layout->parent[k] != NULL)
            rmdir(layout->parent[k]);
    }
    return SBX_OK;
}

/* Remove the cgroups of `id` when no record (nor a destroy in progress)
 * has it, under the id's lock so that no create of it runs meanwhile. */
static void sweep_one(const local_cgroup_layout *layout, const char *state_dir, const char *id)
{
    local_paths paths;
    sbx_error ignored;
    int fd = -1;
    if (common_check_sandbox_id(id, &ignored) != SBX_OK ||
        local_paths_for(state_dir, id, &paths, &ignored) != SBX_OK ||
        access(paths.metadata, F_OK) == 0 || local_lock(&paths, 0, &fd, &ignored) != SBX_OK)
        return;
    int recorded = access(paths.metadata, F_OK) == 0 || local_tomb_exists(&paths);
    if (!recorded)
        local_cgroup_remove(layout, id, &ignored);
    local_unlock(&paths, fd, !recorded);
}

void local_cgroup_sweep(const local_cgroup_layout *layout, const char *state_dir)
{
    for (int k = 0; k < LOCAL_CGROUP_KINDS; k++) {
        DIR *dir = layout->parent[k] != NULL ? opendir(layout->parent[k]) : NULL;
        struct dirent *entry;
        while (dir != NULL && (entry = readdir(dir)) != NULL)
            if (entry->d_type == DT_DIR && entry->d_name[0] != '.')
                sweep_one(layout, state_dir, entry->d_name);
        if (dir != NULL)
            closedir(dir);
    }
}
