/*
 * The output of a live process (ABI 1.4) as a file in the sandbox's state
 * that every host process maps: a header (the totals per stream, the order
 * in which the streams were written, how the process ended) and, per
 * stream, a ring of `capacity` bytes holding the most recent ones.  The
 * process's supervisor (local_supervisor.h) appends; any host process
 * reads from a cursor and waits for a change on a futex word of the
 * header, so a reader wakes as soon as a byte arrives, without polling.
 * A robust process-shared mutex orders writer and readers: one killed
 * while holding it leaves it to the next locker.
 *
 * Thread safety: a local_ring is one thread's; any number of local_rings
 * of any processes may map the same file.
 */
#ifndef SBX_LOCAL_RING_H
#define SBX_LOCAL_RING_H

#include <sbx/backend.h>

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A mapped output file. */
typedef struct local_ring {
    int fd;                       /* the file, open read-write */
    struct local_ring_header *h;  /* the mapping; NULL when none */
    size_t size;                  /* bytes mapped */
} local_ring;

/* What the header says of the process (a snapshot). */
typedef struct local_ring_state {
    int ended;                    /* 1: it ended; then the three below */
    sbx_exec_outcome outcome;
    int exit_code;
    int term_signal;
    int64_t started_at, ended_at; /* ms since the epoch (ended_at: when ended) */
    int pty;
    int stdin_open;               /* 1 until stdin was closed (or never open) */
} local_ring_state;

/* Create the output file `name` in directory `dir_fd` (O_EXCL, 0600) for
 * `capacity` bytes per stream and map it into *ring; `pty` and
 * `stdin_open` as the request asked, started now.  0, or -1 with errno. */
int local_ring_create(int dir_fd, const char *name, size_t capacity, int pty, int stdin_open,
                      local_ring *ring);

/* Map the existing output file `name` of `dir_fd`.  0, or -1 with errno
 * (ENOENT when there is none, EPROTO when it is not an output file). */
int local_ring_open(int dir_fd, const char *name, local_ring *ring);

/* Unmap and close (a zeroed or closed ring is fine). */
void local_ring_close(local_ring *ring);

/* Append `length` bytes of `stream` (those beyond `capacity` push the
 * oldest out) and wake the readers.  The supervisor's. */
void local_ring_append(local_ring *ring, sbx_stream stream, const char *data, size_t length);

/* Record the end of the process (once; a later call changes nothing) and
 * wake the readers. */
void local_ring_finish(local_ring *ring, sbx_exec_outcome outcome, int exit_code,
                       int term_signal);

/* Record that stdin was closed; 0 when it was already. */
int local_ring_close_stdin(local_ring *ring);

/* The header's account of the process into *state. */
void local_ring_state_of(local_ring *ring, local_ring_state *state);

/* The output after request->cursor, at most request->max_bytes of it
 * (its wait is the caller's), into *out (the caller's, released with
 * local_ring_free_output); *wake the futex value the answer was taken at
 * (for local_ring_wait).  SBX_ERR_USAGE naming `process_id` when the
 * cursor is past what a stream has produced; SBX_ERR_INTERNAL when out of
 * memory. */
sbx_status local_ring_read(local_ring *ring, const char *process_id,
                           const sbx_process_read_request *request, sbx_process_output **out,
                           uint32_t *wake, sbx_error *err);

/* The futex value now (take before looking at the state, then wait on it). */
uint32_t local_ring_wake_value(local_ring *ring);

/* Sleep until the header changes from `seen` or timeout_ms (> 0) passed. */
void local_ring_wait(local_ring *ring, uint32_t seen, int64_t timeout_ms);

/* 1 when no supervisor holds the file any more (its lock is free) while
 * the header says running: the supervisor was killed.  The end is then
 * recorded (SIGKILL) so that readers stop waiting. */
int local_ring_reap_orphan(local_ring *ring);

/* Record the supervisor's pid (the supervisor's, at its start). */
void local_ring_set_supervisor(local_ring *ring, pid_t pid);

/* SIGKILL the supervisor while it holds the file's lock (so its pid is
 * still its own). */
void local_ring_kill_supervisor(local_ring *ring);

/* Release what local_ring_read answered (NULL is fine). */
void local_ring_free_output(sbx_process_output *output);

#endif
