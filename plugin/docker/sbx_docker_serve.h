/*
 * The process server of sbx-docker-pty (`sbx-docker-pty serve`): the
 * docker backend starts it once per instance and container as an attached
 * exec and sends its process calls over that exec's stdin instead of
 * asking the engine for an exec per call (docker_proc_wire.h is the wire).
 */
#ifndef SBX_DOCKER_SERVE_H
#define SBX_DOCKER_SERVE_H

#include <stddef.h>

/* Write all `n` bytes of `buf` to `fd` (again after EINTR): 0, or -1 with
 * errno set. */
int sbx_docker_write_all(int fd, const void *buf, size_t n);

/* Serve requests from stdin until its end of file (0) or a malformed
 * request or a lost peer (127, a message on stderr).  Single-threaded:
 * one request at a time. */
int sbx_docker_serve(void);

#endif
