/*
 * A real redis-server for the tests: started on a unix socket in a private
 * directory (no TCP port at all), without persistence, and stopped again.
 */
#ifndef SBX_TEST_REDIS_SERVER_H
#define SBX_TEST_REDIS_SERVER_H

#include <sys/types.h>

typedef struct redis_server {
    pid_t pid;
    char dir[256];                 /* private directory (removed by stop) */
    char socket[300];              /* its unix socket */
    char url[320];                 /* unix://<socket> */
    int port;                      /* also on 127.0.0.1:port; 0: the socket only */
} redis_server;

/* 1 when redis-server is on PATH, else 0 (the caller skips, saying why). */
int redis_server_available(void);

/* Start one and wait (at most 10 s) until it answers PING.  0, or -1 with a
 * message on stderr. */
int redis_server_start(redis_server *server);

/* As redis_server_start, listening on 127.0.0.1 as well, on a port that
 * was free (->port), for the redis://host:port URLs. */
int redis_server_start_tcp(redis_server *server);

/* Stop it (SIGTERM, then SIGKILL after 5 s) and remove its directory; with
 * `keep_dir` the directory stays for a restart on the same socket. */
void redis_server_stop(redis_server *server, int keep_dir);

/* Start again on the same socket (after a stop with keep_dir): an empty
 * server, as after a restart without persistence. */
int redis_server_restart(redis_server *server);

/* Run one command on it (argv, argc) and return the reply as text (the
 * string, the integer in decimal, "(nil)"), malloc'ed; NULL on failure. */
char *redis_server_command(const redis_server *server, int argc, const char **argv);

#endif
