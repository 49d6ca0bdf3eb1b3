/*
 * A reference count split over per-thread slots (thread_slot.h), so that
 * threads taking and dropping references to one object (every get of one
 * sandbox) write no shared cache line.
 *
 * The count has one distinguished reference, the anchor, held by the
 * object's owner.  While the anchor is held the count cannot reach zero, so
 * adds and subs only touch the caller's slot and never need the total.
 * Retiring the anchor folds every slot into one central counter; from then
 * on adds and subs go to that counter and the last one reports zero.
 * Thread-safe; a reference may be dropped by a thread other than the one
 * that took it.
 */
#ifndef SBX_MANAGER_SPLIT_COUNT_H
#define SBX_MANAGER_SPLIT_COUNT_H

#include <stdatomic.h>

#include "host-api/src/manager/thread_slot.h"

typedef struct mgr_split_count {
    atomic_llong central;              /* the anchor until retired; then the total */
    char pad[MGR_CACHE_LINE - sizeof(atomic_llong)];
    mgr_padded_count slots[MGR_SLOT_COUNT];
} mgr_split_count;

/* Start with the anchor as the only reference. */
void mgr_split_count_init(mgr_split_count *count);

/* Take one more reference; the caller holds one (or the anchor). */
void mgr_split_count_add(mgr_split_count *count);

/* Drop one reference that is not the anchor; 1 when it was the last (the
 * caller then frees the object), else 0. */
int mgr_split_count_sub(mgr_split_count *count);

/* Drop the anchor (once); 1 when it was the last reference, else 0 and the
 * last sub will report it. */
int mgr_split_count_retire(mgr_split_count *count);

#endif
