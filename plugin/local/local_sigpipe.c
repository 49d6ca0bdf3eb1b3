/* SIGPIPE held off the host around FIFO writes (local_sigpipe.h). */
#include <config.h>

#include "plugin/local/local_sigpipe.h"

#include <pthread.h>
#include <time.h>

/* The set of SIGPIPE alone. */
static void pipe_only(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGPIPE);
}

void local_sigpipe_hold(sigset_t *saved)
{
    sigset_t pipe_set;
    pipe_only(&pipe_set);
    pthread_sigmask(SIG_BLOCK, &pipe_set, saved);
}

void local_sigpipe_release(const sigset_t *saved)
{
    sigset_t pipe_set;
    pipe_only(&pipe_set);
    /* Raised by a write in between (the thread's own, directed at it). */
    const struct timespec zero = { 0, 0 };
    while (sigtimedwait(&pipe_set, NULL, &zero) > 0)
        ;
    pthread_sigmask(SIG_SETMASK, saved, NULL);
}
