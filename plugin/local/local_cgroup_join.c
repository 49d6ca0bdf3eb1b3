/* A process entering its sandbox's cgroups, and the OOM count it is
 * judged by (see local_cgroup.h). */
#include <config.h>

#include "plugin/local/local_cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The OOM kills the memory cgroup counted: "oom_kill N" of v1's
 * memory.oom_control, v2's memory.events; -1 when unknown. */
static long read_oom_kills(int fd)
{
    char buf[512];
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    for (char *line = buf; line != NULL; line = strchr(line, '\n')) {
        line += *line == '\n';
        if (strncmp(line, "oom_kill ", 9) == 0)
            return strtol(line + 9, NULL, 10);
    }
    return -1;
}

void local_cgroup_join_none(local_cgroup_join *out)
{
    memset(out, 0, sizeof *out);
    out->oom_fd = -1;
    out->oom_kills = -1;
    for (int k = 0; k < LOCAL_CGROUP_KINDS; k++)
        out->procs[k] = -1;
}

sbx_status local_cgroup_join_open(const local_cgroup_layout *layout, const char *id,
                                  local_cgroup_join *out, sbx_error *err)
{
    local_cgroup_join_none(out);
    for (int k = 0; k < LOCAL_CGROUP_KINDS; k++) {
        char dir[PATH_MAX], path[PATH_MAX + 32];
        if (!local_cgroup_dir(layout, (local_cgroup_kind)k, id, dir, sizeof dir))
            continue;
        snprintf(path, sizeof path, "%s/cgroup.procs", dir);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)
            continue;  /* no limit of this kind */
        if (fd < 0) {
            int e = errno;
            local_cgroup_join_close(out);
            return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "local: cannot open %s: %s",
                                         path, strerror(e));
        }
        out->procs[out->count++] = fd;
        if (k == LOCAL_CGROUP_MEMORY) {
            snprintf(path, sizeof path, "%s/%s", dir,
                     layout->v2[k] ? "memory.events" : "memory.oom_control");
            out->oom_fd = open(path, O_RDONLY | O_CLOEXEC);
            out->oom_kills = read_oom_kills(out->oom_fd);
        }
    }
    return SBX_OK;
}

int local_cgroup_join_enter(const local_cgroup_join *join)
{
    for (size_t i = 0; i < join->count; i++)
        if (write(join->procs[i], "0", 1) != 1)
            return errno;
    return 0;
}

int local_cgroup_join_oom_killed(const local_cgroup_join *join)
{
    long now = read_oom_kills(join->oom_fd);
    return join->oom_kills >= 0 && now > join->oom_kills;
}

void local_cgroup_join_close(local_cgroup_join *join)
{
    for (size_t i = 0; i < join->count; i++)
        close(join->procs[i]);
    join->count = 0;
    if (join->oom_fd >= 0)
        close(join->oom_fd);
    join->oom_fd = -1;
}
