/*
 * The process script's `read` and `wait` answered by the process server
 * itself (sbx-docker-pty serve), byte for byte as the script answers them
 * (docker_proc_script.h), from the same files under DOCKER_PROC_ROOT, so
 * that the backend cannot tell which side answered.  A long poll waits on
 * inotify for the process's output tick and status files instead of the
 * script's 10 ms naps (and a run of programs per nap).
 */
#ifndef SBX_DOCKER_PROC_NATIVE_H
#define SBX_DOCKER_PROC_NATIVE_H

#include <stddef.h>

/* Where an answer's bytes go: `stream` 1 (stdout) or 2 (stderr); 0, or -1
 * when they cannot be kept (out of memory). */
typedef int (*sbx_docker_sink)(void *ctx, int stream, const char *bytes, size_t n);

/* Answer the script call `args` (OP ARGS..., NULL-terminated, the words
 * after the script's $0) as the script would, its exit code 0: 1 when
 * answered, 0 when the call is not one answered here (another OP, or
 * words the script alone knows what to do with), -1 when `sink` failed. */
int sbx_docker_proc_native(char *const *args, sbx_docker_sink sink, void *ctx);

#endif
