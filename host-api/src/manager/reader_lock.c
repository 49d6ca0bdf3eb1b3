/*
 * The per-thread-slot readers-writer lock (see reader_lock.h).
 *
 * Why it is correct: a reader announces itself (slot increment) and then
 * looks for a writer; a writer announces itself (flag) and then looks for
 * readers.  Both steps are sequentially consistent, so at least one of the
 * two sees the other: either the reader steps back, or the writer waits for
 * it.  The reader's release decrement pairs with the writer's load of the
 * slot, and the writer's release of the flag with the next reader's load,
 * which orders the critical sections.
 */
#include <config.h>

#include "host-api/src/manager/reader_lock.h"

#include <sched.h>

int mgr_reader_lock_init(mgr_reader_lock *lock)
{
    atomic_init(&lock->writer, 0);
    for (unsigned i = 0; i < MGR_SLOT_COUNT; i++)
        atomic_init(&lock->readers[i].value, 0);
    return pthread_mutex_init(&lock->writers, NULL);
}

void mgr_reader_lock_destroy(mgr_reader_lock *lock)
{
    pthread_mutex_destroy(&lock->writers);
}

void mgr_read_lock(mgr_reader_lock *lock)
{
    atomic_llong *mine = &lock->readers[mgr_thread_slot()].value;
    for (;;) {
        atomic_fetch_add(mine, 1);
        if (!atomic_load(&lock->writer))
            return;
        atomic_fetch_sub_explicit(mine, 1, memory_order_release);
        /* Wait for the writer without spinning: it holds `writers`. */
        pthread_mutex_lock(&lock->writers);
        pthread_mutex_unlock(&lock->writers);
    }
}

void mgr_read_unlock(mgr_reader_lock *lock)
{
    atomic_fetch_sub_explicit(&lock->readers[mgr_thread_slot()].value, 1,
                              memory_order_release);
}

void mgr_write_lock(mgr_reader_lock *lock)
{
    pthread_mutex_lock(&lock->writers);
    atomic_store(&lock->writer, 1);
    /* Read holds never span I/O (manager_internal.h), so this wait is
     * bounded by the longest in-memory read section. */
    for (unsigned i = 0; i < MGR_SLOT_COUNT; i++)
        while (atomic_load(&lock->readers[i].value) != 0)
            sched_yield();
}

void mgr_write_unlock(mgr_reader_lock *lock)
{
    atomic_store_explicit(&lock->writer, 0, memory_order_release);
    pthread_mutex_unlock(&lock->writers);
}
