/*
 * A readers-writer lock whose read side writes only the calling thread's
 * slot (thread_slot.h): readers on different slots share no written cache
 * line, so the manager's get path scales with threads, where a
 * pthread_rwlock_t makes every reader write the lock word.
 *
 * Writers are rare (acquire, release, reaper) and pay for it: a writer
 * raises a flag, then waits (yielding) until every slot drains; readers that
 * see the flag step back and queue behind the writer, so writers are
 * preferred and never starved.  Not recursive: a thread holding the lock
 * must not take it again.  A read hold must be released by the thread that
 * took it.
 */
#ifndef SBX_MANAGER_READER_LOCK_H
#define SBX_MANAGER_READER_LOCK_H

#include <pthread.h>
#include <stdatomic.h>

#include "host-api/src/manager/thread_slot.h"

typedef struct mgr_reader_lock {
    atomic_int writer;                 /* 1 while a writer holds or waits */
    char pad[MGR_CACHE_LINE - sizeof(atomic_int)];
    mgr_padded_count readers[MGR_SLOT_COUNT];
    pthread_mutex_t writers;           /* serialises writers; readers queue on it */
} mgr_reader_lock;

/* Initialise an unlocked lock; 0, or an errno value from the mutex. */
int mgr_reader_lock_init(mgr_reader_lock *lock);

/* Free what init made; the lock must be unlocked. */
void mgr_reader_lock_destroy(mgr_reader_lock *lock);

/* Take / release a read hold (shared with other readers). */
void mgr_read_lock(mgr_reader_lock *lock);
void mgr_read_unlock(mgr_reader_lock *lock);

/* Take / release the write hold (exclusive). */
void mgr_write_lock(mgr_reader_lock *lock);
void mgr_write_unlock(mgr_reader_lock *lock);

#endif
