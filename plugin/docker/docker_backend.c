/* The docker backend's descriptor and entry point: the module's only
 * exported symbol (every other function is hidden or static). */
#include <config.h>

#include "plugin/docker/docker_backend.h"

#include "common/mount_contract.h"
#include "common/record_chain.h"
#include "common/sandbox_records.h"
#include "common/op_results.h"
#include "plugin/docker/docker_create.h"
#include "plugin/docker/docker_exec.h"
#include "plugin/docker/docker_expiry.h"
#include "plugin/docker/docker_files.h"
#include "plugin/docker/docker_instance.h"
#include "plugin/docker/docker_list.h"
#include "plugin/docker/docker_ops.h"
#include "plugin/docker/docker_proc_answers.h"
#include "plugin/docker/docker_processes.h"

static const sbx_backend_descriptor docker_descriptor = {
    .abi_major = SBX_BACKEND_ABI_MAJOR,
    .abi_minor = SBX_BACKEND_ABI_MINOR,
    .struct_size = sizeof(sbx_backend_descriptor),
    .name = DOCKER_NAME,
    .version = PACKAGE_VERSION,
    .open = docker_open,
    .close = docker_close,
    .create = docker_create,
    .destroy = docker_destroy,
    .is_alive = docker_is_alive,
    .discover = docker_discover,
    .list_running = docker_list_running,
    .free_sandboxes = common_sandbox_records_free,
    .capabilities = common_builtin_capabilities,
    .reconcile = docker_reconcile,
    .clear_reconciliation = common_reconciliation_clear,
    .create_record = docker_create_record,
    .discover_record = docker_discover_record,
    .list_records = docker_list_records,
    .free_records = common_records_free,
    .operations_info = docker_operations_info,
    .exec = docker_exec,
    .free_exec_result = common_exec_result_free,
    .read_file = docker_read_file,
    .free_file_content = common_file_content_free,
    .write_file = docker_write_file,
    .list_dir = docker_list_dir,
    .free_listing = common_listing_free,
    .remove_path = docker_remove_path,
    .process_start = docker_process_start,
    .process_read = docker_process_read,
    .process_write = docker_process_write,
    .process_signal = docker_process_signal,
    .process_resize = docker_process_resize,
    .process_wait = docker_process_wait,
    .process_list = docker_process_list,
    .process_forget = docker_process_forget,
    .free_processes = docker_proc_free_infos,
    .free_process_output = docker_proc_free_output,
    .extend = docker_extend,
};

const sbx_backend_descriptor *sbx_backend_entry(void)
{
    return &docker_descriptor;
}
