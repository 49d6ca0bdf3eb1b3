/* A create's disk through sbx-provisiond: the remote backend sends
 * disk_bytes to a daemon over the local backend, which makes the sandbox
 * a file system of that size (df inside, through the daemon's exec, shows
 * it; a write past it fails with ENOSPC); skipped, saying why, where
 * local cannot make one (not root, no loop devices, no mkfs.ext4).  A
 * daemon whose backend cannot bound disk (remote, chained to a
 * provisioner that advertises no create fields, as DeerFlow's) does not
 * advertise it and refuses it naming the member, and nothing reaches the
 * provisioner behind it. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/local_disk_probe.h"
#include "tests/support/backend_calls.h"
#include "tests/support/cunit_main.h"
#include "tests/support/emulator.h"
#include "tests/support/remote_helpers.h"

#define REQUEST_MS 30000L
#define MIB (INT64_C(1) << 20)

/* Shell text run in `id` through the remote backend: its result (free
 * with sbx_backend_free_exec_result), fatal when the exec cannot run. */
static sbx_exec_result *shell(sbx_backend *remote, const char *id, const char *text)
{
    return sbx_test_shell_ok(remote, id, text, 0);
}

static void test_a_disk_through_the_daemon_is_a_file_system_of_that_size(void)
{
    const char *why = sbx_test_why_no_local_disk();
    if (why != NULL) {
        fprintf(stderr, "SKIP a disk through sbx-provisiond over local: %s\n", why);
        return;
    }
    provd_local d;
    if (!provd_local_start(&d, 1, NULL))
        return;
    sbx_host *host = NULL;
    sbx_error err;
    sbx_backend *remote = sbx_test_open_remote(&host, provd_url(d.proc), NULL, NULL, 0, &err);
    CU_ASSERT_PTR_NOT_NULL(remote);
    if (remote != NULL) {
        sbx_operations_info info = {.struct_size = sizeof info};
        CU_ASSERT_EQUAL(sbx_backend_operations_info(remote, &info, &err), SBX_OK);
        CU_ASSERT(info.create_fields & SBX_CREATE_DISK);
        sbx_create_request req = SBX_CREATE_REQUEST_INIT;
        req.sandbox_id = "disk-remote";
        req.disk_bytes = 64 * MIB;
        sbx_sandbox *sb = NULL;
        sbx_status st = sbx_backend_create(remote, &req, &sb, &err);
        if (st != SBX_OK)
            fprintf(stderr, "create with a disk: %s\n", err.message);
        CU_ASSERT_EQUAL_FATAL(st, SBX_OK);
        sbx_backend_free_sandboxes(remote, sb, 1);

        /* df counts KiB: 64 MiB less ext4's own metadata (a few per cent). */
        sbx_exec_result *r = shell(remote, "disk-remote", "df -k . | tail -n 1");
        long kib = 0;
        CU_ASSERT_EQUAL(r->exit_code, 0);
        CU_ASSERT_EQUAL(sscanf(r->stdout_data, "%*s %ld", &kib), 1);
        CU_ASSERT(kib > 64 * 1024 * 85 / 100 && kib <= 64 * 1024);
        if (!(kib > 64 * 1024 * 85 / 100 && kib <= 64 * 1024))
            fprintf(stderr, "df: %s%s\n", r->stdout_data, r->stderr_data);
        sbx_backend_free_exec_result(remote, r);
        /* Past it a write fails inside; the sandbox goes on. */
        r = shell(remote, "disk-remote", "dd if=/dev/zero of=fill bs=1M count=80");
        CU_ASSERT_NOT_EQUAL(r->exit_code, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(r->stderr_data, "No space left on device"));
        sbx_backend_free_exec_result(remote, r);
        r = shell(remote, "disk-remote", "rm fill && echo ok > small && cat small");
        CU_ASSERT_EQUAL(r->exit_code, 0);
        CU_ASSERT_STRING_EQUAL(r->stdout_data, "ok\n");
        sbx_backend_free_exec_result(remote, r);
        CU_ASSERT_EQUAL(sbx_backend_destroy(remote, "disk-remote", &err), SBX_OK);
        sbx_backend_close(remote);
    }
    sbx_host_free(host);
    provd_local_stop(&d, 0);
}

static void test_a_daemon_whose_backend_cannot_bound_disk_refuses_it(void)
{
    static const char *const emu_args[] = {"--initial-status", "Running", NULL};
    sbx_test_emu *emu = sbx_test_emu_start(emu_args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    char url_setting[300], stderr_path[] = "/tmp/sbx-provd-disk-XXXXXX";
    snprintf(url_setting, sizeof url_setting, "provisioner_url=%s", sbx_test_emu_url(emu));
    int fd = mkstemp(stderr_path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    const char *const args[] = {"--listen", "127.0.0.1:0", "--backend", "remote",
                                "--set", url_setting, NULL};
    provd_proc *daemon = provd_start(args, stderr_path);
    CU_ASSERT_PTR_NOT_NULL(daemon);
    if (daemon != NULL) {
        char answer[2048] = "";
        CU_ASSERT_EQUAL(provd_request(provd_url(daemon),
                                      (provd_send){"GET", "/api/capabilities", NULL},
                                      REQUEST_MS, answer, sizeof answer),
                        200);
        CU_ASSERT_PTR_NULL(strstr(answer, "disk_bytes"));
        /* Asked all the same (a client that does not read capabilities). */
        long status = provd_request(
            provd_url(daemon),
            (provd_send){"POST", "/api/sandboxes",
                         "{\"sandbox_id\":\"disk-nowhere\",\"disk_bytes\":67108864}"},
            REQUEST_MS, answer, sizeof answer);
        CU_ASSERT_EQUAL(status, 400);
        CU_ASSERT_PTR_NOT_NULL(strstr(answer, "'disk_bytes'"));
        CU_ASSERT_PTR_NOT_NULL(strstr(answer, "not supported"));
        if (status != 400 || strstr(answer, "'disk_bytes'") == NULL)
            fprintf(stderr, "disk_bytes to a daemon over remote: %ld %s\n", status, answer);
        /* The remote backend in front refuses it before sending. */
        sbx_host *host = NULL;
        sbx_error err;
        sbx_backend *remote = sbx_test_open_remote(&host, provd_url(daemon), NULL, NULL, 0, &err);
        CU_ASSERT_PTR_NOT_NULL(remote);
        if (remote != NULL) {
            sbx_create_request req = SBX_CREATE_REQUEST_INIT;
            req.sandbox_id = "disk-nowhere";
            req.disk_bytes = 64 * MIB;
            sbx_sandbox *sb = NULL;
            CU_ASSERT_EQUAL(sbx_backend_create(remote, &req, &sb, &err), SBX_ERR_UNSUPPORTED);
            CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'disk_bytes'"));
            sbx_backend_close(remote);
        }
        sbx_host_free(host);
        CU_ASSERT_EQUAL(sbx_test_emu_received(emu, "create"), 0);
        CU_ASSERT_EQUAL(provd_stop(daemon), 0);
    }
    unlink(stderr_path);
    sbx_test_emu_stop(emu);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"a_disk_through_the_daemon_is_a_file_system_of_that_size",
         test_a_disk_through_the_daemon_is_a_file_system_of_that_size},
        {"a_daemon_whose_backend_cannot_bound_disk_refuses_it",
         test_a_daemon_whose_backend_cannot_bound_disk_refuses_it},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("provisiond_disk", NULL, NULL, tests);
}
