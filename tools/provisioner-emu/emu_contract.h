/* The emulated provisioner's mount contract and which optional routes it
 * has.  Changed at run time by PUT /_emu/contract, restored by reset.
 * Thread-safe: every function may be called from any thread. */
#ifndef EMU_CONTRACT_H
#define EMU_CONTRACT_H

#include <pthread.h>

/* One snapshot of the settings. */
typedef struct emu_contract_settings {
    int version;               /* 0: legacy (capabilities omit the version) */
    int capabilities_route;    /* 0: /api/capabilities answers 404 */
    int reconciliation_route;  /* 0: the reconciliation route answers 404 */
} emu_contract_settings;

typedef struct emu_contract {
    pthread_mutex_t lock;
    emu_contract_settings current;
    emu_contract_settings startup;
} emu_contract;

/* Start with `startup` (also what emu_contract_reset returns to). */
void emu_contract_init(emu_contract *contract,
                           const emu_contract_settings *startup);

/* Release the lock's resources. */
void emu_contract_destroy(emu_contract *contract);

/* A consistent copy of the current settings. */
emu_contract_settings emu_contract_get(emu_contract *contract);

/* Replace the current settings (the caller merged its changes into a copy
 * from emu_contract_get). */
void emu_contract_set(emu_contract *contract,
                          const emu_contract_settings *settings);

/* Go back to the startup settings. */
void emu_contract_reset(emu_contract *contract);

#endif
