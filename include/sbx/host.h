/*
 * sbx host library: find, load and call sandbox backends.
 *
 * A host creates one sbx_host, optionally registers in-process backends and
 * sets a module search path, then opens backends by name.  Several backends
 * (of the same or different kinds) may be open at once.
 *
 * Backend lookup for a name:
 *   1. in-process backends (built in, or registered with
 *      sbx_host_register_backend);
 *   2. a module file NAME.so, then sbx-NAME.so, in each directory of the
 *      module path: the configured directories (sbx_host_set_module_path),
 *      then those of $SBX_MODULE_PATH (colon-separated; empty entries
 *      are skipped, never read as "/" or "."), then the
 *      compiled-in install directory (sbx_host_default_module_dir()).
 *
 * A module is refused, without calling anything in it but its entry point,
 * when it is not a loadable shared object, lacks the entry symbol, was built
 * for another ABI major, or has a descriptor too small for ABI 1.0.
 *
 * Thread safety: an sbx_host is not synchronised; configure it (register,
 * set path, open) from one thread, or lock around it.  An sbx_backend may be
 * used from many threads at once (all operation wrappers below), except
 * sbx_backend_close.  Modules stay loaded until sbx_host_free, so every
 * sbx_backend of a host must be closed before the host is freed.
 */
#ifndef SBX_HOST_H
#define SBX_HOST_H

#include <stddef.h>
#include <sbx/backend.h>
#include <sbx/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbx_host sbx_host;
typedef struct sbx_backend sbx_backend;
typedef struct sbx_config sbx_config;

/* ---------------------------------------------------------------- host */

/* Create a host.  `services` (may be NULL) is copied; its log callback is
 * handed to every backend this host opens.  Returns SBX_OK or
 * SBX_ERR_INTERNAL (out of memory). */
sbx_status sbx_host_new(const sbx_host_services *services, sbx_host **out,
                        sbx_error *err);

/* Unload every module and free the host.  All its backends must be closed
 * first.  NULL is accepted. */
void sbx_host_free(sbx_host *host);

/* Register an in-process backend; the descriptor is borrowed and must
 * outlive the host.  It is validated as a module's would be (SBX_ERR_LOAD);
 * a name already registered is SBX_ERR_USAGE. */
sbx_status sbx_host_register_backend(sbx_host *host,
                                     const sbx_backend_descriptor *descriptor,
                                     sbx_error *err);

/* Replace the configured module directories (searched before
 * $SBX_MODULE_PATH).  The strings are copied. */
sbx_status sbx_host_set_module_path(sbx_host *host, const char *const *dirs,
                                    size_t dir_count, sbx_error *err);

/* The compiled-in module directory (the install's pkglibdir).  Static. */
const char *sbx_host_default_module_dir(void);

/* Where a backend comes from. */
typedef enum sbx_backend_kind {
    SBX_BACKEND_BUILTIN = 0,
    SBX_BACKEND_MODULE = 1
} sbx_backend_kind;

/* A backend the host can load (see sbx_host_list_backends). */
typedef struct sbx_backend_info {
    const char *name;        /* the descriptor's name */
    sbx_backend_kind kind;
    const char *path;        /* module file, NULL for built-in backends */
    unsigned abi_major, abi_minor;
    const char *version;     /* the backend's version string */
} sbx_backend_info;

/* Find and load (if not loaded yet) the backend `name` and return its
 * validated descriptor, owned by the host.  SBX_ERR_LOAD when there is no
 * such backend or its module is refused; the message names the name or the
 * module's path, and both ABI versions where they apply.  SBX_ERR_CONFIG
 * when an entry of the module path is longer than PATH_MAX leaves room for
 * a module's file name in (PATH_MAX - NAME_MAX - 2 bytes); the message
 * names the entry.  Nothing is loaded then. */
sbx_status sbx_host_load(sbx_host *host, const char *name,
                         const sbx_backend_descriptor **out, sbx_error *err);

/* Every backend the host can load: the in-process ones, then each loadable
 * module on the module path (a name found twice is listed once, first one
 * wins; modules that are refused are logged at WARN and skipped).  *out is
 * owned by the host and valid until the next call or sbx_host_free.
 * SBX_ERR_CONFIG for a module path entry that is too long, as
 * sbx_host_load. */
