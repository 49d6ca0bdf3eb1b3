/* Opening backend instances and calling their operations: every call checks
 * that the backend has the operation, so that a module built for an older
 * minor reports "unsupported" instead of jumping through a missing slot. */
#include <config.h>

#include "host-api/src/host_internal.h"

#include "common/record_chain.h"

#include <stdio.h>
#include <stdlib.h>

sbx_status host_unsupported(const sbx_backend *b, const char *op, sbx_error *err)
{
    return sbx_error_set(err, SBX_ERR_UNSUPPORTED,
                         "backend '%s' (ABI %u.%u) does not support %s",
                         b->descriptor->name, (unsigned)b->descriptor->abi_major,
                         (unsigned)b->descriptor->abi_minor, op);
}

sbx_status host_checked(const sbx_backend *b, sbx_status st, const char *op, sbx_error *err)
{
    if (st != SBX_OK && err->message[0] == '\0')
        sbx_error_set(err, st, "backend '%s': %s failed (%s)", b->descriptor->name, op,
                      sbx_status_name(st));
    if (st != SBX_OK)
        err->kind = st;
    return st;
}

sbx_status host_malformed(const sbx_backend *b, const char *op, const char *what,
                          sbx_error *err)
{
    return sbx_error_set(err, SBX_ERR_INTERNAL, "backend '%s': %s returned %s",
                         b->descriptor->name, op, what);
}

sbx_status host_check_request(const char *op, const char *init, size_t size, size_t min_size,
                              sbx_error *err)
{
    if (size >= min_size)
        return SBX_OK;
    return sbx_error_set(err, SBX_ERR_USAGE,
                         "%s: a request made with %s is required (%zu bytes, at least %zu)",
                         op, init, size, min_size);
}

/* The options as backend.h promises them to open(): an array when the
 * count is not 0, every key and value a string. */
static sbx_status check_options(const char *name, const sbx_option *options, size_t count,
                                sbx_error *err)
{
    if (count > 0 && options == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "opening backend '%s': %zu options but no array",
                             name, count);
    for (size_t i = 0; i < count; i++)
        if (options[i].key == NULL || options[i].value == NULL)
            return sbx_error_set(err, SBX_ERR_CONFIG,
                                 "opening backend '%s': option #%zu has no key or no value",
                                 name, i);
    return SBX_OK;
}

