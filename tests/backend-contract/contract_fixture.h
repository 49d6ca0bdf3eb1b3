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

/* A case's backend, its sandbox, and what the backend can do. */
typedef struct contract_case {
    contract_fixture f;
    char id[64];
    sbx_operations_info info;
} contract_case;

/* Open the suite's backend and read its operations_info; when it lacks
 * every bit of `needed`, print the skip ("cannot `what`"), close and
 * answer 0; else create sandbox `id` (fatal on failure) and answer 1. */
int contract_case_start(contract_case *c, const char *id, unsigned needed, const char *what);

/* Destroy the case's sandbox (asserting SBX_OK) and close the backend. */
void contract_case_finish(contract_case *c);

/* Whether the case's backend has `op`; prints the skip when it has not. */
int contract_case_has(const contract_case *c, unsigned op, const char *what);

/* The sandbox operations (ABI 1.3) against the current suite's backend. */
extern const CU_TestInfo operations_contract_cases[];

/* Live processes and streaming exec (ABI 1.4) against the current suite's
 * backend; a backend without SBX_OP_PROCESS skips them. */
extern const CU_TestInfo process_contract_cases[];

#endif
