/* The backend under test in the contract suites (test_backend_contract.c
 * opens it, per suite), shared with the operations cases. */
#ifndef SBX_TEST_CONTRACT_FIXTURE_H
#define SBX_TEST_CONTRACT_FIXTURE_H

#include <sbx/host.h>

#include <CUnit/CUnit.h>

/* A fresh host and backend for one case. */
typedef struct contract_fixture {
    sbx_host *host;
    sbx_backend *backend;
} contract_fixture;

/* Open the current suite's backend (fatal assertion on failure). */
void contract_open(contract_fixture *f);

/* Close what contract_open opened. */
void contract_close(contract_fixture *f);

/* The sandbox operations (ABI 1.3) against the current suite's backend. */
extern const CU_TestInfo operations_contract_cases[];

/* Live processes and streaming exec (ABI 1.4) against the current suite's
 * backend; a backend without SBX_OP_PROCESS skips them. */
extern const CU_TestInfo process_contract_cases[];

#endif
