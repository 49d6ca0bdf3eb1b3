/*
 * sbx backend ABI: what a sandbox backend implements.
 *
 * A backend is either a shared object (a "module") that exports exactly one
 * symbol, SBX_BACKEND_ENTRY_SYMBOL, or an in-process backend registered with
 * the host library.  Either way the host only ever sees a
 * sbx_backend_descriptor.
 *
 * Versioning (in the manner of SQLite's sqlite3_vfs):
 *   - MAJOR changes break compatibility; the host refuses a module whose
 *     major differs from its own.
 *   - MINOR versions only append members to the END of the descriptor and
 *     never reorder or retype existing ones.  The descriptor records its own
 *     size, so a host reads an operation only when the descriptor is large
 *     enough to hold it (see SBX_DESCRIPTOR_HAS) and it is non-NULL;
 *     otherwise the operation is "unsupported".
 *   - Structs the host passes in (sbx_host_services, sbx_create_request)
 *     also start with their own size for the same reason.
 *   - sbx_sandbox is an ARRAY ELEMENT (list_running) that hosts index by
 *     their own sizeof: it is frozen for major 1.  What a sandbox record
 *     gains in later minors goes into sbx_sandbox_record (ABI 1.2), which
 *     is only ever reached through a pointer and carries its own size.
 *
 * Ownership:
 *   - Strings and arrays passed in by the host are borrowed for the duration
 *     of the call only.
 *   - Everything a backend returns (sandboxes, records, reconciliation
 *     results, sandbox operation results, process infos and outputs) is
 *     owned by the caller and released through the same backend's release
 *     operation (free_sandboxes, free_records, clear_reconciliation,
 *     free_exec_result, free_processes, ...), never with a bare free():
 *     the module may use another allocator.
 *   - A file descriptor open_file answers (ABI 1.6) is the caller's, closed
 *     with close(): it is a kernel object, not the module's memory.
 *   - The sbx_error record is caller-owned storage; a backend only writes it.
 *
 * Thread safety:
 *   - The descriptor is immutable and may be read from any thread.
 *   - open() may be called from several threads at once.
 *   - All operations on ONE instance may be called from many threads at
 *     once, except close(), which the caller calls exactly once after every
 *     other call on that instance has returned.
 *   - The log callback may be called from any thread that calls an
 *     operation, and concurrently.
 *
 * Arguments (one rule for every backend): the host guarantees that `err`
 * and every output pointer (out, count, alive) are non-NULL, that
 * `instance` is one this backend's open() made and close() has not
 * released, and that open() gets an array of option_count options (NULL
 * only when the count is 0) whose keys and values are all strings.  A
 * backend relies on this and does not check it.  What the caller chose --
 * the ids, the request's fields, the option values -- is input: a backend
 * checks it and refuses what it cannot honour.
 *
 * Operations never abort, exit or print; they return a status and fill the
 * error record (once, with the kind they return), and they log only through
 * the host's callback.  <sbx/backend_support.h> has header-only helpers for
 * both.
 *
 * This header depends on nothing beyond the C standard headers.
 */
#ifndef SBX_BACKEND_H
#define SBX_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. */
#define SBX_BACKEND_ABI_MAJOR 1
#define SBX_BACKEND_ABI_MINOR 6

/* The one symbol a backend module exports (see sbx_backend_entry_fn). */
#define SBX_BACKEND_ENTRY_SYMBOL "sbx_backend_entry"

/* Marks the entry point of a module as the only exported symbol. */
#if defined(__GNUC__)
#define SBX_BACKEND_EXPORT __attribute__((visibility("default")))
#else
#define SBX_BACKEND_EXPORT
#endif

/*
 * Outcome of every operation.  SBX_OK is zero; every other value is an
 * error kind, with the same meaning as the `kind` of sbx_error.
 */
typedef enum sbx_status {
    SBX_OK = 0,
    SBX_ERR_USAGE = 1,            /* the caller's arguments are wrong */
    SBX_ERR_CONFIG = 2,           /* an option is missing, unknown or bad */
    SBX_ERR_TRANSPORT = 3,        /* unreachable, refused, timed out, reset */
    SBX_ERR_PROTOCOL = 4,         /* bad or ill-typed answer, oversize, identity mismatch */
    SBX_ERR_CONTRACT_CHANGED = 5, /* the mount contract moved: re-decide mounts, retry */
    SBX_ERR_REFUSED = 6,          /* refused before sending (isolation rule, invalid id) */
    SBX_ERR_UNAUTHORIZED = 7,     /* the peer answered 401 or 403 */
    SBX_ERR_LOAD = 8,             /* a backend could not be loaded */
    SBX_ERR_PROVISIONER = 9,      /* the peer answered another 4xx/5xx */
    SBX_ERR_UNSUPPORTED = 10,     /* the backend lacks this operation */
    SBX_ERR_NOT_FOUND = 11,       /* no such sandbox (where the call defines it) */
    /* ABI 1.3: returned only by the sandbox operations (exec and the file
     * calls), which no host of an older minor calls. */
    SBX_ERR_NO_SUCH_PATH = 12,    /* a path, or a directory on it, does not exist */
    SBX_ERR_NOT_A_DIRECTORY = 13, /* a directory was expected: a file is there */
    SBX_ERR_IS_A_DIRECTORY = 14,  /* a file was expected: a directory is there */
    SBX_ERR_EXISTS = 15,          /* the path exists and the call asked it not to */
    SBX_ERR_PERMISSION = 16,      /* the sandbox's own permissions forbid it */
    /* ABI 1.4: returned only by the process operations. */
    SBX_ERR_NO_SUCH_PROCESS = 17, /* no process of that id in that sandbox (never
                                   * started there, or forgotten) */
    SBX_ERR_INTERNAL = 70         /* out of memory or a bug */
} sbx_status;

/* Bytes of sbx_error.message, including the terminating NUL. */
#define SBX_ERROR_MESSAGE_MAX 512

/*
 * Error record.  Caller-owned; backends write it only when they return an
 * error (they may also clear it on success).  Frozen for major version 1.
 */
typedef struct sbx_error {
    sbx_status kind;            /* equal to the returned status */
    int http_status;            /* HTTP status of the answer, 0 when none */
    int expected_contract;      /* mount contract versions where they apply, */
    int actual_contract;        /*   else -1 */
    char message[SBX_ERROR_MESSAGE_MAX]; /* NUL-terminated; cut to fit, then
                                          * ending in "..." */
} sbx_error;

/* Severity of a log line. */
typedef enum sbx_log_level {
    SBX_LOG_ERROR = 0,
    SBX_LOG_WARN = 1,
    SBX_LOG_INFO = 2,
    SBX_LOG_DEBUG = 3
} sbx_log_level;

/*
 * Log callback.  `backend` is the backend's name, `message` one line without
 * a trailing newline; both are borrowed for the call.  May be called from
 * several threads at once.
 */
typedef void (*sbx_log_fn)(void *log_ctx, sbx_log_level level,
                           const char *backend, const char *message);

/*
 * Services the host hands to open().  The backend may keep the pointer for
 * the life of the instance: the host keeps the struct alive until close().
 */
typedef struct sbx_host_services {
    size_t struct_size;  /* sizeof(sbx_host_services) as the host compiled it */
    sbx_log_fn log;      /* may be NULL: then nothing is logged */
    void *log_ctx;       /* passed back to log */
} sbx_host_services;