sbx_status sbx_backend_open(sbx_host *host, const char *name, const sbx_option *options,
                            size_t option_count, sbx_backend **out, sbx_error *err)
{
    *out = NULL;
    const sbx_backend_descriptor *d;
    sbx_status st = check_options(name, options, option_count, err);
    if (st == SBX_OK)
        st = sbx_host_load(host, name, &d, err);
    if (st != SBX_OK)
        return st;
    sbx_backend *b = calloc(1, sizeof *b);
    if (b == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory opening backend '%s'", name);
    b->host = host;
    b->descriptor = d;
    sbx_error_clear(err);
    st = host_checked(b, d->open(options, option_count, &host->services, &b->instance, err), "open", err);
    if (st != SBX_OK) {
        free(b);
        return st;
    }
    *out = b;
    return SBX_OK;
}

void sbx_backend_close(sbx_backend *backend)
{
    if (backend == NULL)
        return;
    backend->descriptor->close(backend->instance);
    free(backend);
}

const sbx_backend_descriptor *sbx_backend_descriptor_of(const sbx_backend *backend)
{
    return backend->descriptor;
}

/* Call operation `op` with the instance and the given arguments. */
#define CALL_OP(b, op, err, ...)                                              \
    do {                                                                      \
        sbx_error_clear(err);                                                 \
        if (!HOST_HAS_OP((b)->descriptor, op))                                \
            return host_unsupported((b), #op, (err));                         \
        return host_checked((b), (b)->descriptor->op((b)->instance, __VA_ARGS__), \
                            #op, (err));                                      \
    } while (0)

sbx_status sbx_backend_create(sbx_backend *b, const sbx_create_request *request,
                              sbx_sandbox **out, sbx_error *err)
{
    *out = NULL;
    sbx_error_clear(err);
    sbx_status st = host_check_create_request(b, request, err);
    if (st != SBX_OK)
        return st;
    CALL_OP(b, create, err, request, out, err);
}

sbx_status sbx_backend_destroy(sbx_backend *b, const char *sandbox_id, sbx_error *err)
{
    CALL_OP(b, destroy, err, sandbox_id, err);
}

sbx_status sbx_backend_is_alive(sbx_backend *b, const char *sandbox_id, int *alive,
                                sbx_error *err)
{
    *alive = 0;
    CALL_OP(b, is_alive, err, sandbox_id, alive, err);
}

sbx_status sbx_backend_discover(sbx_backend *b, const char *sandbox_id, sbx_sandbox **out,
                                sbx_error *err)
{
    *out = NULL;
    CALL_OP(b, discover, err, sandbox_id, out, err);
}

sbx_status sbx_backend_list_running(sbx_backend *b, sbx_sandbox **out, size_t *count,
                                    sbx_error *err)
{
    *out = NULL;
    *count = 0;
    CALL_OP(b, list_running, err, out, count, err);
}

sbx_status sbx_backend_capabilities(sbx_backend *b, sbx_capabilities *out, sbx_error *err)
{
    out->mount_contract_version = SBX_CONTRACT_NONE;
    out->known = 0;
    CALL_OP(b, capabilities, err, out, err);
}

sbx_status sbx_backend_reconcile(sbx_backend *b, const char *sandbox_id,
                                 sbx_reconciliation *out, sbx_error *err)
{
    *out = (sbx_reconciliation){.status = SBX_RECONCILE_UNKNOWN};
    CALL_OP(b, reconcile, err, sandbox_id, out, err);
}

void sbx_backend_free_sandboxes(sbx_backend *b, sbx_sandbox *sandboxes, size_t count)
{
    if (sandboxes != NULL)
        b->descriptor->free_sandboxes(sandboxes, count);
}

/* ---------------------------------------------------------------- records */

/* A backend with free_records answers records itself (ABI 1.2). */
static int answers_records(const sbx_backend_descriptor *d)
{
    return HOST_HAS_OP(d, free_records);
}

/* Records the host builds from a backend's 1.1 array, which is released
 * here in any case. */
static sbx_status records_of_sandboxes(sbx_backend *b, sbx_sandbox *sandboxes, size_t count,
                                       sbx_sandbox_record **out, size_t *made, sbx_error *err)
{
    common_record_list list = { NULL, NULL, 0 };
    sbx_status st = SBX_OK;
    for (size_t i = 0; i < count && st == SBX_OK; i++) {
        common_record_facts facts;
        sbx_sandbox_record *record = NULL;
        common_record_facts_of_sandbox(&sandboxes[i], &facts);
        st = common_record_new(&facts, &record, err);
        if (st == SBX_OK)
            common_record_list_push(&list, record);
    }
    sbx_backend_free_sandboxes(b, sandboxes, count);
    size_t ignored;
    return common_record_list_finish(&list, st, out, made ? made : &ignored);
}

/* A chain a backend handed over must hold `count` records, each with at
 * least the members of 1.2 and an id and URL: else it is released and the
 * call fails (a reader would read past a record). */
static sbx_status checked_chain(sbx_backend *b, sbx_status st, const char *op,
                                sbx_sandbox_record **out, size_t count, sbx_error *err)
{
    if (st != SBX_OK)
        return st;
    size_t seen = 0;
    const char *problem = NULL;
    size_t size = 0;
    for (const sbx_sandbox_record *r = *out; r != NULL && problem == NULL; r = r->next, seen++) {
        if (r->struct_size < SBX_RECORD_SIZE_1_2) {
            problem = "a record smaller than ABI 1.2's";
            size = r->struct_size;
        } else if (r->sandbox.sandbox_id == NULL || r->sandbox.sandbox_url == NULL) {
            problem = "a record without its id or URL";
        }
    }
    if (problem == NULL && seen != count)
        problem = "a chain whose length differs from its count";
    if (problem == NULL)
        return SBX_OK;
    b->descriptor->free_records(*out);
    *out = NULL;
    if (size != 0)
        return sbx_error_set(err, SBX_ERR_INTERNAL,
                             "backend '%s': %s returned %s (%zu bytes, not %zu)",
                             b->descriptor->name, op, problem, size,
                             (size_t)SBX_RECORD_SIZE_1_2);
    return sbx_error_set(err, SBX_ERR_INTERNAL, "backend '%s': %s returned %s",
                         b->descriptor->name, op, problem);
}

sbx_status sbx_backend_create_record(sbx_backend *b, const sbx_create_request *request,
                                     sbx_sandbox_record **out, sbx_error *err)
{
    *out = NULL;
    const sbx_backend_descriptor *d = b->descriptor;
    if (!answers_records(d)) {
        sbx_sandbox *sandbox = NULL;
        sbx_status st = sbx_backend_create(b, request, &sandbox, err);
        if (st != SBX_OK)
            return st;
        /* The sandbox exists now; its array goes with the record attempt. */
        char id[128];
        snprintf(id, sizeof id, "%s",
                 sandbox != NULL && sandbox->sandbox_id != NULL ? sandbox->sandbox_id
                 : request->sandbox_id != NULL                 ? request->sandbox_id
                                                               : "(unnamed)");
        st = records_of_sandboxes(b, sandbox, 1, out, NULL, err);
        return st == SBX_OK ? st : common_answer_left_for_destroy(id, err);
    }
    sbx_error_clear(err);
    if (!HOST_HAS_OP(d, create_record))
        return host_unsupported(b, "create_record", err);
    sbx_status checked = host_check_create_request(b, request, err);
    if (checked != SBX_OK)
        return checked;
    sbx_status st = host_checked(b, d->create_record(b->instance, request, out, err), "create_record",
                            err);
    return checked_chain(b, st, "create_record", out, 1, err);
}

sbx_status sbx_backend_discover_record(sbx_backend *b, const char *sandbox_id,
                                       sbx_sandbox_record **out, sbx_error *err)
{
    *out = NULL;
    const sbx_backend_descriptor *d = b->descriptor;
    if (!answers_records(d)) {
        sbx_sandbox *sandbox = NULL;
        sbx_status st = sbx_backend_discover(b, sandbox_id, &sandbox, err);
        return st == SBX_OK ? records_of_sandboxes(b, sandbox, 1, out, NULL, err) : st;
    }
    sbx_error_clear(err);
    if (!HOST_HAS_OP(d, discover_record))
        return host_unsupported(b, "discover_record", err);
    sbx_status st = host_checked(b, d->discover_record(b->instance, sandbox_id, out, err),
                            "discover_record", err);
    return checked_chain(b, st, "discover_record", out, 1, err);
}

sbx_status sbx_backend_list_records(sbx_backend *b, sbx_sandbox_record **out, size_t *count,
                                    sbx_error *err)
{
    *out = NULL;
    *count = 0;
    const sbx_backend_descriptor *d = b->descriptor;
    if (!answers_records(d)) {
        sbx_sandbox *sandboxes = NULL;
        size_t n = 0;
        sbx_status st = sbx_backend_list_running(b, &sandboxes, &n, err);
        return st == SBX_OK ? records_of_sandboxes(b, sandboxes, n, out, count, err) : st;
    }
    sbx_error_clear(err);
    if (!HOST_HAS_OP(d, list_records))
        return host_unsupported(b, "list_records", err);
    sbx_status st = host_checked(b, d->list_records(b->instance, out, count, err), "list_records",
                            err);
    st = checked_chain(b, st, "list_records", out, *count, err);
    if (st != SBX_OK)
        *count = 0;
    return st;
}

void sbx_backend_free_records(sbx_backend *b, sbx_sandbox_record *records)
{
    if (records == NULL)
        return;
    if (answers_records(b->descriptor))
        b->descriptor->free_records(records);
    else
        common_records_free(records);  /* the host built them */
}

void sbx_backend_clear_reconciliation(sbx_backend *b, sbx_reconciliation *result)
{
    if (HOST_HAS_OP(b->descriptor, clear_reconciliation))
        b->descriptor->clear_reconciliation(result);
}

int sbx_backend_allows_thread_data_mounts(sbx_backend *b, int host_enabled)
{
    if (!host_enabled)
        return 0;
    sbx_capabilities caps;
    sbx_error err;
    if (sbx_backend_capabilities(b, &caps, &err) != SBX_OK)
        return 0;
    return caps.known && caps.mount_contract_version >= 2;
}
