/* The local backend's descriptor: the table the host registers at
 * sbx_host_new (local is built into the host library). */
#include <config.h>

#include "plugin/local/local_backend.h"

#include "common/mount_contract.h"
#include "common/op_results.h"
#include "common/record_chain.h"
#include "common/sandbox_records.h"
#include "plugin/local/local_create.h"
#include "plugin/local/local_exec.h"
#include "plugin/local/local_expiry.h"
#include "plugin/local/local_files.h"
#include "plugin/local/local_instance.h"
#include "plugin/local/local_ops.h"
#include "plugin/local/local_processes.h"

static const sbx_backend_descriptor local_descriptor = {
    .abi_major = SBX_BACKEND_ABI_MAJOR,
    .abi_minor = SBX_BACKEND_ABI_MINOR,
    .struct_size = sizeof(sbx_backend_descriptor),
    .name = LOCAL_NAME,
    .version = PACKAGE_VERSION,
    .open = local_open,
    .close = local_close,
    .create = local_create,
    .destroy = local_destroy,
    .is_alive = local_is_alive,
    .discover = local_discover,
    .list_running = local_list_running,
    .free_sandboxes = common_sandbox_records_free,
    .capabilities = common_builtin_capabilities,
    .reconcile = local_reconcile,
    .clear_reconciliation = common_reconciliation_clear,
    .create_record = local_create_record,
    .discover_record = local_discover_record,
    .list_records = local_list_records,
    .free_records = common_records_free,
    .operations_info = local_operations_info,
    .exec = local_exec,
    .free_exec_result = common_exec_result_free,
    .read_file = local_read_file,
    .free_file_content = common_file_content_free,
    .write_file = local_write_file,
    .list_dir = local_list_dir,
    .free_listing = common_listing_free,
    .remove_path = local_remove_path,
    .process_start = local_live_start,
    .process_read = local_live_read,
    .process_write = local_live_write,
    .process_signal = local_live_signal,
    .process_resize = local_live_resize,
    .process_wait = local_live_wait,
    .process_list = local_live_list,
    .process_forget = local_live_forget,
    .free_processes = local_free_processes,
    .free_process_output = local_free_process_output,
    .extend = local_extend,
    .open_file = local_open_file,
};

const sbx_backend_descriptor *local_backend_descriptor(void)
{
    return &local_descriptor;
}
