/* Everything one running emulator shares between its request threads.
 * Built once by main before the server starts; the pointers never change
 * afterwards, and each part does its own locking. */
#ifndef EMU_CONTEXT_H
#define EMU_CONTEXT_H

#include "tools/provisioner-emu/emu_aio.h"
#include "tools/provisioner-emu/emu_contract.h"
#include "tools/provisioner-emu/emu_faults.h"
#include "tools/provisioner-emu/emu_request_log.h"
#include "tools/provisioner-emu/emu_store.h"
#include "tools/provisioner-emu/emu_uid.h"

typedef struct emu_context {
    const char *api_key;        /* NULL: no key configured */
    int fail_closed;            /* no key configured: every /api/ request is 401 */
    const char *state_dir;      /* extra mounts' host paths must lie under it */
    int verbose;                /* log one line per request to stderr */
    emu_contract contract;
    emu_store *store;
    emu_faults *faults;
    emu_request_log *log;
    emu_aio *aio;               /* NULL: no AIO routes (no --aio) */
    char namespace_uid[EMU_UID_LEN + 1];  /* fixed for the process's life */
} emu_context;

#endif
