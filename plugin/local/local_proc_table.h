/*
 * Where the live processes of one sandbox (ABI 1.4) keep their state,
 * beside its record in the state directory (never inside the sandbox
 * directory, which its commands may change):
 *   STATE/.ID.procs/next      the number of the next process id
 *   STATE/.ID.procs/pN/       process "pN": output (local_ring.h), argv
 *                             (its words, each NUL-terminated), stdin (a
 *                             FIFO, when stdin is open), control (a FIFO
 *                             the supervisor reads: local_supervisor.h)
 *   STATE/.ID.procs/pN.new/   a start in progress (renamed to pN once its
 *                             supervisor runs; one a killed start left is
 *                             removed by the next start)
 * Ids count up from p1 and are never reused while the sandbox lives (the
 * directory goes with the sandbox).  A start allocates under the
 * sandbox's lock (local_state.h), so it never races a destroy.
 */
#ifndef SBX_LOCAL_PROC_TABLE_H
#define SBX_LOCAL_PROC_TABLE_H

#include "plugin/local/local_ring.h"
#include "plugin/local/local_state.h"

#include <limits.h>
#include <sbx/backend.h>

/* The output file, FIFOs and argv file of a process directory. */
#define LOCAL_PROC_OUTPUT "output"
#define LOCAL_PROC_STDIN "stdin"
#define LOCAL_PROC_CONTROL "control"
#define LOCAL_PROC_ARGV "argv"

/* One process opened by id. */
typedef struct local_proc {
    char id[32];
    int dir_fd;        /* its directory */
    local_ring ring;   /* its output, mapped */
} local_proc;

/* The process directory of sandbox `paths` into `out` (PATH_MAX bytes). */
sbx_status local_proc_table_path(const local_paths *paths, char *out, sbx_error *err);

/* Open process `process_id` of sandbox `paths` into *p (release with
 * local_proc_close).  SBX_ERR_NO_SUCH_PROCESS naming it when the sandbox
 * has none of that id (never started, forgotten, or a directory a killed
 * start left half made). */
sbx_status local_proc_open(const local_paths *paths, const char *process_id, local_proc *p,
                           sbx_error *err);

/* Release what local_proc_open opened. */
void local_proc_close(local_proc *p);

/* The ids of the processes of a sandbox, oldest first: *ids (the caller's,
 * each and the array freed with free) holds *count.  An absent directory
 * is no process. */
sbx_status local_proc_ids(const local_paths *paths, char ***ids, size_t *count,
                          sbx_error *err);

/* Free what local_proc_ids answered. */
void local_proc_ids_free(char **ids, size_t count);

/* A slot for a new process, the caller holding the sandbox's lock: what
 * killed starts left is removed, the oldest ended processes are forgotten
 * so that at most max_processes ended ones stay, and
 * SBX_ERR_REFUSED naming the limit when max_processes run already.  Then
 * the next id is taken and its directory made (named "pN.new"): *dir_fd
 * its descriptor, `id` (32 bytes) its id, to be published with
 * local_proc_publish. */
sbx_status local_proc_reserve(const local_paths *paths, size_t max_processes, char *id,
                              int *dir_fd, sbx_error *err);

/* Rename the directory of reserved process `id` to its id ("pN.new" to
 * "pN"): from then on it is found.  Or, when `keep` is 0, remove it. */
sbx_status local_proc_publish(const local_paths *paths, const char *id, int keep,
                              sbx_error *err);

/* Forget an ended process: its directory is removed.  SBX_ERR_USAGE when
 * it runs, SBX_ERR_NO_SUCH_PROCESS when there is none. */
sbx_status local_proc_forget(const local_paths *paths, const char *process_id,
                             sbx_error *err);

/* Destroy (the caller holds the sandbox's lock, the record is tombed): end
 * every process of the sandbox (their supervisors end them, with all
 * they started; waited for up to stop_timeout_ms, then killed), then
 * remove the directory.  SBX_ERR_INTERNAL naming what could not be
 * removed. */
sbx_status local_proc_end_all(const local_paths *paths, long stop_timeout_ms,
                              sbx_error *err);

#endif