sbx_status sbx_host_list_backends(sbx_host *host, const sbx_backend_info **out,
                                  size_t *count, sbx_error *err);

/* ---------------------------------------------------------------- backends */

/* Load `name` (as sbx_host_load) and open an instance with `options`
 * (borrowed).  On success *out is released with sbx_backend_close. */
sbx_status sbx_backend_open(sbx_host *host, const char *name,
                            const sbx_option *options, size_t option_count,
                            sbx_backend **out, sbx_error *err);

/* Create (sbx_backend_create, sbx_backend_create_record) first checks the
 * request's ABI 1.5 members: a malformed one (memory below
 * SBX_MEMORY_MIN_BYTES, cpu or pids below 1, an expiry not in the future, a
 * label key with '=', an image with white space, ...) is SBX_ERR_USAGE, and
 * one the backend does not honour (sbx_operations_info.create_fields; none
 * for a module built before 1.5) SBX_ERR_UNSUPPORTED, each naming the
 * member, and the backend is not called. */

/* Close an instance.  NULL is accepted.  Not concurrently with its calls. */
void sbx_backend_close(sbx_backend *backend);

/* The descriptor of an open backend (owned by the host). */
const sbx_backend_descriptor *sbx_backend_descriptor_of(const sbx_backend *backend);

/*
 * Operation wrappers.  Each checks that the backend has the operation
 * (SBX_ERR_UNSUPPORTED naming the backend and the operation otherwise),
 * clears `err`, and calls it.  `err` must point to a caller-owned record (it
 * is filled on failure).  Results are released with sbx_backend_free_sandboxes
 * / sbx_backend_clear_reconciliation on the same backend.
 */
sbx_status sbx_backend_create(sbx_backend *backend, const sbx_create_request *request,
                              sbx_sandbox **out, sbx_error *err);
sbx_status sbx_backend_destroy(sbx_backend *backend, const char *sandbox_id,
                               sbx_error *err);
sbx_status sbx_backend_is_alive(sbx_backend *backend, const char *sandbox_id,
                                int *alive, sbx_error *err);
sbx_status sbx_backend_discover(sbx_backend *backend, const char *sandbox_id,
                                sbx_sandbox **out, sbx_error *err);
sbx_status sbx_backend_list_running(sbx_backend *backend, sbx_sandbox **out,
                                    size_t *count, sbx_error *err);
sbx_status sbx_backend_capabilities(sbx_backend *backend, sbx_capabilities *out,
                                    sbx_error *err);
sbx_status sbx_backend_reconcile(sbx_backend *backend, const char *sandbox_id,
                                 sbx_reconciliation *out, sbx_error *err);

/* Release sandboxes returned by this backend.  NULL is accepted. */
void sbx_backend_free_sandboxes(sbx_backend *backend, sbx_sandbox *sandboxes,
                                size_t count);

/*
 * Records (ABI 1.2): create, discover and list as above, answering
 * growable sbx_sandbox_record chains, from a backend of any minor.  A
 * backend with record operations answers them itself; for one without
 * (ABI 1.0 and 1.1 modules, and 1.2 modules that do not set free_records),
 * the host builds the records from create, discover and list_running:
 * then the 1.2 members are unknown (SBX_TIME_UNKNOWN, NULL, 0) and the list
 * holds only what list_running does.  A record a backend returns smaller
 * than SBX_RECORD_SIZE_1_2, or a chain shorter than its count, is
 * SBX_ERR_INTERNAL naming the backend (nothing is handed out).  Release
 * every chain with sbx_backend_free_records on the same backend.
 */
sbx_status sbx_backend_create_record(sbx_backend *backend,
                                     const sbx_create_request *request,
                                     sbx_sandbox_record **out, sbx_error *err);
sbx_status sbx_backend_discover_record(sbx_backend *backend, const char *sandbox_id,
                                       sbx_sandbox_record **out, sbx_error *err);
sbx_status sbx_backend_list_records(sbx_backend *backend, sbx_sandbox_record **out,
                                    size_t *count, sbx_error *err);

