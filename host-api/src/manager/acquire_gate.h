/*
 * The acquire gate (sbx_manager.acquire_gate): acquires in progress, and
 * whether shutdown has closed the gate to new ones.
 */
#ifndef SBX_MANAGER_ACQUIRE_GATE_H
#define SBX_MANAGER_ACQUIRE_GATE_H

#include <sbx/manager.h>

#define MGR_GATE_CLOSED 1u
#define MGR_GATE_ACQUIRE 2u

/* Enter an acquire: 0, or -1 once shutdown has begun. */
int mgr_acquire_enter(sbx_manager *m);

/* Leave an acquire entered with mgr_acquire_enter. */
void mgr_acquire_leave(sbx_manager *m);

#endif
