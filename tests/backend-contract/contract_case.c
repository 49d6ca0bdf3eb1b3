/* One contract case's backend and sandbox (see contract_fixture.h). */
#include <config.h>

#include "tests/backend-contract/contract_fixture.h"
#include "tests/support/backend_calls.h"

#include <stdio.h>

int contract_case_has(const contract_case *c, unsigned op, const char *what)
{
    if ((c->info.operations & op) != 0)
        return 1;
    fprintf(stderr, "  (skipped: backend '%s' cannot %s)\n",
            sbx_backend_descriptor_of(c->f.backend)->name, what);
    return 0;
}

int contract_case_start(contract_case *c, const char *id, unsigned needed, const char *what)
{
    contract_open(&c->f);
    snprintf(c->id, sizeof c->id, "%s", id);
    sbx_error err;
    c->info.struct_size = sizeof c->info;
    CU_ASSERT_EQUAL_FATAL(sbx_backend_operations_info(c->f.backend, &c->info, &err), SBX_OK);
    if (!contract_case_has(c, needed, what)) {
        contract_close(&c->f);
        return 0;
    }
    sbx_sandbox *sb = sbx_test_create(c->f.backend, id, NULL, NULL, &err);
    if (sb == NULL)
        fprintf(stderr, "create %s: %s\n", id, err.message);
    CU_ASSERT_PTR_NOT_NULL_FATAL(sb);
    sbx_backend_free_sandboxes(c->f.backend, sb, 1);
    return 1;
}

void contract_case_finish(contract_case *c)
{
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(c->f.backend, c->id, &err), SBX_OK);
    contract_close(&c->f);
}
