/* sbx-provisiond's expiry reaper: a thread that destroys every sandbox
 * whose ownership record says it is past its expiry (the create's
 * expires_at), whatever its backend honours, so that a sandbox whose
 * client died is gone at its deadline.  It looks once per
 * PROVD_EXPIRY_TICK_MS; a get of an expired sandbox destroys it at once
 * and a list leaves it out, so no client sees one in between. */
#ifndef SBX_PROVD_EXPIRY_H
#define SBX_PROVD_EXPIRY_H

#include <stddef.h>

#include "tools/provisiond/provd_service.h"

/* How often the reaper looks for expired sandboxes. */
#define PROVD_EXPIRY_TICK_MS 500

typedef struct provd_expiry provd_expiry;

/* Start the reaper over `svc` (which must outlive it); each sandbox it
 * destroys, or fails to, is one line through `log(log_ctx, line)`.
 * Returns NULL with the reason in `why` when the thread cannot start. */
provd_expiry *provd_expiry_start(provd_service *svc, void (*log)(void *, const char *),
                                 void *log_ctx, char *why, size_t why_len);

/* Stop the reaper (waiting for a destroy in progress) and free it.  NULL
 * is accepted. */
void provd_expiry_stop(provd_expiry *reaper);

#endif
