/*
 * Starting the reaper of an exec (local_reaper.h) as cheaply as the host
 * allows.  A fork copies the host's page tables, twice (the reaper forks
 * the command): the cost grows with the host's memory and made exec 2.5x
 * a bare posix_spawn.  For isolation=none on x86-64 the reaper is instead
 * a clone(CLONE_VM) of the host on a small stack of the caller's, and the
 * command a vfork-like clone of the reaper: no page table is copied, as in
 * posix_spawn.  Sharing the host's memory (its threads' TLS included),
 * both run only raw system calls, no libc function, and never allocate.
 * An isolated exec joining its sandbox's holder starts the same way: a
 * vfork-like launcher joins and clones the exec's init as the caller's
 * child (CLONE_PARENT), which clones the command and reports; so after
 * the command exits two processes wake, the init and the caller, as with
 * none (docs/local.md, "Isolation", says why the sandbox cannot reach the
 * host's memory through the init).  Elsewhere (an isolated
 * exec without a holder, other architectures, ThreadSanitizer builds,
 * whose runtime follows every call, and under valgrind) the reaper is
 * forked as local_reaper.c describes.
 */
#ifndef SBX_LOCAL_SPAWN_H
#define SBX_LOCAL_SPAWN_H

#include "plugin/local/local_reaper.h"

#include <sys/types.h>

/* Memory the reaper, and the command before its exec, run on (no field is
 * the caller's to use; local_spawn_init reads one); the caller keeps it,
 * on its own stack, until the reaper and the init were reaped. */
typedef struct local_spawn_stack {
    const local_reaper_plan *plan;
    pid_t init_pid;     /* an isolated exec's init, set by the kernel */
    int command_stage;  /* the step the command is at before its exec */
    int command_error;  /* the errno that step failed with */
    _Alignas(64) unsigned char command[8192];
    _Alignas(64) unsigned char reaper[8192];
    _Alignas(64) unsigned char init[8192];  /* an isolated exec's init */
} local_spawn_stack;

/* Start the reaper of `plan` as a child of the calling process (wait for
 * it with waitpid); its pid, or -1 with errno set.  `plan` and `stack`
 * must stay valid and untouched until the reaper, and the init
 * (local_spawn_init), were reaped. */
pid_t local_spawn_reaper(const local_reaper_plan *plan, local_spawn_stack *stack);

/* After local_spawn_reaper: the pid of the isolated exec's init, a child
 * of the calling thread, or 0 (none: the reaper reports as local_reaper.h
 * says).  The init writes the report and exits; its exit means every
 * process of the exec is gone.  Reap it with waitpid; SIGKILL ends the
 * exec (the report then is missing). */
pid_t local_spawn_init(const local_spawn_stack *stack);

#endif
