/*
 * The `isolation` option of the local backend (docs/local.md, "Isolation"):
 * with `namespaces`, a sandbox's holder (local_holder.h) keeps user,
 * mount, ipc, uts and network namespaces and a private read-only root
 * that shows only the system directories and the sandbox directory; each
 * exec's command joins them, in a new pid namespace of its own (whose
 * /proc hides what the command may not trace), as the sandbox's ids
 * (never root: local_isolation_ids.h), with no new privileges, a seccomp
 * deny-list and rlimits.  Without a holder an
 * exec builds all of it anew.  The host prepares everything (allocations,
 * the BPF program, the rlimits) before it forks; the reaper and the command's processes
 * then make only async-signal-safe calls.
 */
#ifndef SBX_LOCAL_ISOLATION_H
#define SBX_LOCAL_ISOLATION_H

#include <sbx/backend.h>

#include <sched.h>
#include <stddef.h>

/* The values of the `isolation` option, in the order of its words. */
enum { LOCAL_ISOLATION_NONE = 0, LOCAL_ISOLATION_NAMESPACES = 1 };

/* The values of the `network` option: a network namespace of the
 * sandbox's own with only its loopback, the host's network shared, or the
 * sandbox's own with the command's port forwarded from the host's
 * 127.0.0.1 (local_server.h). */
enum { LOCAL_NETWORK_NONE = 0, LOCAL_NETWORK_HOST = 1, LOCAL_NETWORK_FORWARD = 2 };

/* What the options ask (a member of local_options; 0 as a limit: the
 * host's own limit is kept). */
typedef struct local_isolation_options {
    int mode;                /* LOCAL_ISOLATION_* */
    int network;             /* LOCAL_NETWORK_* */
    long max_processes;      /* RLIMIT_NPROC */
    long max_file_bytes;     /* RLIMIT_FSIZE */
    long max_open_files;     /* RLIMIT_NOFILE */
    long max_address_bytes;  /* RLIMIT_AS */
    long max_cpu_seconds;    /* RLIMIT_CPU */
    long host_uid, host_gid; /* what the sandbox's ids map to on the host
                              * (local_isolation_ids.h) */
    int switch_ids;          /* 1: a root host, whose sandboxes run as
                              * host_uid and host_gid, never as root */
} local_isolation_options;

/* The environment every command of a sandbox starts from: these and
 * HOME, the sandbox directory (an exec adds the request's variables).
 * Nothing of the host's. */
#define LOCAL_BASE_PATH "/usr/local/bin:/usr/bin:/bin"
#define LOCAL_BASE_LANG "C.UTF-8"

/* The option words and the limits' defaults (local_options.c's table). */
extern const char *const local_isolation_words[];
extern const char *const local_network_words[];
#define LOCAL_ISOLATION_DEFAULT_PROCESSES 256L
#define LOCAL_ISOLATION_DEFAULT_FILE_BYTES (1L << 30)
#define LOCAL_ISOLATION_DEFAULT_OPEN_FILES 1024L
/* Large: runtimes reserve address space they never use (Node 20 reserves
 * about 10 GiB for each WebAssembly memory and fails below 8 GiB). */
#define LOCAL_ISOLATION_DEFAULT_ADDRESS_BYTES (16L << 30)
/* None: a sandbox's server may run for days. */
#define LOCAL_ISOLATION_DEFAULT_CPU_SECONDS 0L

/* The steps of the setup a failure report names (local_isolation_report,
 * local_isolation_stage_text); 0: none, the command's wait status. */
