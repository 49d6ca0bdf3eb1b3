/* The str_replace_editor's undo history: a file's content before its last
 * edit through the route, per backend, sandbox incarnation and path, one
 * level deep (openhands' editor keeps more; one undo is what an agent
 * uses).  At most
 * AIO_EDIT_HISTORY_FILES files of at most AIO_EDIT_HISTORY_BYTES each,
 * the oldest entry making room.  Process-wide; safe on many threads. */
#ifndef AIO_EDIT_HISTORY_H
#define AIO_EDIT_HISTORY_H

#include <stddef.h>

#define AIO_EDIT_HISTORY_FILES 32
#define AIO_EDIT_HISTORY_BYTES (1024 * 1024)

/* Keep `content` (`len` bytes, copied) as `path`'s content before its
 * latest edit in the sandbox `sandbox_key` names (its id and incarnation:
 * a sandbox made again under the id has none of its predecessor's) of
 * `backend` (compared only).  A larger content, or no memory: any older
 * entry forgotten, nothing kept. */
void aio_edit_history_push(const void *backend, const char *sandbox_key, const char *path,
                           const char *content, size_t len);

/* Take the content kept for that path (malloc'd, NUL-terminated, *len
 * bytes; the caller frees) and forget it; NULL when none is kept. */
char *aio_edit_history_pop(const void *backend, const char *sandbox_key, const char *path,
                           size_t *len);

#endif /* AIO_EDIT_HISTORY_H */
