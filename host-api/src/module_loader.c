/* Loading one backend module file and validating what it declares.  Nothing
 * in a module is called but its entry point until its descriptor passed
 * host_descriptor_validate. */
#include <config.h>

#include "host-api/src/module_loader.h"

#include <sbx/error.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define HOST_ABI_TEXT_FMT "host ABI %d.%d"

/* True when the descriptor holds operation `op` and sets it. */
#define SET(op) (SBX_DESCRIPTOR_HAS(d, op) && d->op != NULL)

/* A record operation (ABI 1.2) whose records nobody could release. */
static int makes_records_without_release(const sbx_backend_descriptor *d)
{
    return (SET(create_record) || SET(discover_record) || SET(list_records)) &&
           !SET(free_records);
}

/* What an ABI 1.4 operation needs beside it, or NULL: a process without
 * its start or its frees, a file request without its result's free. */
static const char *process_operation_lacks(const sbx_backend_descriptor *d)
{
    int any_process = SET(process_start) || SET(process_read) || SET(process_write) ||
                      SET(process_signal) || SET(process_resize) || SET(process_wait) ||
                      SET(process_list) || SET(process_forget);
    if (any_process && !SET(process_start))
        return "the process_start operation its process operations need";
    if (any_process && !(SET(free_processes) && SET(free_process_output)))
        return "the free_processes and free_process_output operations processes need";
    if (SET(read_file_req) && !SET(free_file_content))
        return "the free_file_content operation read_file_req needs";
    if (SET(list_dir_req) && !SET(free_listing))
        return "the free_listing operation list_dir_req needs";
    if ((any_process || SET(read_file_req) || SET(write_file_req) || SET(list_dir_req) ||
         SET(remove_path_req)) && !SET(operations_info))
        return "the operations_info operation its 1.4 operations need";
    return NULL;
}

/* What an ABI 1.3 sandbox operation needs beside it, or NULL when the
 * descriptor has it: a result nobody could release, or limits a host
 * cannot read before it calls (then what a 1.4 operation needs). */
static const char *operation_lacks(const sbx_backend_descriptor *d)
{
    if (SET(exec) && !SET(free_exec_result))
        return "the free_exec_result operation exec needs";
    if (SET(read_file) && !SET(free_file_content))
        return "the free_file_content operation read_file needs";
    if (SET(list_dir) && !SET(free_listing))
        return "the free_listing operation list_dir needs";
    if ((SET(exec) || SET(read_file) || SET(write_file) || SET(list_dir) ||
         SET(remove_path)) && !SET(operations_info))
        return "the operations_info operation its sandbox operations need";
    return process_operation_lacks(d);
}
#undef SET

sbx_status host_descriptor_validate(const sbx_backend_descriptor *d, const char *origin,
                                   const char *path, sbx_error *err)
{
    if (d == NULL)
        return sbx_error_set(err, SBX_ERR_LOAD,
                             "cannot load backend %s%s: its entry point returned no descriptor (" HOST_ABI_TEXT_FMT ")",
                             origin, path, SBX_BACKEND_ABI_MAJOR, SBX_BACKEND_ABI_MINOR);
    /* The header (versions and size) has the same layout in every ABI, so
     * reading it is safe before the version is known. */
    if (d->abi_major != SBX_BACKEND_ABI_MAJOR)
        return sbx_error_set(err, SBX_ERR_LOAD,
                             "cannot load backend %s%s: module ABI %u.%u, " HOST_ABI_TEXT_FMT " (major versions differ)",
                             origin, path, (unsigned)d->abi_major, (unsigned)d->abi_minor,
                             SBX_BACKEND_ABI_MAJOR, SBX_BACKEND_ABI_MINOR);
    if (d->struct_size < SBX_DESCRIPTOR_SIZE_1_0)
        return sbx_error_set(err, SBX_ERR_LOAD,
                             "cannot load backend %s%s: module ABI %u.%u, " HOST_ABI_TEXT_FMT
                             " (descriptor of %zu bytes is smaller than the %zu bytes of ABI %d.0)",
                             origin, path, (unsigned)d->abi_major, (unsigned)d->abi_minor,
                             SBX_BACKEND_ABI_MAJOR, SBX_BACKEND_ABI_MINOR,
                             d->struct_size, (size_t)SBX_DESCRIPTOR_SIZE_1_0, SBX_BACKEND_ABI_MAJOR);
    const char *missing = NULL;
    if (d->name == NULL || d->name[0] == '\0')
        missing = "a name";
    else if (d->version == NULL)
        missing = "a version";
    else if (d->open == NULL)
        missing = "the open operation";
    else if (d->close == NULL)
        missing = "the close operation";
    else if (d->free_sandboxes == NULL)
        missing = "the free_sandboxes operation";
    else if (makes_records_without_release(d))
        missing = "the free_records operation its record operations need";
    else
        missing = operation_lacks(d);
    if (missing != NULL)
        return sbx_error_set(err, SBX_ERR_LOAD,
                             "cannot load backend %s%s: module ABI %u.%u, " HOST_ABI_TEXT_FMT " (descriptor lacks %s)",
                             origin, path, (unsigned)d->abi_major, (unsigned)d->abi_minor,
                             SBX_BACKEND_ABI_MAJOR, SBX_BACKEND_ABI_MINOR, missing);
    return SBX_OK;
}

sbx_status host_module_open(const char *path, void **handle,
                           const sbx_backend_descriptor **descriptor, sbx_error *err)
{
    *handle = NULL;
    *descriptor = NULL;
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL) {
        const char *why = dlerror();
        return sbx_error_set(err, SBX_ERR_LOAD,
                             "cannot load backend module %s: not a loadable shared object (%s; " HOST_ABI_TEXT_FMT ")",
                             path, why != NULL ? why : "dlopen failed",
                             SBX_BACKEND_ABI_MAJOR, SBX_BACKEND_ABI_MINOR);
    }
    dlerror();
    void *sym = dlsym(dl, SBX_BACKEND_ENTRY_SYMBOL);
    if (sym == NULL) {
        dlclose(dl);
        return sbx_error_set(err, SBX_ERR_LOAD,
                             "cannot load backend module %s: it does not export the entry point %s (" HOST_ABI_TEXT_FMT ")",
                             path, SBX_BACKEND_ENTRY_SYMBOL,
                             SBX_BACKEND_ABI_MAJOR, SBX_BACKEND_ABI_MINOR);
    }
    /* POSIX guarantees that a data pointer from dlsym converts to a function
     * pointer; copying the bits keeps -Wpedantic quiet about it. */
    sbx_backend_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    const sbx_backend_descriptor *d = entry();
    sbx_status st = host_descriptor_validate(d, "module ", path, err);
    if (st != SBX_OK) {
        dlclose(dl);
        return st;
    }
    *handle = dl;
    *descriptor = d;
    return SBX_OK;
}