enum {
    LOCAL_STAGE_NONE,
    LOCAL_STAGE_UNSHARE,
    LOCAL_STAGE_MAP,
    LOCAL_STAGE_PRIVATE,
    LOCAL_STAGE_ROOT,
    LOCAL_STAGE_SYSTEM,
    LOCAL_STAGE_PROC,
    LOCAL_STAGE_DEV,
    LOCAL_STAGE_TMP,
    LOCAL_STAGE_SANDBOX,
    LOCAL_STAGE_PIVOT,
    LOCAL_STAGE_WORKDIR,
    LOCAL_STAGE_NETWORK,
    LOCAL_STAGE_HOSTNAME,
    LOCAL_STAGE_FORK,
    LOCAL_STAGE_LIMITS,
    LOCAL_STAGE_SECCOMP,
    LOCAL_STAGE_JOIN,
    LOCAL_STAGE_NEW_PID,
    LOCAL_STAGE_OWN_PROC,
    LOCAL_STAGE_IDS,
};

/* Every /proc of a sandbox shows only the processes its reader may trace
 * (never an init holding capabilities the command lacks, nor a process
 * sharing or copying the host's memory), and these of its entries, which
 * set the kernel's state, read-only: the names below /proc, NULL-ended
 * (one absent from this kernel is skipped). */
#define LOCAL_ISOLATION_PROC_OPTIONS "hidepid=ptraceable"
extern const char *const local_isolation_proc_read_only[];

/* One exec's isolation, prepared by the host (local_isolation_prepare). */
typedef struct local_isolation_plan {
    const local_isolation_options *options;
    char uid_map[32], gid_map[32];  /* "INSIDE OUTSIDE 1" */
    int switch_ids;                 /* the options' (local_isolation_ids.h) */
    unsigned uid, gid;              /* the ids on the host */
    const char *sandbox_dir;        /* absolute; the same path inside */
    char *work_dir;                 /* absolute, inside the sandbox directory */
    char *scratch;                  /* room for the paths the child builds */
    char *home;                     /* "HOME=" the sandbox directory */
    char *environment[4];           /* the `command`'s: PATH, HOME, LANG */
    size_t scratch_size;
    int root_fd;                    /* the sandbox directory (O_PATH) */
    int tree_fd;                    /* a root host's detached copy of it
                                     * (open_tree), for new namespaces
                                     * whose ids cannot look it up; -1 */
    int network;                    /* the sandbox's (LOCAL_NETWORK_*: the site's) */
    int join_flags;                 /* LOCAL_ISOLATION_JOINED, less
                                     * CLONE_NEWNET with network=host */
    int holder_fd;                  /* pidfd of the sandbox's holder, whose
                                     * namespaces the exec joins; -1: new ones */
    int status_read, status_write;  /* the sandbox's init -> the reaper */
    const void *filter;             /* struct sock_filter[filter_count], shared
                                     * (local_isolation_filter_get) */
    unsigned short filter_count;
    int limit_count;                /* the rlimits the command gets, each
                                     * capped at the host's hard limit */
    struct { int resource; unsigned long value; } limits[5];
} local_isolation_plan;

/* What the sandbox's processes send on the status pipe
 * (local_isolation_report). */
typedef struct local_isolation_message {
    int stage;  /* LOCAL_STAGE_NONE: value is the command's wait status (or
                 * 0: ready); a stage: value is an errno */
    int value;
} local_isolation_message;

/* The namespaces an exec joins on its holder's pidfd (then it makes a pid
 * and a mount namespace of its own). */
#define LOCAL_ISOLATION_JOINED \
    (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET)

/* Where an isolated process runs. */
typedef struct local_isolation_site {
    const char *sandbox_dir;  /* absolute, borrowed until local_isolation_plan_free */
    int root_fd;              /* sandbox_dir opened (borrowed); -1 for a holder started
                               * before its directory exists, which builds its root with
                               * local_isolation_build_early and _late, not _build */
    const char *rel;          /* the working directory below it ("" or "." for itself) */
    int holder_fd;            /* the holder joined: a pidfd the plan takes over, even on
                               * failure; -1: none */
    int network;              /* the sandbox's network (LOCAL_NETWORK_*: local_net_of),
                               * which may differ from the options' */
} local_isolation_site;

