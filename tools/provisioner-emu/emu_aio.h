/* The emulator's AIO sandboxes (docs/emulator.md, "The AIO routes"): with
 * --aio every sandbox it creates is also a real sandbox of an in-process
 * `local` backend (its files under STATE_DIR/aio-sandboxes), and its
 * sandbox_url, http://NODE_HOST:PORT/s/ID, serves the AIO sandbox API
 * there (tools/aio-api/aio_server.h). */
#ifndef EMU_AIO_H
#define EMU_AIO_H

#include <stddef.h>

#include "tools/provisioner-common/prov_server.h"
#include "tools/provisioner-emu/emu_store.h"

/* The path prefix of the AIO routes: /s/ID/v1/... */
#define EMU_AIO_PREFIX "/s/"

typedef struct emu_aio emu_aio;

/* What --aio and its options ask.  Strings are borrowed and must outlive
 * the emu_aio. */
typedef struct emu_aio_options {
    const char *state_dir;      /* the sandboxes live under STATE_DIR/aio-sandboxes */
    const char *api_key;        /* NULL: none; else X-AIO-API-Key must carry it */
    const char *request_log;    /* NULL: none; else every AIO request is appended */
} emu_aio_options;

/* Open the local backend and the AIO server, or NULL with the reason in
 * `why` (`why_len` bytes). */
emu_aio *emu_aio_start(const emu_aio_options *options, char *why, size_t why_len);

/* Make `store`'s sandbox URLs SCHEME://HOST:PORT/s/ID (https when
 * `https`): the AIO routes of the emulator listening on PORT. */
void emu_aio_publish(emu_store *store, int https, const char *host, unsigned port);

/* Answer `req` when its path is under EMU_AIO_PREFIX (returns 1), for the
 * sandbox of `store` its path names: 404 when it has no Pod and Service,
 * else the AIO route on its local sandbox (made at its first request).
 * Returns 0 for other paths. */
int emu_aio_answer(emu_aio *aio, emu_store *store, const prov_request *req,
                   prov_reply *reply);

/* The sandbox whose Pod had uid `uid` was deleted: destroy its local
 * sandbox if one was made, and forget its shell sessions.  NULL `aio` is
 * accepted (no AIO routes).  Thread-safe. */
void emu_aio_sandbox_gone(emu_aio *aio, const char *uid);

/* Destroy every local sandbox made, close the backend, free.  NULL is
 * accepted. */
void emu_aio_stop(emu_aio *aio);

#endif
