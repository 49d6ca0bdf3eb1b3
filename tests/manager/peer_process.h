/*
 * The test's side of tests/manager/mgr_peer: start a manager in another
 * process, send it commands, read its answers with deadlines, kill it.
 */
#ifndef SBX_TEST_PEER_PROCESS_H
#define SBX_TEST_PEER_PROCESS_H

#include <stddef.h>
#include <sys/types.h>

typedef struct peer_process {
    pid_t pid;
    int to_peer, from_peer;        /* its stdin, its stdout */
    char owner[320];               /* its owner id (from "ready") */
} peer_process;

/* The arguments of mgr_peer's usage. */
typedef struct peer_config {
    const char *state_dir, *lease_db;
    long interval_ms, idle_ms;
    const char *shutdown;          /* its shutdown mode: "destroy", "keep" */
    const char *command;           /* NULL: sandboxes without one (and no stop) */
    long stop_ms;
} peer_config;

/* Start mgr_peer (from $SBX_TEST_BUILDDIR) with the arguments `c` and
 * wait (10 s) for "ready".  0, or -1 with a message on stderr. */
int peer_start(peer_process *p, const peer_config *c);

/* Send `command` without waiting for its answer (for a command the peer
 * is killed in the middle of).  0, or -1. */
int peer_send(peer_process *p, const char *command);

/* Send `command` and read one answer line into `answer` (at most 10 s).
 * 0, or -1 (answer then says why). */
int peer_ask(peer_process *p, const char *command, char *answer, size_t cap);

/* Read the answer to a command sent with peer_send, waiting at most
 * timeout_ms (0: only an answer already there).  0, or -1 (answer then
 * says why). */
int peer_read(peer_process *p, char *answer, size_t cap, long timeout_ms);

/* Its counters: active warm adopted reaped evicted lost; 0 or -1. */
int peer_counters(peer_process *p, unsigned long long counters[6]);

/* "quit", then wait for it to exit (10 s, then SIGKILL).  Its exit status,
 * or -1. */
int peer_quit(peer_process *p);

/* SIGKILL and reap it. */
void peer_kill(peer_process *p);

#endif