/* As sbx_backend_list_records, keeping only the records whose labels (ABI
 * 1.5) include every label of want[0..want_count) with an equal value (all
 * records when want_count is 0; a record of a backend that answers no
 * labels matches no label).  SBX_ERR_USAGE for a filter label without key
 * or value.  Release the chain with sbx_backend_free_records. */
sbx_status sbx_backend_list_records_labelled(sbx_backend *backend, const sbx_label *want,
                                             size_t want_count, sbx_sandbox_record **out,
                                             size_t *count, sbx_error *err);

/* Move the expiry of sandbox `sandbox_id` (ABI 1.5) to `expires_at`, ms
 * since the Unix epoch (UTC).  SBX_ERR_USAGE naming expires_at when it is
 * not in the future, and from the backend when the sandbox has no expiry;
 * SBX_ERR_NOT_FOUND when there is no such sandbox (or it was past its
 * expiry); SBX_ERR_UNSUPPORTED for a backend without extend. */
sbx_status sbx_backend_extend(sbx_backend *backend, const char *sandbox_id, int64_t expires_at,
                              sbx_error *err);

/* Open the regular file at `path` of sandbox `sandbox_id` for reading
 * (ABI 1.6): on success *fd (>= 0) is the caller's to close and *size the
 * file's size when opened.  Errors as read_file's; SBX_ERR_UNSUPPORTED for
 * a backend without open_file (then *fd is -1). */
sbx_status sbx_backend_open_file(sbx_backend *backend, const char *sandbox_id, const char *path,
                                 int *fd, uint64_t *size, sbx_error *err);

/* Release a chain of records from this backend.  NULL is accepted. */
void sbx_backend_free_records(sbx_backend *backend, sbx_sandbox_record *records);

/* Release what a reconciliation result from this backend holds. */
void sbx_backend_clear_reconciliation(sbx_backend *backend,
                                      sbx_reconciliation *result);

/* Mount-contract rule 7: 1 when the host's own configuration enables thread
 * data mounts (`host_enabled`) and the backend's current mount contract
 * version (re-probed if stale, waiting for a probe in flight) is >= 2; else
 * 0.  Backends without capabilities answer 0. */
int sbx_backend_allows_thread_data_mounts(sbx_backend *backend, int host_enabled);

/*
 * Sandbox operations (ABI 1.3; <sbx/backend.h> says what each does and
 * which error kinds it answers), on a backend of any minor: a backend
 * without the operation answers SBX_ERR_UNSUPPORTED naming it and the
 * operation.  A result a backend returns malformed (smaller than ABI 1.3's,
 * without its buffers, a listing whose chain differs from its count) is
 * released and SBX_ERR_INTERNAL naming the backend.  Results are released
 * with the matching sbx_backend_free_* on the same backend.  Safe from many
 * threads at once, on one sandbox or many.
 */

/* What the backend's operations can do and their limits.  The caller sets
 * out->struct_size; every member the backend does not set reads 0 (for a
 * backend without operations: all of them).  SBX_ERR_USAGE for a
 * struct_size too small to hold a member. */
sbx_status sbx_backend_operations_info(sbx_backend *backend, sbx_operations_info *out,
                                       sbx_error *err);

/* Run a command in a sandbox and wait for it: SBX_OK whenever it ran,
 * whatever its exit (*out says how it ended).  SBX_ERR_USAGE for a NULL
 * id or request or one not made with SBX_EXEC_REQUEST_INIT. */
sbx_status sbx_backend_exec(sbx_backend *backend, const char *sandbox_id,
                            const sbx_exec_request *request, sbx_exec_result **out,
                            sbx_error *err);

/* Release an exec result of this backend.  NULL is accepted. */
void sbx_backend_free_exec_result(sbx_backend *backend, sbx_exec_result *result);

/* Read at most max_bytes (>= 1, else SBX_ERR_USAGE) of a file from
 * `offset` on. */
sbx_status sbx_backend_read_file(sbx_backend *backend, const char *sandbox_id,
                                 const char *path, uint64_t offset, uint64_t max_bytes,
                                 sbx_file_content **out, sbx_error *err);

