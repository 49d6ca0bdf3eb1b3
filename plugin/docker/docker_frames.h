/*
 * The engine's multiplexed exec stream (Tty false): frames of an 8-byte
 * header {type, 0, 0, 0, size as big-endian uint32} and `size` bytes, type
 * 1 stdout, 2 stderr, 3 an engine error (0, stdin, is delivered as
 * stdout, as Docker's own client does).  Decoded as bytes arrive, in any
 * split: a frame's bytes are handed on as they come, never held, so
 * memory stays bounded whatever the frames' sizes.  Pure.
 */
#ifndef SBX_DOCKER_FRAMES_H
#define SBX_DOCKER_FRAMES_H

#include <stddef.h>
#include <stdint.h>

enum {
    DOCKER_STREAM_STDOUT = 1,
    DOCKER_STREAM_STDERR = 2,
    DOCKER_STREAM_SYSTEM = 3
};

/* Gets `n` (> 0) bytes of stream `stream`; returns 0 to go on, else the
 * decoding stops and docker_frames_feed returns that value. */
typedef int (*docker_frames_fn)(void *ctx, int stream, const char *bytes, size_t n);

typedef struct docker_frames {
    unsigned char header[8];
    size_t header_len;       /* bytes of the current header read */
    uint32_t left;           /* bytes of the current frame's payload still to come */
    int stream;
    docker_frames_fn deliver;
    void *ctx;
} docker_frames;

/* A decoder at the start of a stream. */
void docker_frames_init(docker_frames *d, docker_frames_fn deliver, void *ctx);

/* Decode `n` more bytes.  0; the callback's non-zero value; or -1 for a
 * header of an unknown type (the stream is not multiplexed). */
int docker_frames_feed(docker_frames *d, const char *bytes, size_t n);

/* 1 when the stream ended between frames (not inside one). */
int docker_frames_complete(const docker_frames *d);

#endif
