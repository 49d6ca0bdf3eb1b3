/* The remote backend's descriptor and entry point: the module's only
 * exported symbol (every other function is hidden or static). */
#include <config.h>

#include "plugin/remote/remote_backend.h"

#include "common/op_results.h"
#include "common/record_chain.h"
#include "common/sandbox_records.h"
#include "plugin/remote/remote_create.h"
#include "plugin/remote/remote_exec.h"
#include "plugin/remote/remote_extend.h"
#include "plugin/remote/remote_files.h"
#include "plugin/remote/remote_instance.h"
#include "plugin/remote/remote_ops.h"
#include "plugin/remote/remote_process.h"
#include "plugin/remote/remote_process_answer.h"
#include "plugin/remote/remote_records.h"

static const sbx_backend_descriptor remote_descriptor = {
    .abi_major = SBX_BACKEND_ABI_MAJOR,
    .abi_minor = SBX_BACKEND_ABI_MINOR,
    .struct_size = sizeof(sbx_backend_descriptor),
    .name = REMOTE_NAME,
    .version = PACKAGE_VERSION,
    .open = remote_open,
    .close = remote_close,
    .create = remote_create,
    .destroy = remote_destroy,
    .is_alive = remote_is_alive,
    .discover = remote_discover,
    .list_running = remote_list_running,
    .free_sandboxes = common_sandbox_records_free,
    .capabilities = remote_capabilities,
    .reconcile = remote_reconcile,
    .clear_reconciliation = common_reconciliation_clear,
    .create_record = remote_create_record,
    .discover_record = remote_discover_record,
    .list_records = remote_list_records,
    .free_records = common_records_free,
    .operations_info = remote_operations_info,
    .exec = remote_exec,
    .free_exec_result = common_exec_result_free,
    .read_file = remote_read_file,
    .free_file_content = common_file_content_free,
    .write_file = remote_write_file,
    .list_dir = remote_list_dir,
    .free_listing = common_listing_free,
    .remove_path = remote_remove_path,
    .process_start = remote_process_start,
    .process_read = remote_process_read,
    .process_write = remote_process_write,
    .process_signal = remote_process_signal,
    .process_wait = remote_process_wait,
    .process_list = remote_process_list,
    .process_forget = remote_process_forget,
    .free_processes = remote_process_infos_free,
    .free_process_output = remote_process_output_free,
    .extend = remote_extend,
};

const sbx_backend_descriptor *sbx_backend_entry(void)
{
    return &remote_descriptor;
}
