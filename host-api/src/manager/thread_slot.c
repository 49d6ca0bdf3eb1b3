/*
 * Per-thread slot numbers (see thread_slot.h).
 */
#include <config.h>

#include "host-api/src/manager/thread_slot.h"

#include <stdatomic.h>

static atomic_uint next_slot;

_Thread_local unsigned mgr_thread_slot_plus_one;

unsigned mgr_thread_slot_assign(void)
{
    unsigned slot = atomic_fetch_add_explicit(&next_slot, 1, memory_order_relaxed) % MGR_SLOT_COUNT;
    mgr_thread_slot_plus_one = slot + 1;
    return slot;
}