/* Release file content of this backend.  NULL is accepted. */
void sbx_backend_free_file_content(sbx_backend *backend, sbx_file_content *content);

/* Write a file (SBX_WRITE_* flags; APPEND and EXCLUSIVE together, unknown
 * flags or a mode beyond 07777 are SBX_ERR_USAGE).  `data` is borrowed. */
sbx_status sbx_backend_write_file(sbx_backend *backend, const char *sandbox_id,
                                  const char *path, const void *data, size_t length,
                                  unsigned flags, uint32_t mode, sbx_error *err);

/* List a directory down to max_depth levels, at most max_entries entries
 * (both >= 1, else SBX_ERR_USAGE). */
sbx_status sbx_backend_list_dir(sbx_backend *backend, const char *sandbox_id,
                                const char *path, unsigned max_depth, size_t max_entries,
                                sbx_dir_listing **out, sbx_error *err);

/* Release a listing of this backend.  NULL is accepted. */
void sbx_backend_free_listing(sbx_backend *backend, sbx_dir_listing *listing);

/* Remove a file, link or (SBX_REMOVE_RECURSIVE) directory. */
sbx_status sbx_backend_remove_path(sbx_backend *backend, const char *sandbox_id,
                                   const char *path, unsigned flags, sbx_error *err);

/*
 * ABI 1.4 additions to the sandbox operations.
 *
 * Exec's on_output (sbx_exec_request, ABI 1.4) works on a backend of any
 * minor: one that does not stream (SBX_OP_EXEC_STREAM not in its
 * operations_info) gets the callback called by the host after the
 * command ended, once per stream with what the result holds.
 *
 * The file calls taking requests: on a backend without the request slot
 * (ABI 1.3 modules) the host calls the positional 1.3 slot, so a host uses
 * these on every backend; the positional wrappers above are these with a
 * request built for them.  SBX_ERR_USAGE for a NULL id or request, a
 * request not made with its INIT macro (smaller than 1.4's), a NULL path,
 * and the limits the positional wrappers state.  Results are checked and
 * released as theirs are.
 */
sbx_status sbx_backend_read_file_req(sbx_backend *backend, const char *sandbox_id,
                                     const sbx_read_file_request *request,
                                     sbx_file_content **out, sbx_error *err);
sbx_status sbx_backend_write_file_req(sbx_backend *backend, const char *sandbox_id,
                                      const sbx_write_file_request *request, sbx_error *err);
sbx_status sbx_backend_list_dir_req(sbx_backend *backend, const char *sandbox_id,
                                    const sbx_list_dir_request *request,
                                    sbx_dir_listing **out, sbx_error *err);
sbx_status sbx_backend_remove_path_req(sbx_backend *backend, const char *sandbox_id,
                                       const sbx_remove_path_request *request, sbx_error *err);

/*
 * Live processes (ABI 1.4; <sbx/backend.h> says what each does, what a
 * process id and a cursor are, and which error kinds each answers).  A
 * backend without the operation answers SBX_ERR_UNSUPPORTED naming it and
 * the operation (every one of them on a module of ABI 1.0 to 1.3).
 * Before calling the backend the host answers SBX_ERR_USAGE, with a
 * message naming the call and the value, for: a NULL sandbox id; a process
 * id that is not 1 to SBX_PROCESS_ID_MAX bytes of [A-Za-z0-9._-]; a NULL
 * request or one smaller than 1.4's (not made with its INIT macro); a
 * terminal size of 0 or above SBX_PTY_SIZE_MAX; a signal outside
 * 1..SBX_SIGNAL_MAX; a wait outside 0..SBX_PROCESS_WAIT_MAX_MS; a negative
 * timeout; bytes without data.  What a backend answers malformed (an info
 * or output smaller than 1.4's, without its id, argv or buffers, chunks
 * that do not add up, a next cursor that does not follow from the
 * request's, a chain whose length differs from its count) is released and
 * SBX_ERR_INTERNAL naming the backend.  Results are released with
 * sbx_backend_free_processes / sbx_backend_free_process_output on the same
 * backend.  Safe from many threads at once.
 */

