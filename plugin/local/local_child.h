/*
 * A process the backend forks, before it becomes a command: it closes
 * what it inherited so that it holds nothing of the host's (no lock, no
 * pipe end another thread's reader waits on) and resets the signals the
 * host set, using only async-signal-safe calls, as a fork of a
 * multi-threaded host must.
 */
#ifndef SBX_LOCAL_CHILD_H
#define SBX_LOCAL_CHILD_H

#include <stddef.h>

/* The highest number of descriptors to close one by one where close_range
 * is missing; call in the parent before forking (getrlimit). */
long local_child_fd_limit(void);

/* Close every descriptor from 3 up except those of `keep` (ascending, at
 * most fd_limit).  Async-signal-safe. */
void local_child_close_all_but(const int *keep, size_t count, long fd_limit);

/* `fd` moved above the standard descriptors (so that dup2 onto 0-2 cannot
 * overwrite it); -1 on failure.  Async-signal-safe. */
int local_child_above_stdio(int fd);

/* Unblock every signal and give each its default action (an ignored
 * SIGPIPE or SIGCHLD would otherwise pass through exec).  Async-signal-safe. */
void local_child_reset_signals(void);

#endif