/* One key/value option for open(); both strings borrowed for the call. */
typedef struct sbx_option {
    const char *key;
    const char *value;
} sbx_option;

/* A mount the host asks for in a create. */
typedef struct sbx_mount {
    const char *host_path;
    const char *container_path;
    int read_only;       /* non-zero: mounted read-only */
} sbx_mount;

/* The mount contract version value that means "not known / none". */
#define SBX_CONTRACT_NONE (-1)

/* One environment variable of an exec request (ABI 1.3) or a create
 * request (ABI 1.5); both strings borrowed. */
typedef struct sbx_env_var {
    const char *name;            /* ^[A-Za-z_][A-Za-z0-9_]*$, else SBX_ERR_USAGE */
    const char *value;           /* passed as is, never spliced into a command
                                  * text; never logged */
} sbx_env_var;

/* One label of a sandbox (ABI 1.5): a key/value pair the host attaches at
 * create and finds again in the sandbox's records and list filters.  In a
 * request both strings are borrowed for the call; in a record they belong
 * to the record's chain. */
typedef struct sbx_label {
    const char *key;             /* 1..SBX_LABEL_KEY_MAX bytes, without '=' */
    const char *value;           /* 0..SBX_LABEL_VALUE_MAX bytes (never NULL) */
} sbx_label;

/* Most labels a request carries. */
#define SBX_LABELS_MAX 64

/* Longest label key and value, in bytes without the NUL. */
#define SBX_LABEL_KEY_MAX 128
#define SBX_LABEL_VALUE_MAX 1024

/* sbx_create_request.memory_bytes, cpu_millicores, pids_limit, disk_bytes:
 * no limit asked (the backend's own configuration applies). */
#define SBX_LIMIT_NONE INT64_C(-1)

/* The smallest memory limit a host passes: less runs no shell (and is below
 * what container engines accept). */
#define SBX_MEMORY_MIN_BYTES (INT64_C(6) * 1024 * 1024)

/* sbx_create_request.network (ABI 1.5). */
typedef enum sbx_network {
    SBX_NETWORK_DEFAULT = 0,     /* what the backend's configuration says */
    SBX_NETWORK_NONE = 1,        /* no network beyond loopback */
    SBX_NETWORK_EGRESS = 2       /* outbound connections, as a container has by default */
} sbx_network;

/* The members of sbx_create_request of ABI 1.5, as bits: what a request
 * sets (a host's errors name them) and what a backend honours
 * (sbx_operations_info.create_fields). */
#define SBX_CREATE_IMAGE 0x1u
#define SBX_CREATE_ENV 0x2u
#define SBX_CREATE_LABELS 0x4u
#define SBX_CREATE_MEMORY 0x8u
#define SBX_CREATE_CPU 0x10u
#define SBX_CREATE_PIDS 0x20u
#define SBX_CREATE_DISK 0x40u
#define SBX_CREATE_NETWORK 0x80u
#define SBX_CREATE_EXPIRY 0x100u

/*
 * A create request.  All pointers are borrowed for the call.  Initialise with
 * SBX_CREATE_REQUEST_INIT so that fields added by later minors get defaults
 * (a limit of 0 is a limit of zero, refused: "none" is SBX_LIMIT_NONE).
 *
 * ABI 1.5 members are read only when struct_size holds them.  A backend
 * honours those its operations_info names in create_fields; the host
 * refuses a request that sets any other (SBX_ERR_UNSUPPORTED naming the
 * member) and one whose values are malformed (SBX_ERR_USAGE naming it)
 * before calling the backend, so nothing is created for either.
 */
typedef struct sbx_create_request {
    size_t struct_size;              /* sizeof(sbx_create_request) */
    const char *sandbox_id;          /* required */
    const char *thread_id;           /* NULL: an anonymous sandbox */
    const char *user_id;             /* NULL: the user "default" */
    const sbx_mount *extra_mounts;   /* may be NULL when the count is 0 */
    size_t extra_mount_count;
    int include_legacy_skills;       /* the host decides; the backend passes it on */
    int provision_lark_cli_runtime;
    int provision_lark_cli_broker;
    int required_contract;           /* SBX_CONTRACT_NONE, or the version required */
    /* ---- ABI 1.5 ---- */
    const char *image;               /* NULL: the backend's configured image; else a
                                      * name without white space or control bytes */
    const sbx_env_var *env;          /* set for every process of the sandbox (NULL
                                      * when env_count is 0); names as in exec */
    size_t env_count;
    const sbx_label *labels;         /* NULL when label_count is 0; keys distinct;
                                      * at most SBX_LABELS_MAX */
    size_t label_count;
    int64_t memory_bytes;            /* SBX_LIMIT_NONE, or >= SBX_MEMORY_MIN_BYTES:
                                      * memory of all its processes, no swap beyond */
    int64_t cpu_millicores;          /* SBX_LIMIT_NONE, or > 0: 1000 is one core */
    int64_t pids_limit;              /* SBX_LIMIT_NONE, or > 0: processes and threads */
    int64_t disk_bytes;              /* SBX_LIMIT_NONE, or > 0: bytes it may write */
    sbx_network network;             /* SBX_NETWORK_DEFAULT: the configuration's */
    int64_t expires_at;              /* SBX_TIME_UNKNOWN (0): none; else when it is to
                                      * be destroyed, ms since the Unix epoch (UTC),
                                      * in the future */
} sbx_create_request;

#define SBX_CREATE_REQUEST_INIT                                                     \
    { sizeof(sbx_create_request), NULL, NULL, NULL, NULL, 0, 0, 0, 0, SBX_CONTRACT_NONE, \
      NULL, NULL, 0, NULL, 0, SBX_LIMIT_NONE, SBX_LIMIT_NONE, SBX_LIMIT_NONE,              \
      SBX_LIMIT_NONE, SBX_NETWORK_DEFAULT, 0 }

/* Size of a request of ABI 1.4 and before: through required_contract. */
#define SBX_CREATE_REQUEST_SIZE_1_4 \
    (offsetof(sbx_create_request, required_contract) + sizeof(int))

/* Size of a 1.5 request: through expires_at. */
#define SBX_CREATE_REQUEST_SIZE_1_5 \
    (offsetof(sbx_create_request, expires_at) + sizeof(int64_t))

/*
 * A sandbox as a backend reports it.  Strings are owned by the array that
 * holds the struct (released with free_sandboxes); optional ones are NULL
 * when unknown.  Frozen for major 1: hosts index arrays of it by their own
 * sizeof (see sbx_sandbox_record for what later minors add).
 */
typedef struct sbx_sandbox {
    char *sandbox_id;            /* never NULL */
    char *sandbox_url;           /* never NULL; "" when the sandbox has no address now
                                  * (a stopped container) */
    char *user_id;               /* NULL when the backend does not know */
    char *thread_id;             /* NULL when anonymous or unknown */
    char *status;                /* backend's status word (e.g. "Running"), or NULL */
    int mount_contract_version;  /* SBX_CONTRACT_NONE when unknown */
} sbx_sandbox;

/* sbx_sandbox_record.created_at when the backend does not know it. */
#define SBX_TIME_UNKNOWN INT64_C(0)