/* Start a process; *out is one info (its process id, state and argv).
 * A terminal on a backend without process_resize: SBX_ERR_UNSUPPORTED. */
sbx_status sbx_backend_process_start(sbx_backend *backend, const char *sandbox_id,
                                     const sbx_process_request *request,
                                     sbx_process_info **out, sbx_error *err);

/* Read a process's output from request->cursor, waiting up to
 * request->wait_ms; *out holds the bytes, the next cursor, what was
 * dropped and, at the end of an ended process, how it ended. */
sbx_status sbx_backend_process_read(sbx_backend *backend, const char *sandbox_id,
                                    const char *process_id,
                                    const sbx_process_read_request *request,
                                    sbx_process_output **out, sbx_error *err);

/* Write bytes to a process's stdin, and close it when asked. */
sbx_status sbx_backend_process_write(sbx_backend *backend, const char *sandbox_id,
                                     const char *process_id,
                                     const sbx_process_write_request *request,
                                     sbx_error *err);

/* Send `signal` (1..SBX_SIGNAL_MAX) to the process's group. */
sbx_status sbx_backend_process_signal(sbx_backend *backend, const char *sandbox_id,
                                      const char *process_id, int signal, sbx_error *err);

/* Set a process's terminal size (1..SBX_PTY_SIZE_MAX rows and columns). */
sbx_status sbx_backend_process_resize(sbx_backend *backend, const char *sandbox_id,
                                      const char *process_id, unsigned rows, unsigned cols,
                                      sbx_error *err);

/* Wait up to wait_ms for a process to end; *out is its info either way. */
sbx_status sbx_backend_process_wait(sbx_backend *backend, const char *sandbox_id,
                                    const char *process_id, int64_t wait_ms,
                                    sbx_process_info **out, sbx_error *err);

/* The processes of a sandbox: a chain of *count infos (NULL when none). */
sbx_status sbx_backend_process_list(sbx_backend *backend, const char *sandbox_id,
                                    sbx_process_info **out, size_t *count, sbx_error *err);

/* Drop an ended process's record and output. */
sbx_status sbx_backend_process_forget(sbx_backend *backend, const char *sandbox_id,
                                      const char *process_id, sbx_error *err);

/* Release a chain of infos of this backend.  NULL is accepted. */
void sbx_backend_free_processes(sbx_backend *backend, sbx_process_info *processes);

/* Release a read's output of this backend.  NULL is accepted. */
void sbx_backend_free_process_output(sbx_backend *backend, sbx_process_output *output);

/* ---------------------------------------------------------------- config */

/* Parse a configuration file (JSON; see docs/configuration.md).  `${NAME}`
 * and `${NAME:-default}` in string values are expanded from the
 * environment.  SBX_ERR_CONFIG naming the file and the key or variable at
 * fault; on success *out is released with sbx_config_free. */
sbx_status sbx_config_load_file(const char *path, sbx_config **out, sbx_error *err);

/* As sbx_config_load_file, from text; `origin` names it in messages. */
sbx_status sbx_config_parse(const char *text, const char *origin,
                            sbx_config **out, sbx_error *err);

/* Free a configuration.  NULL is accepted. */
void sbx_config_free(sbx_config *config);

/* The configured backend name, or NULL when the file names none. */
const char *sbx_config_backend(const sbx_config *config);

/* The configured module directories (owned by the config). */
const char *const *sbx_config_module_path(const sbx_config *config, size_t *count);

/* The options of backend `name` (owned by the config; empty when the file
 * has none).  Numbers and booleans are given as their JSON text. */
const sbx_option *sbx_config_backend_options(const sbx_config *config,
                                             const char *name, size_t *count);

/* Set (or replace) option `key` of backend `name`; strings are copied.
 * Used for command-line overrides. */
sbx_status sbx_config_set_option(sbx_config *config, const char *name,
                                 const char *key, const char *value, sbx_error *err);

/* Replace the backend name; the string is copied. */
sbx_status sbx_config_set_backend(sbx_config *config, const char *name,
                                  sbx_error *err);

/* An empty configuration (no file). */
sbx_status sbx_config_new(sbx_config **out, sbx_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SBX_HOST_H */
