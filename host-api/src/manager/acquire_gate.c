/* The acquire gate (see acquire_gate.h). */
#include <config.h>

#include "host-api/src/manager/acquire_gate.h"

#include "host-api/src/manager/manager_internal.h"

/* The gate counts acquires in progress in steps of MGR_GATE_ACQUIRE and has
 * MGR_GATE_CLOSED set once shutdown began; one atomic word, so that an
 * acquire enters and leaves without a lock and shutdown misses none.  The
 * last acquire to leave a closed gate steps out under ops_lock, which
 * shutdown holds from each look at the gate to its wait: the wake-up cannot
 * fall between the two, and shutdown cannot return (and free the manager)
 * while that acquire still touches it. */
int mgr_acquire_enter(sbx_manager *m)
{
    if (!(atomic_fetch_add(&m->acquire_gate, MGR_GATE_ACQUIRE) & MGR_GATE_CLOSED))
        return 0;
    mgr_acquire_leave(m);
    return -1;
}

void mgr_acquire_leave(sbx_manager *m)
{
    unsigned gate = atomic_load(&m->acquire_gate);
    for (;;) {
        if (gate == (MGR_GATE_CLOSED | MGR_GATE_ACQUIRE)) {
            pthread_mutex_lock(&m->ops_lock);
            atomic_fetch_sub(&m->acquire_gate, MGR_GATE_ACQUIRE);
            pthread_cond_broadcast(&m->ops_idle);
            pthread_mutex_unlock(&m->ops_lock);
            return;
        }
        if (atomic_compare_exchange_weak(&m->acquire_gate, &gate, gate - MGR_GATE_ACQUIRE))
            return;
    }
}