/*
 * A sandbox record that can grow (ABI 1.2).  Records are only ever reached
 * through pointers, chained by `next` (as getaddrinfo's results are), never
 * laid out as array elements: so no reader depends on their size, and each
 * minor may append members at the end.  `struct_size` is the size the
 * backend (or the host, for a backend of minor 0 or 1) built the record
 * with; a member appended after 1.2 is read only when
 * SBX_RECORD_HAS(record, member) says the record holds it.  The members
 * up to `directory` are in every record (the host checks that).
 *
 * A record and its strings belong to the chain it is in, released with the
 * same backend's free_records (the whole chain at once).  Optional strings
 * are NULL when the backend does not know them or they do not apply.
 */
typedef struct sbx_sandbox_record {
    size_t struct_size;                  /* bytes of this record as built */
    struct sbx_sandbox_record *next;     /* the next record of a list; NULL at the end */
    sbx_sandbox sandbox;                 /* the 1.1 fields, same meaning; list_records
                                          * also returns running sandboxes without an
                                          * address (sandbox_url "") */
    /* ---- ABI 1.2 ---- */
    int64_t created_at;       /* when the sandbox was made: milliseconds since the Unix
                               * epoch (UTC); SBX_TIME_UNKNOWN when not known */
    char *incarnation_id;     /* what reconcile reports as its incarnation: new each time
                               * the id is created again */
    char *container_id;       /* the container engine's ID of its container */
    char *container_name;     /* that container's name (no leading '/') */
    char *engine;             /* the engine that runs it: "docker" or "podman" */
    char *engine_version;     /* that engine's version, e.g. "20.10.24" */
    int64_t pid;              /* its main process on the backend's machine; 0: none/unknown */
    char *directory;          /* its directory on the backend's machine */
    /* ---- ABI 1.5 (read only when SBX_RECORD_HAS says so) ---- */
    const sbx_label *labels;  /* the labels it was created with (NULL when none);
                               * array and strings belong to the chain */
    size_t label_count;
    int64_t expires_at;       /* when it is to be destroyed (ms since the Unix epoch,
                               * UTC); SBX_TIME_UNKNOWN: no expiry, or not known */
} sbx_sandbox_record;

/* Size a record must have to hold `member`. */
#define SBX_RECORD_MIN_SIZE(member)                                      \
    (offsetof(sbx_sandbox_record, member) +                              \
     sizeof(((sbx_sandbox_record *)0)->member))

/* Non-zero when record `r` holds `member` (needed only for members
 * appended after 1.2). */
#define SBX_RECORD_HAS(r, member) ((r)->struct_size >= SBX_RECORD_MIN_SIZE(member))

/* Size of a 1.2 record: through directory. */
#define SBX_RECORD_SIZE_1_2 SBX_RECORD_MIN_SIZE(directory)

/* What a backend knows of its mount contract (ABI 1.1). */
typedef struct sbx_capabilities {
    int mount_contract_version;  /* SBX_CONTRACT_NONE when not known */
    int known;                   /* non-zero when a probe has succeeded */
} sbx_capabilities;

/* Outcome of a reconciliation discovery (ABI 1.1). */
typedef enum sbx_reconcile_status {
    SBX_RECONCILE_UNKNOWN = 0,   /* nothing authoritative: keep state, try later */
    SBX_RECONCILE_FOUND = 1,
    SBX_RECONCILE_ABSENT = 2
} sbx_reconcile_status;

/*
 * Result of a reconciliation discovery.  The caller provides the struct; the
 * backend fills it and the caller releases what it holds with
 * clear_reconciliation (the struct itself stays the caller's).
 */
typedef struct sbx_reconciliation {
    sbx_reconcile_status status;
    sbx_sandbox *sandbox;        /* FOUND: one sandbox, or NULL when it has no address
                                  * (half-deleted: destroy or retry); else NULL */
    char *backend_namespace;     /* FOUND and ABSENT: the namespace's uid; else NULL */
    char *incarnation_id;        /* FOUND: the sandbox's incarnation; else NULL */
} sbx_reconciliation;

/* ---------------------------------------------------------------- ABI 1.3
 * Sandbox operations: run a command, read, write, list and remove files in
 * a running sandbox.  Requests are caller-owned structs that start with
 * their size (the backend reads no member beyond it, so hosts of older
 * minors keep working when members are appended).  Results are built by
 * the backend, start with their size as built (read members appended
 * later only when it holds them) and are released with the same backend's
 * free operation.
 *
 * Paths are the sandbox's own: what the sandbox's commands see.  A
 * relative path is taken from the sandbox's working directory (the one a
 * command starts in by default); a path a backend cannot confine to the
 * sandbox ("..", absolute paths outside it, a symbolic link leading out) is
 * SBX_ERR_REFUSED and nothing is read or written.  Each backend's document
 * says where its sandboxes' paths lead.
 *
 * Error kinds of the operations: SBX_ERR_NOT_FOUND when the sandbox does
 * not exist or is not running ("sandbox gone"); SBX_ERR_NO_SUCH_PATH,
 * SBX_ERR_NOT_A_DIRECTORY, SBX_ERR_IS_A_DIRECTORY, SBX_ERR_EXISTS and
 * SBX_ERR_PERMISSION for what the path is; SBX_ERR_USAGE for a request
 * that is malformed (an invalid environment name, both or neither of argv
 * and shell_command); SBX_ERR_UNSUPPORTED for what this backend cannot do
 * (stdin, a shell); the transport and peer kinds as for every call.
 */

/* Which output stream bytes came from.  A process with a terminal has one
 * stream, reported as SBX_STREAM_STDOUT. */
typedef enum sbx_stream {
    SBX_STREAM_STDOUT = 1,
    SBX_STREAM_STDERR = 2
} sbx_stream;

/*
 * Output callback of exec (ABI 1.4).  Called with `length` (> 0) bytes of
 * `stream` as they arrive, NUL bytes kept; `data` is borrowed for the
 * call.  Called only on the thread that called exec, never after exec
 * returned, in arrival order (the order between the two streams is the
 * order the backend read them in).  It runs while the command runs: a
 * callback that blocks holds the command up once its pipe is full.  It
 * must not call exec on the same instance.
 */
typedef void (*sbx_output_fn)(void *output_ctx, sbx_stream stream, const char *data,
                              size_t length);

/* sbx_exec_request.timeout_ms and max_output_bytes: the backend's default. */
#define SBX_EXEC_DEFAULT 0

/*
 * A command to run.  Every pointer is borrowed for the call.  Initialise
 * with SBX_EXEC_REQUEST_INIT so that members added later get defaults.
 */
