/* The emulated provisioner's mount contract and which optional routes it
 * has.  Changed at run time by PUT /_emu/contract, restored by reset.
 * Thread-safe: every function may be called from any thread. */
#ifndef SBX_EMU_CONTRACT_H
#define SBX_EMU_CONTRACT_H

#include <pthread.h>

/* One snapshot of the settings. */
typedef struct sbx_emu_contract_settings {
    int version;               /* 0: legacy (capabilities omit the version) */
    int capabilities_route;    /* 0: /api/capabilities answers 404 */
    int reconciliation_route;  /* 0: the reconciliation route answers 404 */
} sbx_emu_contract_settings;

typedef struct sbx_emu_contract {
    pthread_mutex_t lock;
    sbx_emu_contract_settings current;
    sbx_emu_contract_settings startup;
} sbx_emu_contract;

/* Start with `startup` (also what sbx_emu_contract_reset returns to). */
void sbx_emu_contract_init(sbx_emu_contract *contract,
                           const sbx_emu_contract_settings *startup);

/* Release the lock's resources. */
void sbx_emu_contract_destroy(sbx_emu_contract *contract);

/* A consistent copy of the current settings. */
sbx_emu_contract_settings sbx_emu_contract_get(sbx_emu_contract *contract);

/* Replace the current settings (the caller merged its changes into a copy
 * from sbx_emu_contract_get). */
void sbx_emu_contract_set(sbx_emu_contract *contract,
                          const sbx_emu_contract_settings *settings);

/* Go back to the startup settings. */
void sbx_emu_contract_reset(sbx_emu_contract *contract);

#endif
