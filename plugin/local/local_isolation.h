/*
 * The `isolation` option of the local backend (docs/local.md, "Isolation"):
 * with `namespaces`, each exec's command runs in new user, mount, pid, ipc,
 * uts and network namespaces, in a private read-only root that shows only
 * the system directories and the sandbox directory, with no new
 * privileges, a seccomp deny-list and rlimits.  The host prepares
 * everything (allocations, the BPF program) before it forks; the reaper
 * and the command's processes then make only async-signal-safe calls.
 */
#ifndef SBX_LOCAL_ISOLATION_H
#define SBX_LOCAL_ISOLATION_H

#include <sbx/backend.h>

#include <stddef.h>

/* The values of the `isolation` option, in the order of its words. */
enum { LOCAL_ISOLATION_NONE = 0, LOCAL_ISOLATION_NAMESPACES = 1 };

/* What the options ask (a member of local_options; 0 as a limit: the
 * host's own limit is kept). */
typedef struct local_isolation_options {
    int mode;                /* LOCAL_ISOLATION_* */
    long max_processes;      /* RLIMIT_NPROC */
    long max_file_bytes;     /* RLIMIT_FSIZE */
    long max_open_files;     /* RLIMIT_NOFILE */
    long max_address_bytes;  /* RLIMIT_AS */
} local_isolation_options;

/* The option words and the limits' defaults (local_options.c's table). */
extern const char *const local_isolation_words[];
#define LOCAL_ISOLATION_DEFAULT_PROCESSES 256L
#define LOCAL_ISOLATION_DEFAULT_FILE_BYTES (1L << 30)
#define LOCAL_ISOLATION_DEFAULT_OPEN_FILES 1024L
/* Large: runtimes reserve address space they never use (Node 20 reserves
 * about 10 GiB for each WebAssembly memory and fails below 8 GiB). */
#define LOCAL_ISOLATION_DEFAULT_ADDRESS_BYTES (16L << 30)

/* One exec's isolation, prepared by the host (local_isolation_prepare). */
typedef struct local_isolation_plan {
    const local_isolation_options *options;
    char uid_map[32], gid_map[32];  /* "INSIDE OUTSIDE 1" */
    const char *sandbox_dir;        /* absolute; the same path inside */
    char *work_dir;                 /* absolute, inside the sandbox directory */
    char *scratch;                  /* room for the paths the child builds */
    size_t scratch_size;
    int root_fd;                    /* the sandbox directory (O_PATH) */
    int status_read, status_write;  /* the sandbox's init -> the reaper */
    void *filter;                   /* struct sock_filter[filter_count] */
    unsigned short filter_count;
} local_isolation_plan;

/* Prepare `plan` for an exec in sandbox directory `sandbox_dir` (absolute,
 * borrowed until local_isolation_plan_free) opened as `root_fd` (borrowed),
 * whose working directory is `rel` below it ("" or "." for the directory
 * itself).  SBX_ERR_INTERNAL when out of memory, descriptors or when the
 * seccomp filter cannot be built.  Free with local_isolation_plan_free. */
sbx_status local_isolation_prepare(const local_isolation_options *options,
                                   const char *sandbox_dir, int root_fd, const char *rel,
                                   local_isolation_plan *plan, sbx_error *err);

/* Release what `plan` holds (zeroed or prepared storage). */
void local_isolation_plan_free(local_isolation_plan *plan);

/* The descriptors the reaper must keep open: 3 into keep[]. */
void local_isolation_keep_fds(const local_isolation_plan *plan, int keep[3]);

/* In the reaper, before it forks the command: enter the new namespaces
 * and map the host's uid and gid.  0, or an errno with the failed step in
 * *stage (local_isolation_stage_text).  Async-signal-safe. */
int local_isolation_enter(const local_isolation_plan *plan, int *stage);

/* In the command's first process (pid 1 of the new pid namespace, its
 * stdio already set): build the private root, move into it, fork.  Here
 * it stays the namespace's init: it reaps, reports the command's wait
 * status to the reaper and exits (ending every process of the namespace).
 * It returns only in the command's own process, with the limits, no new
 * privileges and the seccomp filter applied.  Async-signal-safe. */
void local_isolation_command(const local_isolation_plan *plan);

/* In the reaper, once every process of the exec is reaped: what the
 * sandbox's init reported.  *status becomes the command's wait status
 * when it was reported; *error and *stage are set when a step of the
 * setup failed.  Async-signal-safe. */
void local_isolation_outcome(const local_isolation_plan *plan, int *status, int *error,
                             int *stage);

/* The step a stage number names ("create the namespaces", ...). */
const char *local_isolation_stage_text(int stage);

#endif