typedef struct sbx_exec_request {
    size_t struct_size;            /* sizeof(sbx_exec_request) */
    const char *const *argv;       /* the command and its arguments, NULL-
                                    * terminated: argv[0] is looked up in PATH */
    const char *shell_command;     /* or a command text run by /bin/sh -c:
                                    * exactly one of argv and shell_command */
    const sbx_env_var *env;        /* added to the backend's minimal base
                                    * environment (the host's own is never
                                    * passed through); may be NULL when the
                                    * count is 0 */
    size_t env_count;
    const char *working_dir;       /* NULL: the sandbox's working directory */
    const void *stdin_data;        /* bytes the command reads on stdin, then
                                    * end of file; NULL: empty stdin */
    size_t stdin_length;
    int64_t timeout_ms;            /* wall-clock limit, > 0; SBX_EXEC_DEFAULT:
                                    * the backend's default.  At the limit the
                                    * command and every process it started are
                                    * killed */
    size_t max_output_bytes;       /* bytes kept of each of stdout and stderr
                                    * (the first ones; the rest is read and
                                    * dropped); SBX_EXEC_DEFAULT: the backend's */
    int cancel_fd;                 /* SBX_EXEC_NO_CANCEL, or a descriptor the
                                    * backend polls (POLLRDHUP) while the command
                                    * runs: a hang-up on it (POLLRDHUP, POLLHUP,
                                    * POLLERR: a socket's peer gone, a pipe's
                                    * write end closed) kills the command and
                                    * every process it started as the timeout
                                    * does (TIMED_OUT), so that a caller whose
                                    * own client went away ends its command.
                                    * Borrowed for the call.  A backend that does
                                    * not watch it runs to the timeout */
    /* ---- ABI 1.4 ---- */
    sbx_output_fn on_output;       /* NULL, or called as output arrives (see
                                    * sbx_output_fn); the result still holds
                                    * the first max_output_bytes of each stream */
    void *output_ctx;              /* passed back to on_output */
} sbx_exec_request;

/* sbx_exec_request.cancel_fd: nothing to watch. */
#define SBX_EXEC_NO_CANCEL (-1)

/* Size of a 1.3 request: through max_output_bytes (cancel_fd came after). */
#define SBX_EXEC_REQUEST_SIZE_1_3 (offsetof(sbx_exec_request, max_output_bytes) + sizeof(size_t))

/* Size of a 1.4 request: through output_ctx. */
#define SBX_EXEC_REQUEST_SIZE_1_4 (offsetof(sbx_exec_request, output_ctx) + sizeof(void *))

#define SBX_EXEC_REQUEST_INIT \
    { sizeof(sbx_exec_request), NULL, NULL, NULL, 0, NULL, NULL, 0, SBX_EXEC_DEFAULT, \
      SBX_EXEC_DEFAULT, SBX_EXEC_NO_CANCEL, NULL, NULL }

/* How a command ended. */
typedef enum sbx_exec_outcome {
    SBX_EXEC_EXITED = 0,         /* it exited: exit_code holds its status */
    SBX_EXEC_SIGNALED = 1,       /* a signal ended it: term_signal (0 when the
                                  * backend cannot tell which) */
    SBX_EXEC_TIMED_OUT = 2       /* the timeout ended it; it was killed */
} sbx_exec_outcome;

/*
 * What a command did.  A command that ran is a result whatever its exit
 * code; one that could not start at all (no such program) exits 127, as in
 * a shell, on every backend.  Built by the backend, released with
 * free_exec_result; the output buffers belong to it.
 */
typedef struct sbx_exec_result {
    size_t struct_size;          /* bytes of this result as built */
    sbx_exec_outcome outcome;
    int exit_code;               /* EXITED: 0..255; else -1 */
    int term_signal;             /* SIGNALED: the signal number, 0 unknown; else 0 */
    int64_t duration_ms;         /* from start to end, as the backend measured */
    char *stdout_data;           /* stdout_length bytes (NUL bytes kept), then a
                                  * NUL that is not counted; never NULL */
    size_t stdout_length;
    int stdout_truncated;        /* non-zero: the command wrote more than was kept */
    char *stderr_data;           /* as stdout */
    size_t stderr_length;
    int stderr_truncated;
    /* ---- ABI 1.5 (read only when SBX_EXEC_RESULT_HAS says so) ---- */
    int oom_killed;              /* non-zero: the sandbox's memory limit was reached
                                  * while the command ran and the kernel killed a
                                  * process of the sandbox for it (the command, or
                                  * another: term_signal says which) */
} sbx_exec_result;

/* Size a result must have to hold `member`, and whether `r` holds it. */
#define SBX_EXEC_RESULT_MIN_SIZE(member)                                 \
    (offsetof(sbx_exec_result, member) + sizeof(((sbx_exec_result *)0)->member))
#define SBX_EXEC_RESULT_HAS(r, member) ((r)->struct_size >= SBX_EXEC_RESULT_MIN_SIZE(member))
#define SBX_EXEC_RESULT_SIZE_1_3 SBX_EXEC_RESULT_MIN_SIZE(stderr_truncated)

/* The bytes of a file, as read_file answers them (released with
 * free_file_content). */
typedef struct sbx_file_content {
    size_t struct_size;          /* bytes of this struct as built */
    char *data;                  /* length bytes, then a NUL that is not counted;
                                  * never NULL */
    size_t length;
    int truncated;               /* non-zero: the file has bytes past these */
} sbx_file_content;

#define SBX_FILE_CONTENT_SIZE_1_3 \
    (offsetof(sbx_file_content, truncated) + sizeof(int))

/* write_file flags.  Without APPEND or EXCLUSIVE a file is created or
 * replaced whole. */
#define SBX_WRITE_APPEND    0x1u  /* add to the end of the file (created if absent) */
#define SBX_WRITE_EXCLUSIVE 0x2u  /* SBX_ERR_EXISTS when the path exists */
#define SBX_WRITE_MKDIRS    0x4u  /* create missing parent directories (0755) */

/* remove_path flags. */
#define SBX_REMOVE_RECURSIVE 0x1u /* a directory and all it holds; without it a
                                   * directory is SBX_ERR_IS_A_DIRECTORY */

/* What a directory entry is. */
typedef enum sbx_file_type {
    SBX_FILE_REGULAR = 0,
    SBX_FILE_DIRECTORY = 1,
    SBX_FILE_SYMLINK = 2,        /* listed, never followed */
    SBX_FILE_OTHER = 3           /* a FIFO, socket or device */
} sbx_file_type;

/*
 * One entry of a listing, chained by `next` like sbx_sandbox_record.
 * Strings belong to the listing.
 */
typedef struct sbx_dir_entry {
    size_t struct_size;          /* bytes of this entry as built */
    struct sbx_dir_entry *next;  /* NULL at the end */
    char *path;                  /* relative to the listed directory, '/' between
                                  * levels (depth 1: the name) */
    sbx_file_type type;
    uint64_t size;               /* bytes; 0 for a directory */
    int64_t mtime;               /* ms since the Unix epoch; SBX_TIME_UNKNOWN */
    uint32_t mode;               /* permission bits (07777); 0 when unknown */
} sbx_dir_entry;

#define SBX_DIR_ENTRY_SIZE_1_3 (offsetof(sbx_dir_entry, mode) + sizeof(uint32_t))

/* A listing (released with free_listing). */
typedef struct sbx_dir_listing {
    size_t struct_size;          /* bytes of this struct as built */
    sbx_dir_entry *entries;      /* depth first, each directory's entries sorted
                                  * by name; NULL when empty */
    size_t count;                /* entries in the chain */
    int truncated;               /* non-zero: max_entries cut the listing */
} sbx_dir_listing;

#define SBX_DIR_LISTING_SIZE_1_3 (offsetof(sbx_dir_listing, truncated) + sizeof(int))

/* sbx_operations_info.operations: what a backend can do. */
#define SBX_OP_EXEC         0x01u  /* exec with argv */
#define SBX_OP_EXEC_SHELL   0x02u  /* exec with shell_command */
#define SBX_OP_EXEC_STDIN   0x04u  /* exec with stdin_data */
#define SBX_OP_READ_FILE    0x08u
#define SBX_OP_WRITE_FILE   0x10u
#define SBX_OP_LIST_DIR     0x20u
#define SBX_OP_REMOVE_PATH  0x40u
/* ABI 1.4 */
#define SBX_OP_EXEC_STREAM  0x80u  /* exec calls on_output as output arrives (else
                                    * the host calls it once, from the result) */
