/* Contract settings behind one mutex, so a reader never sees half a change. */
#include <config.h>

#include "tools/provisioner-emu/emu_contract.h"

void emu_contract_init(emu_contract *contract,
                           const emu_contract_settings *startup)
{
    pthread_mutex_init(&contract->lock, NULL);
    contract->startup = *startup;
    contract->current = *startup;
}

void emu_contract_destroy(emu_contract *contract)
{
    pthread_mutex_destroy(&contract->lock);
}

emu_contract_settings emu_contract_get(emu_contract *contract)
{
    pthread_mutex_lock(&contract->lock);
    emu_contract_settings copy = contract->current;
    pthread_mutex_unlock(&contract->lock);
    return copy;
}

void emu_contract_set(emu_contract *contract,
                          const emu_contract_settings *settings)
{
    pthread_mutex_lock(&contract->lock);
    contract->current = *settings;
    pthread_mutex_unlock(&contract->lock);
}

void emu_contract_reset(emu_contract *contract)
{
    pthread_mutex_lock(&contract->lock);
    contract->current = contract->startup;
    pthread_mutex_unlock(&contract->lock);
}
