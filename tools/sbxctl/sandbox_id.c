/* Sandbox id derivation: the host library's rule-1 ids, so that sbxctl, the
 * manager and DeerFlow's provider name a thread's sandbox alike. */
#include <config.h>

#include "tools/sbxctl/sandbox_id.h"

sbx_status ctl_derive_sandbox_id(const char *user_id, const char *thread_id,
                                     char out[CTL_DERIVED_ID_SIZE], sbx_error *err)
{
    return sbx_sandbox_id_derive(user_id, thread_id, out, err);
}
