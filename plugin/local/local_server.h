/*
 * The `command` of an isolated sandbox (isolation=namespaces,
 * docs/local.md "Isolation"): the long-running server runs as an exec's
 * command does, in the holder's namespaces, in a pid namespace of its own
 * with a fresh /proc, the limits, no new privileges and the seccomp
 * filter.  The process the record names (local_process_start's shell)
 * joins the namespaces and stays outside the command's pid namespace as
 * its parent: it reports the command's exit as its own, and it is the one
 * that tries the port on the sandbox's loopback, which the host cannot:
 * with network=none it tells create when the command serves; with
 * network=forward it then starts listening on the host's 127.0.0.1 port
 * it was given (bound by the host, in the host's network namespace) and
 * relays each connection to the command's port inside.
 */
#ifndef SBX_LOCAL_SERVER_H
#define SBX_LOCAL_SERVER_H

#include "plugin/local/local_isolation.h"

#include <sbx/backend.h>

/* Number of descriptors local_server_keep_fds names. */
#define LOCAL_SERVER_KEEP 5

/* What the command's process needs, prepared by the host. */
typedef struct local_server {
    local_isolation_plan plan;
    int port;         /* the command's {port} */
    int ready_write;  /* network=none: the joined process's end, "serving" */
    int ready_read;   /* network=none: the host's end (readable once serving,
                       * or at EOF when the process is gone); -1 otherwise */
    int listen_fd;    /* network=forward: the host's 127.0.0.1:port, bound,
                       * not yet listening; -1 otherwise */
    long fd_limit;    /* local_child_fd_limit, for the relays */
} local_server;

/* The command's port, as create picked it. */
typedef struct local_server_port {
    int number;  /* the command's {port} */
    int fd;      /* network=forward: the socket bound to the host's
                  * 127.0.0.1:number when it was picked; else -1 */
    int network; /* the sandbox's network (LOCAL_NETWORK_*: local_net_of),
                  * which says how the port is reached */
} local_server_port;

/* Prepare the command of the sandbox in `sandbox_dir` (absolute, borrowed
 * until local_server_free) whose holder is `holder` (a pidfd), serving
 * `port`.  `holder` and port.fd are taken over, even on failure.
 * SBX_ERR_INTERNAL when out of memory or descriptors.  Free with
 * local_server_free. */
sbx_status local_server_prepare(const local_isolation_options *options, const char *sandbox_dir,
                                int holder, local_server_port port, local_server *out,
                                sbx_error *err);

/* Release what `server` holds (zeroed or prepared storage). */
void local_server_free(local_server *server);

/* The descriptors the command's process must keep open (-1 for none) into
 * keep[LOCAL_SERVER_KEEP], unsorted. */
void local_server_keep_fds(const local_server *server, int keep[LOCAL_SERVER_KEEP]);

/* In the process the record names, its stdio set, signals reset: join the
 * sandbox's namespaces and fork the command's init.  Returns only in the
 * command's own process, confined, to exec the shell.  The process itself
 * waits for the init (forwarding the port meanwhile, with
 * network=forward) and exits as the command did (a setup step that
 * failed is written to stderr, the log, then exit 126).  SIGTERM is
 * ignored here: destroy's SIGTERM ends the command, and with it this
 * process.  Async-signal-safe. */
void local_server_enter(const local_server *server);

#endif