/* Prepare `plan` for an exec at `site`.  SBX_ERR_INTERNAL when out of
 * memory, descriptors, when the host's rlimits cannot be read or the
 * seccomp filter cannot be built.  Free with local_isolation_plan_free. */
sbx_status local_isolation_prepare(const local_isolation_options *options,
                                   const local_isolation_site *site, local_isolation_plan *plan,
                                   sbx_error *err);

/* Release what `plan` holds (zeroed or prepared storage). */
void local_isolation_plan_free(local_isolation_plan *plan);

/* The descriptors the reaper must keep open: 3 into keep[]. */
void local_isolation_keep_fds(const local_isolation_plan *plan, int keep[3]);

/* In the reaper, before it forks the command: switch to the sandbox's ids
 * (a root host), join the holder's namespaces, or enter new ones and map
 * the ids; either way the command's children get a new pid namespace.  0, or an errno with the
 * failed step in *stage (local_isolation_stage_text).  Async-signal-safe. */
int local_isolation_enter(const local_isolation_plan *plan, int *stage);

/* In pid 1 of new namespaces that local_isolation_enter made: build the
 * private root and move into it (the working directory the plan names),
 * bring up the loopback, set the hostname.  On failure the step and errno
 * go to the plan's status pipe and the process exits (126).
 * Async-signal-safe. */
void local_isolation_build(const local_isolation_plan *plan);

/* Send `stage` and `value` on the plan's status pipe: stage 0 with a wait
 * status (or 0: ready), a stage with an errno, or another message of the
 * caller's (a negative stage).  Async-signal-safe. */
void local_isolation_report(const local_isolation_plan *plan, int stage, int value);

/* Read one message of local_isolation_report from `fd` (blocking unless
 * it is non-blocking): 1 with *stage and *value, 0 at EOF or on error. */
int local_isolation_read_status(int fd, int *stage, int *value);

/* In the command's first process (pid 1 of the new pid namespace, its
 * stdio already set): build the private root, move into it, fork.  Here
 * it stays the namespace's init: it reaps, reports the command's wait
 * status to the reaper and exits (ending every process of the namespace).
 * It returns only in the command's own process, with the limits, no new
 * privileges and the seccomp filter applied, and `environ` the plan's
 * environment (the host's is not the sandbox's to read).
 * Async-signal-safe. */
void local_isolation_command(const local_isolation_plan *plan);

/* In the reaper, once every process of the exec is reaped: what the
 * sandbox's init reported.  *status becomes the command's wait status
 * when it was reported; *error and *stage are set when a step of the
 * setup failed.  Async-signal-safe. */
void local_isolation_outcome(const local_isolation_plan *plan, int *status, int *error,
                             int *stage);

/* The step a stage number names ("create the namespaces", ...). */
const char *local_isolation_stage_text(int stage);

/* A directory's identity (st_dev, st_ino), as the host saw it. */
typedef struct local_isolation_identity {
    unsigned long long dev, ino;
} local_isolation_identity;

/* In pid 1 of new namespaces: every step of local_isolation_build that
 * does not need the sandbox directory, which may not exist yet.  Returns
 * a descriptor of the directory's parent in the new mount namespace (the
 * host's state directory: to be given to local_isolation_build_late and
 * to nothing else), or -1 on a root host, whose sandbox ids may not look
 * into the state directory (the host hands over a copy of the sandbox
 * directory instead).  On failure as local_isolation_build.
 * Async-signal-safe. */
int local_isolation_build_early(const local_isolation_plan *plan);

/* The rest of local_isolation_build: bind the sandbox directory (the
 * detached copy `tree_fd` the host made, else looked up under
 * `parent_fd`; either is closed here; refused with ESTALE unless it is
 * `sandbox`) nosuid and nodev, pivot into the private root, enter the
 * working directory.  On failure as local_isolation_build.
 * Async-signal-safe. */
void local_isolation_build_late(const local_isolation_plan *plan, int parent_fd, int tree_fd,
                                const local_isolation_identity *sandbox);

#endif
