/*
 * Writes to a FIFO whose reader may go at any moment (a live process's
 * stdin or control FIFO, read by its supervisor) must not raise SIGPIPE
 * in the host: the library does not own the host's signal dispositions.
 * Between local_sigpipe_hold and local_sigpipe_release the calling
 * thread's SIGPIPE is blocked, and one raised meanwhile is taken, never
 * delivered.
 */
#ifndef SBX_LOCAL_SIGPIPE_H
#define SBX_LOCAL_SIGPIPE_H

#include <signal.h>

/* Block SIGPIPE in the calling thread; *saved keeps its mask. */
void local_sigpipe_hold(sigset_t *saved);

/* Take any SIGPIPE raised since local_sigpipe_hold and restore *saved. */
void local_sigpipe_release(const sigset_t *saved);

#endif
