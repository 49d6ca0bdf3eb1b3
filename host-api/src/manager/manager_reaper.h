/*
 * The manager's background work: reconciliation (rule 11), the idle reaper
 * (rule 10), lease renewal (rule 12) and the threads that run them.
 */
#ifndef SBX_MANAGER_REAPER_H
#define SBX_MANAGER_REAPER_H

#include <sbx/manager.h>

/* Rule 11: adopt orphans found running. */
void mgr_reconcile(sbx_manager *m);

/* Rule 10: reconcile, then destroy idle active and warm sandboxes. */
void mgr_reaper_pass(sbx_manager *m);

/* Rule 12: renew every lease held. */
void mgr_renewal_pass(sbx_manager *m);

/* Start both background threads; SBX_ERR_INTERNAL when one cannot start
 * (none is left running). */
sbx_status mgr_threads_start(sbx_manager *m, sbx_error *err);

/* Stop and join both threads (each join bounded; a thread that overruns is
 * joined again by mgr_threads_join). */
void mgr_threads_stop(sbx_manager *m);

/* Join threads mgr_threads_stop could not wait for. */
void mgr_threads_join(sbx_manager *m);

#endif
