/* The open connections of a provisioner server, tracked by socket so that
 * no client can hold the server: a request must arrive whole within the
 * request deadline (slow-drip clients are cut), the connections in total
 * stay under a cap (a new one displaces the longest-waiting connection that
 * has not yet sent its request's headers), and at the end of a drain the
 * requests still in the program's handler are answered 503 on the raw
 * socket (plain HTTP) or have their connection shut down (HTTPS).  Cutting
 * is shutdown(2), never close(2): the HTTP library notices and closes the
 * socket itself.  Knows nothing of the HTTP library; thread-safe. */
#ifndef PROV_CONNS_H
#define PROV_CONNS_H

typedef struct prov_conns prov_conns;
typedef struct prov_conn prov_conn;

/* A tracker: at most `max_connections` open at once (0: no cap), each
 * request read whole within `request_timeout_ms` of its connection's
 * opening or the previous answer (0: no deadline; else a thread enforces
 * it), answers cut at a drain written as plain HTTP unless `tls`.  NULL
 * when memory or the thread cannot be had. */
prov_conns *prov_conns_new(unsigned max_connections, unsigned request_timeout_ms, int tls);

/* Stop the deadline thread and free the tracker with what it still holds
 * (after the HTTP library has stopped).  NULL is accepted. */
void prov_conns_free(prov_conns *conns);

/* Track the newly accepted socket `fd`; over the cap, the longest-waiting
 * connection without a request yet (or `fd` itself when none) is shut
 * down.  Returns the entry (owned by the tracker until
 * prov_conns_remove), or NULL when memory runs out: `fd` is then shut
 * down. */
prov_conn *prov_conns_add(prov_conns *conns, int fd);

/* The connection is closing (before its socket is closed): forget it. */
void prov_conns_remove(prov_conns *conns, prov_conn *conn);

/* Its request's headers were accepted (the key checked): no longer
 * displaced by newcomers while it sends its body.  `method` and `path`
 * (copied, truncated) name it if it has to be cut at a drain's end. */
void prov_conns_begun(prov_conns *conns, prov_conn *conn, const char *method,
                          const char *path);

/* The request is read whole and about to enter the program's handler.
 * Returns 1 to go on, 0 when a drain's end has passed (answer 503 without
 * calling the handler).  A NULL `conn` (untracked) goes on. */
int prov_conns_answering(prov_conns *conns, prov_conn *conn);

/* The handler has returned.  Returns 1 to send its answer, 0 when the
 * connection was cut meanwhile (send nothing: the client has its 503 or
 * its EOF). */
int prov_conns_answered(prov_conns *conns, prov_conn *conn);

/* The answer went out: the next request's deadline runs from now. */
void prov_conns_completed(prov_conns *conns, prov_conn *conn);

/* The drain's end: no request enters the handler any more, and every one
 * still in it is answered 503 (plain HTTP) or cut, and named to
 * `report(ctx, "METHOD /path")`.  Returns how many were in the handler:
 * while any is, the handler threads cannot be joined. */
unsigned prov_conns_cut_answering(prov_conns *conns,
                                      void (*report)(void *ctx, const char *what), void *ctx);

#endif
