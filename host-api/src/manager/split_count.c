/*
 * The split reference count (see split_count.h).
 *
 * A slot's value is its net count (it may be negative: a reference taken on
 * one thread can be dropped on another) until retirement swaps it for
 * RETIRED.  An add or sub that finds a retired slot redirects itself to the
 * central counter; the swap is one atomic exchange, so every operation is
 * counted exactly once, in its slot's folded value or centrally.
 */
#include <config.h>

#include "host-api/src/manager/split_count.h"

/* A retired slot, and the least value a retired slot can drift to: far from
 * any real count, and from each other, so that redirected operations (which
 * still move the slot) never make it look live again. */
#define RETIRED ((long long)1 << 61)
#define RETIRED_MIN ((long long)1 << 60)

/* Held centrally while slots are folded, so that references dropped
 * centrally meanwhile cannot reach zero before the fold is complete. */
#define FOLD_BIAS ((long long)1 << 50)

void mgr_split_count_init(mgr_split_count *count)
{
    atomic_init(&count->central, 1);
    for (unsigned i = 0; i < MGR_SLOT_COUNT; i++)
        atomic_init(&count->slots[i].value, 0);
}

void mgr_split_count_add(mgr_split_count *count)
{
    atomic_llong *slot = &count->slots[mgr_thread_slot()].value;
    if (atomic_fetch_add_explicit(slot, 1, memory_order_relaxed) >= RETIRED_MIN)
        atomic_fetch_add_explicit(&count->central, 1, memory_order_relaxed);
}

int mgr_split_count_sub(mgr_split_count *count)
{
    atomic_llong *slot = &count->slots[mgr_thread_slot()].value;
    /* Release: this holder's uses happen before whoever frees. */
    if (atomic_fetch_sub_explicit(slot, 1, memory_order_release) < RETIRED_MIN)
        return 0; /* the anchor is still held */
    return atomic_fetch_sub_explicit(&count->central, 1, memory_order_acq_rel) == 1;
}

int mgr_split_count_retire(mgr_split_count *count)
{
    atomic_fetch_add_explicit(&count->central, FOLD_BIAS, memory_order_relaxed);
    long long folded = 0;
    for (unsigned i = 0; i < MGR_SLOT_COUNT; i++)
        folded += atomic_exchange_explicit(&count->slots[i].value, RETIRED,
                                           memory_order_acq_rel);
    long long delta = folded - FOLD_BIAS - 1;
    return atomic_fetch_add_explicit(&count->central, delta, memory_order_acq_rel) + delta == 0;
}
