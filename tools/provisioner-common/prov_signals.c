/* A sigwait thread and the stage the daemon is in (see prov_signals.h). */
#include <config.h>

#include "tools/provisioner-common/prov_signals.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef enum stage { STARTING, SERVING, DRAINING } stage;

static struct {
    const char *prog;
    sigset_t set;
    pthread_mutex_t lock;
    pthread_cond_t arrived;     /* signalled when `received` is set */
    stage stage;
    int received;               /* the signal that asked for the drain */
} state = {.lock = PTHREAD_MUTEX_INITIALIZER, .arrived = PTHREAD_COND_INITIALIZER};

/* Say why the process ends and end it.  Only write(2): the thread that
 * was interrupted may hold stdio's locks. */
static void end_now(int signal_number, const char *when)
{
    char line[256];
    int n = snprintf(line, sizeof line, "%s: %s %s: exiting at once\n", state.prog,
                     signal_number == SIGINT ? "SIGINT" : "SIGTERM", when);
    if (n > 0) {
        ssize_t written = write(STDERR_FILENO, line, strlen(line));
        (void)written;      /* nothing to do if stderr is gone */
    }
    _exit(0);
}

static void *take_signals(void *arg)
{
    (void)arg;
    for (;;) {
        int signal_number = 0;
        if (sigwait(&state.set, &signal_number) != 0)
            continue;
        pthread_mutex_lock(&state.lock);
        stage now = state.stage;
        int first = now == SERVING && state.received == 0;
        if (first) {
            state.received = signal_number;
            pthread_cond_signal(&state.arrived);
        }
        pthread_mutex_unlock(&state.lock);
        /* Nothing was served yet, or the drain was asked for already: the
         * records on disk are whole at any moment, so ending is safe. */
        if (now == STARTING)
            end_now(signal_number, "while starting");
        else if (!first)
            end_now(signal_number, "again while draining");
    }
    return NULL;
}

int prov_signals_start(const char *prog)
{
    state.prog = prog;
    sigemptyset(&state.set);
    sigaddset(&state.set, SIGTERM);
    sigaddset(&state.set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &state.set, NULL);
    signal(SIGPIPE, SIG_IGN);
    pthread_t thread;
    int rc = pthread_create(&thread, NULL, take_signals, NULL);
    if (rc != 0) {
        fprintf(stderr, "%s: cannot start the signal thread: %s\n", prog, strerror(rc));
        return 0;
    }
    pthread_detach(thread);
    return 1;
}

void prov_signals_serving(void)
{
    pthread_mutex_lock(&state.lock);
    state.stage = SERVING;
    pthread_mutex_unlock(&state.lock);
}

int prov_signals_wait(void)
{
    pthread_mutex_lock(&state.lock);
    state.stage = SERVING;
    while (state.received == 0)
        pthread_cond_wait(&state.arrived, &state.lock);
    state.stage = DRAINING;
    int signal_number = state.received;
    pthread_mutex_unlock(&state.lock);
    return signal_number;
}
