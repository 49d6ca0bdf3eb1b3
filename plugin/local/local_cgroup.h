/*
 * The control groups that bound a sandbox's memory, CPU and pids (the
 * create request's memory_bytes, cpu_millicores, pids_limit; docs/local.md,
 * "Limits").  A sandbox asking for a limit gets one cgroup of its own per
 * controller hierarchy it needs, "sbx-local-KEY/ID" at the root of the
 * hierarchy (KEY: a hash of the state directory's path), where
 * its holder, its command and every exec and process run.  cgroup v2 is
 * used where it is mounted with the controller and writable, else the v1
 * hierarchy of the controller.  Thread-safe: a layout is immutable once
 * found; the calls work on the file system only.
 */
#ifndef SBX_LOCAL_CGROUP_H
#define SBX_LOCAL_CGROUP_H

#include <sbx/backend.h>
#include <sbx/backend_support.h>

#include <stddef.h>
#include <sys/types.h>

/* The controllers a limit needs. */
typedef enum local_cgroup_kind {
    LOCAL_CGROUP_MEMORY = 0,
    LOCAL_CGROUP_CPU = 1,
    LOCAL_CGROUP_PIDS = 2,
    LOCAL_CGROUP_KINDS = 3
} local_cgroup_kind;

/* Where this instance's sandboxes' cgroups go, per controller. */
typedef struct local_cgroup_layout {
    char *parent[LOCAL_CGROUP_KINDS];  /* "MOUNT/sbx-local-KEY", NULL: no usable
                                        * hierarchy has the controller */
    int v2[LOCAL_CGROUP_KINDS];        /* 1: that hierarchy is cgroup v2 */
    char mounts[256];                  /* the mount table read (for errors) */
} local_cgroup_layout;

/* Find the hierarchies in the mount table `mounts` (NULL: /proc/mounts)
 * for the state directory of key `key` ("sbx-local-KEY").  A controller
 * that no writable hierarchy has is left NULL (a create asking for its
 * limit is refused then); SBX_ERR_INTERNAL only when out of memory.
 * Release with local_cgroup_layout_clear. */
sbx_status local_cgroup_layout_find(const char *mounts, const char *key,
                                    local_cgroup_layout *out, sbx_error *err);

/* Find inst->cgroups for its options (cgroup_mounts) and state directory
 * at open; SBX_ERR_INTERNAL when out of memory. */
sbx_status local_cgroup_open(sbx_backend_instance *inst, sbx_error *err);

/* Free what *layout holds; zeroed storage is accepted. */
void local_cgroup_layout_clear(local_cgroup_layout *layout);

/* The directory of sandbox `id`'s cgroup of `kind` into buf; 0 when the
 * layout has no hierarchy for it or buf is too small. */
int local_cgroup_dir(const local_cgroup_layout *layout, local_cgroup_kind kind, const char *id,
                     char *buf, size_t size);

/* SBX_ERR_UNSUPPORTED naming the member and the missing controller when
 * `req` asks for a limit this layout cannot apply; SBX_OK otherwise. */
sbx_status local_cgroup_check(const local_cgroup_layout *layout, const sbx_create_request *req,
                              sbx_error *err);

/* The limit `req` asks of `kind`: SBX_LIMIT_NONE when none. */
int64_t local_cgroup_asked(const sbx_create_request *req, local_cgroup_kind kind);

/* 1 when `req` asks any limit of a cgroup (a sandbox made from it has
 * cgroups of its own), else 0. */
int local_cgroup_any_asked(const sbx_create_request *req);

/* Make sandbox `id`'s cgroups for the limits `req` asks (none: nothing
 * made) with those limits; a leftover of the id is removed first.
 * SBX_ERR_UNSUPPORTED or SBX_ERR_INTERNAL naming the file that failed. */
sbx_status local_cgroup_make(const local_cgroup_layout *layout, const char *id,
                             const sbx_create_request *req, sbx_error *err);

/* Move process `pid` (one that forks nothing before it is moved) into
 * sandbox `id`'s cgroups; SBX_OK when it has none. */
sbx_status local_cgroup_adopt(const local_cgroup_layout *layout, const char *id, pid_t pid,
                              sbx_error *err);

/* Kill what is left in sandbox `id`'s cgroups and remove them; SBX_OK
 * when there are none.  SBX_ERR_INTERNAL when one stays. */
sbx_status local_cgroup_remove(const local_cgroup_layout *layout, const char *id,
                               sbx_error *err);

/* Remove the cgroups of this layout that belong to no record of
 * `state_dir` (what a host killed during a destroy left).  Best effort. */
void local_cgroup_sweep(const local_cgroup_layout *layout, const char *state_dir);

/* What a process the backend starts needs to enter its sandbox's
 * cgroups, opened by the host before the fork (local_cgroup_join_open). */
typedef struct local_cgroup_join {
    int procs[LOCAL_CGROUP_KINDS];   /* "cgroup.procs" of each, -1: none */
    size_t count;                    /* how many of procs are open */
    int oom_fd;                      /* the memory cgroup's OOM counter, or -1 */
    long oom_kills;                  /* its value when opened */
} local_cgroup_join;

/* An empty join (count 0, no OOM counter): what a sandbox whose record
 * says it has no cgroup needs, without looking; close is a no-op. */
void local_cgroup_join_none(local_cgroup_join *out);

/* Open sandbox `id`'s cgroup.procs files into *out (none when it has no
 * cgroup: out->count 0).  SBX_ERR_INTERNAL naming the file when one
 * exists but cannot be opened.  Close with local_cgroup_join_close. */
sbx_status local_cgroup_join_open(const local_cgroup_layout *layout, const char *id,
                                  local_cgroup_join *out, sbx_error *err);

/* In a forked child: move the calling process into the cgroups; 0, or
 * the errno of the write that failed.  Async-signal-safe.  (A child that
 * shares the host's memory writes "0" to each of join->procs itself.) */
int local_cgroup_join_enter(const local_cgroup_join *join);

/* 1 when the sandbox's memory cgroup killed a process since the join was
 * opened (its OOM counter grew), else 0. */
int local_cgroup_join_oom_killed(const local_cgroup_join *join);

/* Close what *join holds; a zeroed-then-opened or failed join is accepted. */
void local_cgroup_join_close(local_cgroup_join *join);

#endif
