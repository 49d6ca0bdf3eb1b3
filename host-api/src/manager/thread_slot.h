/*
 * Per-thread slots: a small fixed set of cache-line-sized counters that
 * threads spread their writes over, so that threads reading one manager (the
 * get path) never write the same cache line.  Used by reader_lock and
 * split_count.
 */
#ifndef SBX_MANAGER_THREAD_SLOT_H
#define SBX_MANAGER_THREAD_SLOT_H

#include <stdatomic.h>

/* Slots per counter set: more threads than this share slots, which stays
 * correct (slots are counters, not owners) and only costs contention. */
#define MGR_SLOT_COUNT 16

/* The unit of false sharing on the machines we target. */
#define MGR_CACHE_LINE 64

/* 0 until this thread asks for a slot, then the slot plus one.  Initial-exec
 * TLS: get takes its slot four times per call, and the general-dynamic
 * model would make each a call into the dynamic linker. */
extern _Thread_local unsigned mgr_thread_slot_plus_one
#if defined(__GNUC__)
    __attribute__((tls_model("initial-exec")))
#endif
    ;

/* Hand this thread its slot (the first call's slow path). */
unsigned mgr_thread_slot_assign(void);

/* This thread's slot in [0, MGR_SLOT_COUNT): handed out round robin at the
 * thread's first call, then fixed for its life.  Thread-safe, no system call. */
static inline unsigned mgr_thread_slot(void)
{
    unsigned plus_one = mgr_thread_slot_plus_one;
    return plus_one != 0 ? plus_one - 1 : mgr_thread_slot_assign();
}

/* A counter alone in its cache line whatever the alignment of the memory
 * around it (malloc gives 16 bytes): 64 bytes apart, a naturally aligned
 * 8-byte counter can never share a line with the next one. */
typedef struct mgr_padded_count {
    atomic_llong value;
    char pad[MGR_CACHE_LINE - sizeof(atomic_llong)];
} mgr_padded_count;

#endif