#define SBX_OP_PROCESS      0x100u /* the process operations */
#define SBX_OP_PROCESS_PTY  0x200u /* processes with a terminal (and resize) */
#define SBX_OP_PROCESS_SIGNALS 0x400u /* process_signal takes any signal 1..64;
                                      * without it only SIGINT, SIGTERM and
                                      * SIGKILL (others: SBX_ERR_UNSUPPORTED) */
#define SBX_OP_PROCESS_STDIN_CLOSE 0x800u /* process_write can close stdin (else a
                                          * close is SBX_ERR_UNSUPPORTED) */

/*
 * What a backend's operations can do, and their limits.  The caller sets
 * struct_size (sizeof as it was compiled) and the backend writes no member
 * beyond it.  Limits are 0 when there are none.
 */
typedef struct sbx_operations_info {
    size_t struct_size;           /* sizeof(sbx_operations_info) */
    unsigned operations;          /* SBX_OP_* */
    int64_t default_timeout_ms;   /* what SBX_EXEC_DEFAULT means */
    int64_t max_timeout_ms;       /* a larger timeout is SBX_ERR_USAGE */
    size_t default_output_bytes;  /* what SBX_EXEC_DEFAULT means per stream */
    size_t max_output_bytes;      /* a larger cap is SBX_ERR_USAGE */
    uint64_t max_file_bytes;      /* largest read or write in one call */
    /* ---- ABI 1.4 ---- */
    size_t max_processes;         /* running processes a sandbox may have at once
                                   * (start beyond it: SBX_ERR_REFUSED); also how
                                   * many ended ones it keeps (a start forgets the
                                   * oldest ended one beyond that) */
    size_t default_buffer_bytes;  /* what SBX_PROCESS_DEFAULT means for buffer_bytes */
    size_t max_buffer_bytes;      /* a larger buffer_bytes is SBX_ERR_USAGE; 0: the
                                   * backend takes no buffer size (any but
                                   * SBX_PROCESS_DEFAULT is SBX_ERR_UNSUPPORTED) */
    /* ---- ABI 1.5 ---- */
    unsigned create_fields;       /* SBX_CREATE_*: the create request members it
                                   * honours (0 for a backend of an older minor) */
    int file_calls_local;         /* non-zero: read_file, write_file and list_dir
                                   * are system calls of the calling process on
                                   * this host's files (no network, no child
                                   * process), so their time is bounded by the
                                   * bytes and entries asked for; 0 when unknown */
} sbx_operations_info;

/* ---------------------------------------------------------------- ABI 1.4
 * Live processes: started in a sandbox, they run in the background until
 * they exit, are signalled, or the sandbox is destroyed (destroy ends every
 * process of the sandbox, their children included).  Any host process may
 * reach a process later through its sandbox id and process id: the
 * backend keeps what a process needs (its record, its output buffers, its
 * stdin) with the sandbox, never only in the instance that started it.
 *
 * Process ids are minted by the backend: 1 to SBX_PROCESS_ID_MAX bytes of
 * [A-Za-z0-9._-], the first a letter or digit (so an id is safe as a file
 * name, an HTTP path segment and a shell word), opaque to hosts, never
 * reused within one sandbox's life (so a stale id cannot reach a newer
 * process).  The host checks every id it passes in and every id a backend
 * answers.
 *
 * Output: each stream (stdout, stderr; with a terminal only stdout) is a
 * sequence of bytes numbered from 0.  The backend keeps the most recent
 * buffer_bytes of each, so memory never grows with the output.  A reader holds
 * a cursor (one offset per stream), reads from it, and gets the next
 * cursor: any host process can read from any cursor, and several readers
 * do not disturb each other.  Bytes a cursor asked for that are no longer
 * kept are skipped and counted as dropped.
 *
 * Error kinds beyond those of ABI 1.3's operations: SBX_ERR_NO_SUCH_PROCESS
 * for a process id the sandbox does not know (never started there, or
 * forgotten); SBX_ERR_USAGE for a call that does not fit the process (a
 * cursor past its end, stdin written after it was closed or when it was
 * never open, resize without a terminal, forget of a running process);
 * SBX_ERR_REFUSED for a start beyond the sandbox's process limit.
 */

/* Longest process id, in bytes (without the NUL). */
#define SBX_PROCESS_ID_MAX 128

/* Largest terminal rows and columns a host passes (0 is never valid). */
#define SBX_PTY_SIZE_MAX 4096

/* Largest signal number a host passes (Linux's SIGRTMAX). */
#define SBX_SIGNAL_MAX 64

/* Longest wait of process_read and process_wait, in milliseconds. */
#define SBX_PROCESS_WAIT_MAX_MS INT64_C(60000)

/* sbx_process_request.buffer_bytes and sbx_process_read_request.max_bytes:
 * the backend's default. */
#define SBX_PROCESS_DEFAULT 0

/*
 * A process to start.  Every pointer is borrowed for the call.  Initialise
 * with SBX_PROCESS_REQUEST_INIT so that members added later get defaults.
 */
typedef struct sbx_process_request {
    size_t struct_size;            /* sizeof(sbx_process_request) */
    const char *const *argv;       /* as sbx_exec_request: exactly one of */
    const char *shell_command;     /*   argv and shell_command */
    const sbx_env_var *env;        /* as sbx_exec_request (NULL when the count is 0) */
    size_t env_count;
    const char *working_dir;       /* NULL: the sandbox's working directory */
    int stdin_open;                /* non-zero: stdin stays open for process_write
                                    * until closed; 0: stdin is empty (end of file) */
    int pty;                       /* non-zero: the process runs on a terminal
                                    * (stdin, stdout and stderr are the terminal) */
    unsigned rows, cols;           /* with pty: the terminal's size, 1 to
                                    * SBX_PTY_SIZE_MAX each; ignored without */
    int64_t timeout_ms;            /* 0: none; else it is killed (with every process
                                    * it started) this long after its start */
    size_t buffer_bytes;           /* bytes kept of each stream for readers;
                                    * SBX_PROCESS_DEFAULT: the backend's */
} sbx_process_request;

#define SBX_PROCESS_REQUEST_INIT \
    { sizeof(sbx_process_request), NULL, NULL, NULL, 0, NULL, 0, 0, 24, 80, 0, \
      SBX_PROCESS_DEFAULT }

#define SBX_PROCESS_REQUEST_SIZE_1_4 \
    (offsetof(sbx_process_request, buffer_bytes) + sizeof(size_t))

/* Where a process is. */
typedef enum sbx_process_state {
    SBX_PROCESS_RUNNING = 0,
    SBX_PROCESS_ENDED = 1        /* outcome, exit_code, term_signal say how */
} sbx_process_state;

/*
 * A process as the backend knows it, chained by `next` like
 * sbx_sandbox_record (start and wait answer one, list a chain).  Built by
 * the backend, released with free_processes (the whole chain); its strings
 * belong to it.
 */
