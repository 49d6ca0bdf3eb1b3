/*
 * The wire between the docker backend and the process server (the helper
 * sbx-docker-pty run as `serve`, one attached exec per connection): the
 * backend sends a request on the exec's stdin, the server runs it in the
 * container as its own session (fork and exec, as an exec of the engine
 * would) and answers on the exec's stdout, one request at a time.  Every
 * number is an unsigned 32-bit big-endian word.  Constants only, shared by
 * both sides (the helper is a static program of its own), with the
 * reading and writing of a word.
 *
 *   hello     the server's first DOCKER_PROC_WIRE_HELLO_LEN bytes, once
 *   request   DOCKER_PROC_WIRE_REQUEST_WORDS words: WORDS_LEN, STDIN_LEN,
 *             MAX_OUTPUT, FLAGS; then WORDS_LEN bytes of NUL-terminated
 *             strings (the working directory, "" for the container's, then
 *             the program and its arguments); then STDIN_LEN bytes for the
 *             command's stdin (closed after them)
 *   answer    DOCKER_PROC_WIRE_ANSWER_WORDS words: KIND, VALUE, OUT_LEN,
 *             ERR_LEN, FLAGS; then OUT_LEN stdout bytes and ERR_LEN stderr
 *             bytes (each the first MAX_OUTPUT bytes of its stream)
 */
#ifndef SBX_DOCKER_PROC_WIRE_H
#define SBX_DOCKER_PROC_WIRE_H

#include <stdint.h>

#define DOCKER_PROC_WIRE_HELLO "sbx-ps1\n"
#define DOCKER_PROC_WIRE_HELLO_LEN 8

#define DOCKER_PROC_WIRE_REQUEST_WORDS 4
#define DOCKER_PROC_WIRE_ANSWER_WORDS 5

/* The largest WORDS_LEN a server accepts (argv and environment of a start). */
#define DOCKER_PROC_WIRE_WORDS_MAX (16u << 20)

/* An answer's KIND (VALUE in parentheses). */
enum {
    DOCKER_PROC_WIRE_EXITED = 0,     /* (its exit code) */
    DOCKER_PROC_WIRE_SIGNALED = 1,   /* (the signal that ended it) */
    DOCKER_PROC_WIRE_NODIR = 2,      /* the working directory is missing (errno) */
    DOCKER_PROC_WIRE_NOSTART = 3     /* no pipe or fork for it (errno) */
};

/* The word at `p`. */
static inline uint32_t docker_proc_wire_get(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* `v` as the word at `p`. */
static inline void docker_proc_wire_put(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* A request's FLAGS.  SCRIPT: the command is the process script
 * (`/bin/sh -c SCRIPT $0 OP ARGS...`, docker_proc_script.h), whose read
 * and wait the server may answer itself (sbx_docker_proc_native.h); a
 * server that does not know the flag (an older helper) runs the script,
 * which answers the same. */
#define DOCKER_PROC_WIRE_SCRIPT 1u

/* An answer's FLAGS. */
#define DOCKER_PROC_WIRE_OUT_TRUNCATED 1u
#define DOCKER_PROC_WIRE_ERR_TRUNCATED 2u

#endif
