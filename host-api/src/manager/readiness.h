/* Rule 6: after a create, wait until an http(s) sandbox serves. */
#ifndef SBX_MANAGER_READINESS_H
#define SBX_MANAGER_READINESS_H

#include <sbx/manager.h>

/* Rule 6: for an http(s) sandbox_url, GET <url><ready_path> (each try at
 * most 5 s, one try per ready_interval) until a 200 or ready_timeout; the
 * environment's proxy is bypassed for loopback, private and cluster-local
 * hosts.  SBX_OK ready (or nothing to wait for); SBX_ERR_TRANSPORT naming
 * the sandbox, the URL and the last answer. */
sbx_status mgr_wait_ready(sbx_manager *m, const sbx_sandbox *sandbox, sbx_error *err);

#endif
