/* The AIO bash sessions of sbx-provisiond's sandboxes (POST
 * /v1/bash/sessions/create) kept in its --state-dir, so that a restart
 * finds the sessions whose commands (backend processes) outlived it.
 * One JSON file per sandbox holding sessions, DIR/ID.bash, replaced whole
 * at each change (provd_state_file.h) and removed when it holds none.
 * One file per sandbox rather than one for all: a change writes its own
 * sandbox's sessions only (at most 64, a few KiB), and a damaged file
 * costs one sandbox's sessions, not every sandbox's.  Thread-safe (the
 * AIO server's table makes one save at a time). */
#ifndef SBX_PROVD_BASH_STORE_H
#define SBX_PROVD_BASH_STORE_H

#include "tools/aio-api/aio_server.h"

typedef struct provd_bash_store provd_bash_store;

/* A store in the existing directory `dir` (copied), telling `warn(ctx,
 * line)` of each file it cannot load, save or remove; NULL when memory
 * ran out. */
provd_bash_store *provd_bash_store_new(const char *dir, void (*warn)(void *, const char *),
                                       void *ctx);

/* Free the store (its files stay).  NULL is accepted. */
void provd_bash_store_free(provd_bash_store *store);

/* The hook an AIO server saves its bash sessions through (owned by
 * `store`, which must outlive the server). */
const aio_bash_store *provd_bash_store_hook(provd_bash_store *store);

/* Put the kept sessions back into `server`.  For each file,
 * `exists(ctx, sandbox_id)` says whether its sandbox is still there: 1
 * loads it, 0 removes the file (the sandbox is gone), -1 leaves it
 * unloaded (it cannot tell).  A file that is not a valid one (a link, a
 * FIFO, too large, not the JSON of sessions) is named through the warn
 * callback and skipped, never loaded in part. */
void provd_bash_store_load(provd_bash_store *store, aio_server *server,
                           int (*exists)(void *, const char *), void *ctx);

#endif