typedef struct sbx_process_info {
    size_t struct_size;          /* bytes of this struct as built */
    struct sbx_process_info *next; /* NULL at the end */
    char *process_id;            /* never NULL; see "Process ids" above */
    char **argv;                 /* never NULL, NULL-terminated: the argv, or
                                  * {"/bin/sh", "-c", text} for a shell command */
    sbx_process_state state;
    int pty;                     /* non-zero: it runs on a terminal */
    int64_t started_at;          /* ms since the Unix epoch; SBX_TIME_UNKNOWN */
    int64_t ended_at;            /* ENDED: ms since the Unix epoch, or
                                  * SBX_TIME_UNKNOWN; RUNNING: SBX_TIME_UNKNOWN */
    sbx_exec_outcome outcome;    /* ENDED: as exec's (TIMED_OUT: its timeout_ms) */
    int exit_code;               /* ENDED and EXITED: 0..255; else -1 */
    int term_signal;             /* ENDED and SIGNALED: the signal; else 0 */
} sbx_process_info;

#define SBX_PROCESS_INFO_SIZE_1_4 \
    (offsetof(sbx_process_info, term_signal) + sizeof(int))

/* A position in a process's output: the number of bytes of each stream
 * before it.  {0, 0} is the start. */
typedef struct sbx_process_cursor {
    uint64_t stdout_offset;
    uint64_t stderr_offset;
} sbx_process_cursor;

/* A read of a process's output.  Caller-owned; initialise with
 * SBX_PROCESS_READ_REQUEST_INIT. */
typedef struct sbx_process_read_request {
    size_t struct_size;          /* sizeof(sbx_process_read_request) */
    sbx_process_cursor cursor;   /* where to read from; past what a stream has
                                  * produced: SBX_ERR_USAGE */
    int64_t wait_ms;             /* 0: answer at once; else wait up to this long
                                  * (<= SBX_PROCESS_WAIT_MAX_MS) for a byte past
                                  * the cursor or the process's end */
    size_t max_bytes;            /* most bytes answered, both streams together;
                                  * SBX_PROCESS_DEFAULT: the backend's */
} sbx_process_read_request;

#define SBX_PROCESS_READ_REQUEST_INIT \
    { sizeof(sbx_process_read_request), { 0, 0 }, 0, SBX_PROCESS_DEFAULT }

#define SBX_PROCESS_READ_REQUEST_SIZE_1_4 \
    (offsetof(sbx_process_read_request, max_bytes) + sizeof(size_t))

/* One run of bytes of one stream inside sbx_process_output.data. */
typedef struct sbx_output_chunk {
    sbx_stream stream;
    size_t length;               /* > 0 */
} sbx_output_chunk;

/*
 * What a read answered.  Built by the backend, released with
 * free_process_output.  `data` holds the chunks' bytes one after the
 * other, in the order the backend read them (so stdout and stderr keep
 * their interleaving where the backend knows it).
 */
typedef struct sbx_process_output {
    size_t struct_size;          /* bytes of this struct as built */
    char *data;                  /* length bytes (NUL bytes kept), then a NUL that
                                  * is not counted; never NULL */
    size_t length;               /* the chunks' lengths added up */
    sbx_output_chunk *chunks;    /* chunk_count runs; NULL when there are none */
    size_t chunk_count;
    sbx_process_cursor next;     /* the cursor to read from next: the request's,
                                  * plus what was dropped, plus what is here */
    uint64_t stdout_dropped;     /* bytes between the request's cursor and the */
    uint64_t stderr_dropped;     /*   first one answered that were no longer kept */
    int ended;                   /* non-zero only when the process has ended AND
                                  * `next` is the end of both streams: a reader
                                  * has then seen everything */
    sbx_exec_outcome outcome;    /* when ended: as sbx_process_info's */
    int exit_code;
    int term_signal;
} sbx_process_output;

#define SBX_PROCESS_OUTPUT_SIZE_1_4 \
    (offsetof(sbx_process_output, term_signal) + sizeof(int))

/* Bytes for a process's stdin.  Caller-owned; initialise with
 * SBX_PROCESS_WRITE_REQUEST_INIT. */
typedef struct sbx_process_write_request {
    size_t struct_size;          /* sizeof(sbx_process_write_request) */
    const void *data;            /* length bytes, borrowed; NULL when length is 0 */
    size_t length;
    int close_stdin;             /* non-zero: after the bytes, close stdin (the
                                  * process reads end of file) */
} sbx_process_write_request;

#define SBX_PROCESS_WRITE_REQUEST_INIT { sizeof(sbx_process_write_request), NULL, 0, 0 }

#define SBX_PROCESS_WRITE_REQUEST_SIZE_1_4 \
    (offsetof(sbx_process_write_request, close_stdin) + sizeof(int))

/*
 * The file calls as requests (ABI 1.4): the same meaning and limits as the
 * positional calls of 1.3 (read_file, write_file, list_dir, remove_path),
 * which stay for older hosts.  Caller-owned, pointers borrowed for the
 * call; initialise with the INIT macros.
 */
typedef struct sbx_read_file_request {
    size_t struct_size;          /* sizeof(sbx_read_file_request) */
    const char *path;
    uint64_t offset;
    uint64_t max_bytes;          /* >= 1 */
} sbx_read_file_request;

#define SBX_READ_FILE_REQUEST_INIT { sizeof(sbx_read_file_request), NULL, 0, 0 }
#define SBX_READ_FILE_REQUEST_SIZE_1_4 \
    (offsetof(sbx_read_file_request, max_bytes) + sizeof(uint64_t))

typedef struct sbx_write_file_request {
    size_t struct_size;          /* sizeof(sbx_write_file_request) */
    const char *path;
    const void *data;            /* length bytes; NULL when length is 0 */
    size_t length;
    unsigned flags;              /* SBX_WRITE_* */
    uint32_t mode;               /* permission bits of a file it creates; 0: 0644 */
} sbx_write_file_request;

#define SBX_WRITE_FILE_REQUEST_INIT { sizeof(sbx_write_file_request), NULL, NULL, 0, 0, 0 }
#define SBX_WRITE_FILE_REQUEST_SIZE_1_4 \
    (offsetof(sbx_write_file_request, mode) + sizeof(uint32_t))

typedef struct sbx_list_dir_request {
    size_t struct_size;          /* sizeof(sbx_list_dir_request) */
    const char *path;
    unsigned max_depth;          /* >= 1 */
    size_t max_entries;          /* >= 1 */
} sbx_list_dir_request;

#define SBX_LIST_DIR_REQUEST_INIT { sizeof(sbx_list_dir_request), NULL, 1, 0 }
#define SBX_LIST_DIR_REQUEST_SIZE_1_4 \
    (offsetof(sbx_list_dir_request, max_entries) + sizeof(size_t))

typedef struct sbx_remove_path_request {
    size_t struct_size;          /* sizeof(sbx_remove_path_request) */
    const char *path;
    unsigned flags;              /* SBX_REMOVE_* */
} sbx_remove_path_request;

#define SBX_REMOVE_PATH_REQUEST_INIT { sizeof(sbx_remove_path_request), NULL, 0 }
#define SBX_REMOVE_PATH_REQUEST_SIZE_1_4 \
    (offsetof(sbx_remove_path_request, flags) + sizeof(unsigned))

/* An open backend instance; its layout is the backend's own. */
typedef struct sbx_backend_instance sbx_backend_instance;

/*
 * The descriptor.  Members are only ever appended; a host reads a member only
 * if SBX_DESCRIPTOR_HAS says the descriptor is large enough to hold it.
 */
