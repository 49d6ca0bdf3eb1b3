/* Contract settings behind one mutex, so a reader never sees half a change. */
#include <config.h>

#include "tools/provisioner-emu/emu_contract.h"

void sbx_emu_contract_init(sbx_emu_contract *contract,
                           const sbx_emu_contract_settings *startup)
{
    pthread_mutex_init(&contract->lock, NULL);
    contract->startup = *startup;
    contract->current = *startup;
}

void sbx_emu_contract_destroy(sbx_emu_contract *contract)
{
    pthread_mutex_destroy(&contract->lock);
}

sbx_emu_contract_settings sbx_emu_contract_get(sbx_emu_contract *contract)
{
    pthread_mutex_lock(&contract->lock);
    sbx_emu_contract_settings copy = contract->current;
    pthread_mutex_unlock(&contract->lock);
    return copy;
}

void sbx_emu_contract_set(sbx_emu_contract *contract,
                          const sbx_emu_contract_settings *settings)
{
    pthread_mutex_lock(&contract->lock);
    contract->current = *settings;
    pthread_mutex_unlock(&contract->lock);
}

void sbx_emu_contract_reset(sbx_emu_contract *contract)
{
    pthread_mutex_lock(&contract->lock);
    contract->current = contract->startup;
    pthread_mutex_unlock(&contract->lock);
}
