/*
 * The answers of the process script (docker_proc_script.h) turned into
 * ABI 1.4 values, and those values built and released: pure functions,
 * no engine involved.  Every struct answered is malloc'd with its strings
 * and freed by docker_proc_free_infos / docker_proc_free_output.
 */
#ifndef SBX_DOCKER_PROC_ANSWERS_H
#define SBX_DOCKER_PROC_ANSWERS_H

#include <sbx/backend.h>

#include <stddef.h>
#include <stdint.h>

/* How a process stands, from a STATE of the script ("run", or "end CODE
 * SECONDS TIMEDOUT"). */
typedef struct docker_proc_state {
    int ended;
    sbx_exec_outcome outcome;
    int exit_code;               /* EXITED: 0..255; else -1 */
    int term_signal;             /* SIGNALED: 1..64; else 0 */
    int64_t ended_at;            /* ms since the epoch (whole seconds), 0 unknown */
} docker_proc_state;

/* Parse STATE words at `text` (up to the end of its line) into *out: 0, or
 * -1 when they are not a state. */
int docker_proc_parse_state(const char *text, docker_proc_state *out);

/* A new info of process `id` with `argc` argv slots (all NULL, then the
 * terminating NULL), RUNNING and unknown times; NULL when out of memory. */
sbx_process_info *docker_proc_info_new(const char *id, size_t argc);

/* Set an info's end from *state (after its started_at: an end is never
 * reported before the start). */
void docker_proc_info_settle(sbx_process_info *info, const docker_proc_state *state);

/* The info records of a wait or list answer (`length` bytes; "P ID T0
 * ARGC STATE\n" and ARGC NUL-terminated words each) as a chain into
 * *first (NULL when none) and its length into *count.  0; -1 when the
 * bytes are not such records; -2 out of memory.  Nothing is answered on
 * failure. */
int docker_proc_parse_infos(const char *data, size_t length, sbx_process_info **first,
                            size_t *count);

/* The header of a read answer: the ranges answered and the ends. */
typedef struct docker_proc_read_header {
    uint64_t out_from, out_to, err_from, err_to;  /* [from, to) of each stream */
    uint64_t out_end, err_end;                    /* what each stream has produced */
    docker_proc_state state;
} docker_proc_read_header;

/* Parse "sbx-read AO BO AE BE EO EE STATE" at `line` (up to its newline)
 * into *out: 0, or -1 when it is not one. */
int docker_proc_parse_read_header(const char *line, docker_proc_read_header *out);

/* The bytes a read answered, in the script's streams. */
typedef struct docker_proc_read_bytes {
    const char *runs;            /* the runs line after "sbx-runs" (" o 5 e 3..."), up
                                  * to its newline: their order and lengths */
    const char *out;             /* stdout bytes, at most what the header promised */
    size_t out_len;
    const char *err;             /* stderr bytes, likewise */
    size_t err_len;
} docker_proc_read_bytes;

/* The answer of a read from `cursor` into *out: the bytes as chunks in
 * the runs' order (bytes of a run that did not come are left out, with
 * everything after them of that stream).  0; -1 when the runs do not add
 * up to the header's ranges; -2 out of memory. */
int docker_proc_output_new(const sbx_process_cursor *cursor, const docker_proc_read_header *h,
                           const docker_proc_read_bytes *bytes, sbx_process_output **out);

/* Release a chain of infos (NULL is fine): the descriptor's free_processes. */
void docker_proc_free_infos(sbx_process_info *first);

/* Release a read's answer (NULL is fine): the descriptor's
 * free_process_output. */
void docker_proc_free_output(sbx_process_output *output);

#endif