typedef struct sbx_backend_descriptor {
    /* ---- header: layout fixed for every version ---- */
    uint32_t abi_major;          /* SBX_BACKEND_ABI_MAJOR the module was built for */
    uint32_t abi_minor;          /* SBX_BACKEND_ABI_MINOR the module was built for */
    size_t struct_size;          /* sizeof(sbx_backend_descriptor) as built */
    const char *name;            /* backend name, e.g. "remote" */
    const char *version;         /* backend's own version string */

    /* ---- ABI 1.0 ---- */

    /* Open an instance from options (unknown keys are SBX_ERR_CONFIG naming
     * the key).  On success *out is the new instance, released by close(). */
    sbx_status (*open)(const sbx_option *options, size_t option_count,
                       const sbx_host_services *services,
                       sbx_backend_instance **out, sbx_error *err);

    /* Release an instance and everything it holds.  NULL is accepted. */
    void (*close)(sbx_backend_instance *instance);

    /* Create (or return the existing) sandbox.  On success *out is one
     * sandbox, released with free_sandboxes(*out, 1). */
    sbx_status (*create)(sbx_backend_instance *instance,
                         const sbx_create_request *request,
                         sbx_sandbox **out, sbx_error *err);

    /* Destroy a sandbox.  Destroying an absent sandbox succeeds. */
    sbx_status (*destroy)(sbx_backend_instance *instance, const char *sandbox_id,
                          sbx_error *err);

    /* *alive = 1 when the sandbox runs, 0 when it does not or is unknown to
     * the backend; errors only when the backend cannot tell. */
    sbx_status (*is_alive)(sbx_backend_instance *instance, const char *sandbox_id,
                           int *alive, sbx_error *err);

    /* Find a sandbox by id: SBX_ERR_NOT_FOUND when there is none.  On
     * success *out is one sandbox, released with free_sandboxes(*out, 1). */
    sbx_status (*discover)(sbx_backend_instance *instance, const char *sandbox_id,
                           sbx_sandbox **out, sbx_error *err);

    /* The sandboxes running now.  On success *out holds *count sandboxes
     * (NULL when zero), released with free_sandboxes(*out, *count). */
    sbx_status (*list_running)(sbx_backend_instance *instance,
                               sbx_sandbox **out, size_t *count, sbx_error *err);

    /* Release an array of sandboxes returned by this backend.  NULL is fine. */
    void (*free_sandboxes)(sbx_sandbox *sandboxes, size_t count);

    /* ---- ABI 1.1 ---- */

    /* The mount contract as it stands now: probes when the cached answer is
     * stale, waits for a probe already in flight.  Never fails for a failed
     * probe: then known is 0. */
    sbx_status (*capabilities)(sbx_backend_instance *instance,
                               sbx_capabilities *out, sbx_error *err);

    /* Reconciliation discovery: always SBX_OK with out->status UNKNOWN when
     * nothing authoritative was learnt; errors only for invalid arguments. */
    sbx_status (*reconcile)(sbx_backend_instance *instance, const char *sandbox_id,
                            sbx_reconciliation *out, sbx_error *err);

    /* Release what a reconciliation result holds and zero it. */
    void (*clear_reconciliation)(sbx_reconciliation *result);

    /* ---- ABI 1.2: growable records (sbx_sandbox_record) ---- */
    /* A backend that sets any of the three record operations sets
     * free_records too (the host refuses it otherwise).  A backend without
     * free_records gets records built by the host from create, discover
     * and list_running, with the 1.2 members unknown. */

    /* As create, answering a record: on success *out is one record
     * (next NULL), released with free_records(*out). */
    sbx_status (*create_record)(sbx_backend_instance *instance,
                                const sbx_create_request *request,
                                sbx_sandbox_record **out, sbx_error *err);

    /* As discover, answering a record (released with free_records). */
    sbx_status (*discover_record)(sbx_backend_instance *instance, const char *sandbox_id,
                                  sbx_sandbox_record **out, sbx_error *err);

    /* As list_running, answering a chain of *count records (*out NULL when
     * zero), released with free_records(*out).  Unlike list_running it
     * keeps running sandboxes that have no address (sandbox_url ""). */
    sbx_status (*list_records)(sbx_backend_instance *instance,
                               sbx_sandbox_record **out, size_t *count, sbx_error *err);

    /* Release a chain of records returned by this backend.  NULL is fine. */
    void (*free_records)(sbx_sandbox_record *records);

    /* ---- ABI 1.3: sandbox operations (see above) ---- */
    /* A backend that sets an operation also sets its free operation, and
     * operations_info (the host refuses it otherwise). */

    /* What the operations can do and their limits (no sandbox involved). */
    sbx_status (*operations_info)(sbx_backend_instance *instance,
                                  sbx_operations_info *out, sbx_error *err);

    /* Run a command in sandbox `sandbox_id` and wait for it.  SBX_OK when it
     * ran, whatever its exit; *out is released with free_exec_result. */
    sbx_status (*exec)(sbx_backend_instance *instance, const char *sandbox_id,
                       const sbx_exec_request *request, sbx_exec_result **out,
                       sbx_error *err);

    /* Release an exec result.  NULL is fine. */
    void (*free_exec_result)(sbx_exec_result *result);

    /* Read at most max_bytes (> 0) of a regular file from byte `offset` on
     * (past the end: zero bytes).  *out is released with free_file_content. */
    sbx_status (*read_file)(sbx_backend_instance *instance, const char *sandbox_id,
                            const char *path, uint64_t offset, uint64_t max_bytes,
                            sbx_file_content **out, sbx_error *err);

    /* Release what read_file answered.  NULL is fine. */
    void (*free_file_content)(sbx_file_content *content);

    /* Write `length` bytes as the file at `path` (SBX_WRITE_* flags); `mode`
     * is the permission bits of a file it creates (0: 0644).  The parent
     * directory must exist unless SBX_WRITE_MKDIRS. */
    sbx_status (*write_file)(sbx_backend_instance *instance, const char *sandbox_id,
                             const char *path, const void *data, size_t length,
                             unsigned flags, uint32_t mode, sbx_error *err);

    /* The entries under directory `path`, down to max_depth levels (1: its
     * own entries; >= 1) and at most max_entries (> 0) of them.  Symbolic
     * links are listed, not followed.  *out is released with free_listing. */
    sbx_status (*list_dir)(sbx_backend_instance *instance, const char *sandbox_id,
                           const char *path, unsigned max_depth, size_t max_entries,
                           sbx_dir_listing **out, sbx_error *err);

    /* Release a listing.  NULL is fine. */
    void (*free_listing)(sbx_dir_listing *listing);

    /* Remove the file, symbolic link or (SBX_REMOVE_RECURSIVE) directory at
     * `path`: SBX_ERR_NO_SUCH_PATH when there is none.  A link is removed,
     * never what it points to. */
    sbx_status (*remove_path)(sbx_backend_instance *instance, const char *sandbox_id,
                              const char *path, unsigned flags, sbx_error *err);

    /* ---- ABI 1.4: live processes and file requests (see above) ---- */
    /* A backend that sets a process operation sets process_start,
     * free_processes, free_process_output and operations_info too; one that
     * sets a file request call sets its free operation (the host refuses
     * it otherwise).  Every process call may be made from any thread and
     * any host process, concurrently, on one process or many. */

    /* Start a process in sandbox `sandbox_id` and return at once.  On
     * success *out is one sbx_process_info (RUNNING, or ENDED when it was
     * that quick), released with free_processes.  A program that does not
     * exist starts and ends with exit code 127, as exec. */
    sbx_status (*process_start)(sbx_backend_instance *instance, const char *sandbox_id,
                                const sbx_process_request *request,
                                sbx_process_info **out, sbx_error *err);

    /* Read output of a process from request->cursor, waiting up to
     * request->wait_ms for some.  *out is released with free_process_output.
     * An ended process can still be read until it is forgotten. */
    sbx_status (*process_read)(sbx_backend_instance *instance, const char *sandbox_id,
                               const char *process_id,
                               const sbx_process_read_request *request,
                               sbx_process_output **out, sbx_error *err);

    /* Write bytes to a process's stdin and (close_stdin) close it.  Returns
     * when the bytes are in the pipe or terminal, not when they are read. */
    sbx_status (*process_write)(sbx_backend_instance *instance, const char *sandbox_id,
                                const char *process_id,
                                const sbx_process_write_request *request, sbx_error *err);

    /* Send signal `signal` (1..SBX_SIGNAL_MAX) to the process's group: the
     * process and every process it started.  An ended process: SBX_OK. */
    sbx_status (*process_signal)(sbx_backend_instance *instance, const char *sandbox_id,
                                 const char *process_id, int signal, sbx_error *err);

    /* Set the size of a process's terminal (1..SBX_PTY_SIZE_MAX each); the
     * process gets SIGWINCH. */
    sbx_status (*process_resize)(sbx_backend_instance *instance, const char *sandbox_id,
                                 const char *process_id, unsigned rows, unsigned cols,
                                 sbx_error *err);

    /* Wait up to wait_ms (0..SBX_PROCESS_WAIT_MAX_MS) for the process to end.
     * *out is its sbx_process_info (RUNNING when the bound passed),
     * released with free_processes. */
    sbx_status (*process_wait)(sbx_backend_instance *instance, const char *sandbox_id,
                               const char *process_id, int64_t wait_ms,
                               sbx_process_info **out, sbx_error *err);

    /* The processes of a sandbox the backend still knows (running, and ended
     * ones not forgotten), oldest first: a chain of *count (*out NULL when
     * zero), released with free_processes. */
    sbx_status (*process_list)(sbx_backend_instance *instance, const char *sandbox_id,
                               sbx_process_info **out, size_t *count, sbx_error *err);

    /* Drop an ended process's record and output; its id is unknown from then
     * on (SBX_ERR_NO_SUCH_PROCESS).  A running one: SBX_ERR_USAGE. */
    sbx_status (*process_forget)(sbx_backend_instance *instance, const char *sandbox_id,
                                 const char *process_id, sbx_error *err);

    /* Release a chain of process infos returned by this backend.  NULL is fine. */
    void (*free_processes)(sbx_process_info *processes);

    /* Release what process_read answered.  NULL is fine. */
    void (*free_process_output)(sbx_process_output *output);

    /* As read_file, write_file, list_dir and remove_path, taking requests
     * (whose size says which members they hold); results are released with
     * free_file_content and free_listing as the 1.3 calls' are. */
    sbx_status (*read_file_req)(sbx_backend_instance *instance, const char *sandbox_id,
                                const sbx_read_file_request *request,
                                sbx_file_content **out, sbx_error *err);
    sbx_status (*write_file_req)(sbx_backend_instance *instance, const char *sandbox_id,
                                 const sbx_write_file_request *request, sbx_error *err);
    sbx_status (*list_dir_req)(sbx_backend_instance *instance, const char *sandbox_id,
                               const sbx_list_dir_request *request,
                               sbx_dir_listing **out, sbx_error *err);
    sbx_status (*remove_path_req)(sbx_backend_instance *instance, const char *sandbox_id,
                                  const sbx_remove_path_request *request, sbx_error *err);

    /* ---- ABI 1.5 ---- */

    /* Move the expiry of sandbox `sandbox_id` to `expires_at` (ms since the
     * Unix epoch, UTC; the host passes only one in the future), earlier or
     * later.  SBX_ERR_NOT_FOUND when there is no such sandbox (one past its
     * expiry is destroyed, then not found); SBX_ERR_USAGE naming
     * "expires_at" when the sandbox was made without an expiry. */
    sbx_status (*extend)(sbx_backend_instance *instance, const char *sandbox_id,
                         int64_t expires_at, sbx_error *err);

    /* ---- ABI 1.6 ---- */

    /* Open the regular file at `path` for reading, confined as read_file
     * (the same path rules and error kinds: a directory is
     * SBX_ERR_IS_A_DIRECTORY, a FIFO, socket or device what read_file
     * answers for it).  On success *fd is a read-only descriptor
     * (close-on-exec) that the caller owns and closes, and *size the file's
     * size when it was opened; a file larger than operations_info's
     * max_file_bytes is SBX_ERR_USAGE, as read_file reads no more.  For a
     * host that sends a file without holding its bytes (a download). */
    sbx_status (*open_file)(sbx_backend_instance *instance, const char *sandbox_id,
                            const char *path, int *fd, uint64_t *size, sbx_error *err);
} sbx_backend_descriptor;

/* Size a descriptor must have to hold `member` (for the host's checks). */
#define SBX_DESCRIPTOR_MIN_SIZE(member)                                  \
    (offsetof(sbx_backend_descriptor, member) +                          \
     sizeof(((sbx_backend_descriptor *)0)->member))

/* Non-zero when descriptor `d` is large enough to hold `member`. */
#define SBX_DESCRIPTOR_HAS(d, member) \
    ((d)->struct_size >= SBX_DESCRIPTOR_MIN_SIZE(member))

/* Size of a 1.0 descriptor: through free_sandboxes. */
#define SBX_DESCRIPTOR_SIZE_1_0 SBX_DESCRIPTOR_MIN_SIZE(free_sandboxes)

/* Size of a 1.1 descriptor: through clear_reconciliation. */
#define SBX_DESCRIPTOR_SIZE_1_1 SBX_DESCRIPTOR_MIN_SIZE(clear_reconciliation)

/* Size of a 1.2 descriptor: through free_records. */
#define SBX_DESCRIPTOR_SIZE_1_2 SBX_DESCRIPTOR_MIN_SIZE(free_records)

/* Size of a 1.3 descriptor: through remove_path. */
#define SBX_DESCRIPTOR_SIZE_1_3 SBX_DESCRIPTOR_MIN_SIZE(remove_path)

/* Size of a 1.4 descriptor: through remove_path_req. */
#define SBX_DESCRIPTOR_SIZE_1_4 SBX_DESCRIPTOR_MIN_SIZE(remove_path_req)

/* Size of a 1.5 descriptor: through extend. */
#define SBX_DESCRIPTOR_SIZE_1_5 SBX_DESCRIPTOR_MIN_SIZE(extend)

/* Size of a 1.6 descriptor: through open_file. */
#define SBX_DESCRIPTOR_SIZE_1_6 SBX_DESCRIPTOR_MIN_SIZE(open_file)

/*
 * The module's entry point, exported as SBX_BACKEND_ENTRY_SYMBOL.  Returns a
 * pointer to a static descriptor; it must do nothing else (the host calls it
 * before it has checked the module's version).
 */
typedef const sbx_backend_descriptor *(*sbx_backend_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* SBX_BACKEND_H */
