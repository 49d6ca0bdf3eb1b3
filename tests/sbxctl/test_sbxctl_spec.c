/* sbxctl's create request options of ABI 1.5 (--image, --env, --label,
 * --memory, --cpus, --pids, --disk, --network) and list --label: parsing
 * errors naming the option, and on the local backend env seen inside,
 * labels in the list and its filter, a different spec refused; --network
 * none cannot reach a listener on the host's 127.0.0.1 while egress can;
 * --disk gives a file system of that size, full with ENOSPC (skipped,
 * saying why, where local cannot make one: it must then refuse it). */
#include <config.h>

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/support/local_disk_probe.h"
#include "tests/sbxctl/run_sbxctl.h"
#include "tests/sbxctl/sbxctl_checks.h"
#include "tests/support/backend_calls.h"
#include "tests/support/cunit_main.h"
#include "tests/support/scratch_dir.h"

#define ARGS SBX_TEST_ARGS

static char scratch[PATH_MAX];
static char state_dir[PATH_MAX + 16];
static char state_setting[PATH_MAX + 32];

static int setup(void)
{
    if (sbx_test_scratch_dir(scratch, sizeof scratch, "sbxctl spec") != 0)
        return 1;
    snprintf(state_dir, sizeof state_dir, "%s/state", scratch);
    snprintf(state_setting, sizeof state_setting, "state_dir=%s", state_dir);
    return 0;
}

static int teardown(void)
{
    sbx_test_destroy_local_sandboxes(state_dir);
    sbx_test_remove_tree(scratch);
    return 0;
}

static void ctl(sbx_test_run *run, const char *const *args)
{
    sbx_test_sbxctl_local(run, state_setting, NULL, SBX_TEST_RUN_TIMEOUT_MS, args);
}

/* `args` fails as a usage error (exit 2) naming `needle`; nothing made. */
static void expect_usage(const char *const *args, const char *needle)
{
    sbx_test_run run;
    ctl(&run, args);
    sbx_test_assert_failure(&run, 2, "usage", needle);
    sbx_test_run_clear(&run);
}

static void test_bad_values_name_the_option(void)
{
    expect_usage(ARGS("create", "--id", "u1", "--memory", "1"), "'--memory' needs at least 6M");
    expect_usage(ARGS("create", "--id", "u1", "--memory", "0"), "'--memory' needs at least 6M");
    expect_usage(ARGS("create", "--id", "u1", "--memory", "2X"), "'--memory' needs a size");
    expect_usage(ARGS("create", "--id", "u1", "--cpus", "-1"), "'--cpus' needs a number");
    expect_usage(ARGS("create", "--id", "u1", "--cpus", "0"), "'--cpus' needs a number");
    expect_usage(ARGS("create", "--id", "u1", "--pids", "0"), "'--pids' needs a whole number");
    expect_usage(ARGS("create", "--id", "u1", "--disk", "0"), "'--disk' needs at least 1 byte");
    expect_usage(ARGS("create", "--id", "u1", "--disk", "abc"), "'--disk' needs a size");
    expect_usage(ARGS("create", "--id", "u1", "--disk", "-5M"), "'--disk' needs a size");
    expect_usage(ARGS("create", "--id", "u1", "--network", "bogus"),
                 "'--network' needs 'none' (loopback only) or 'egress'");
    expect_usage(ARGS("create", "--id", "u1", "--network", "NONE"), "'--network' needs");
    expect_usage(ARGS("acquire", "--thread", "t1", "--disk", "1Q"), "'--disk' needs a size");
    expect_usage(ARGS("acquire", "--thread", "t1", "--network", ""), "'--network' needs");
    expect_usage(ARGS("exec", "--network", "none", "u1", "true"),
                 "'--network' is not valid for command 'exec'");
    expect_usage(ARGS("create", "--id", "u1", "--label", "=red"), "'--label' needs an argument");
    expect_usage(ARGS("create", "--id", "u1", "--label", "team"), "'--label' needs an argument");
    expect_usage(ARGS("create", "--id", "u1", "--image", "python 3"),
                 "image must be a name without white space");
    expect_usage(ARGS("--label", "a=b", "list"), "'--label' must follow the command 'create', "
                                                 "'acquire' or 'list'");
    expect_usage(ARGS("exec", "--label", "a=b", "u1", "true"),
                 "'--label' is not valid for command 'exec'");
    sbx_test_run run;
    ctl(&run, ARGS("--json", "list"));
    json_object *list = sbx_test_run_json(&run);
    CU_ASSERT_EQUAL(sbx_test_json_int(list, "count", -1), 0);
    json_object_put(list);
    sbx_test_run_clear(&run);
}

/* The labels member of the one sandbox `list --json --label L` answers
 * (caller puts), or NULL when the count is not `count`. */
static json_object *listed(const char *label, int count)
{
    sbx_test_run run;
    ctl(&run, ARGS("--json", "list", "--label", label));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    json_object *list = sbx_test_run_json(&run), *sandboxes = NULL, *labels = NULL;
    sbx_test_run_clear(&run);
    CU_ASSERT_EQUAL(sbx_test_json_int(list, "count", -1), count);
    if (count == 1 && json_object_object_get_ex(list, "sandboxes", &sandboxes))
        json_object_object_get_ex(json_object_array_get_idx(sandboxes, 0), "labels", &labels);
    json_object_get(labels);
    json_object_put(list);
    return labels;
}

static void test_env_and_labels_on_local(void)
{
    sbx_test_run run;
    ctl(&run, ARGS("create", "--id", "spec-a", "--env", "GREETING=hi there", "--label",
                   "team=red", "--label", "tier=gold"));
    CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.out, "labels: team=red,tier=gold\n"));
    sbx_test_run_clear(&run);
    ctl(&run, ARGS("create", "--id", "spec-b", "--label", "team=blue"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    ctl(&run, ARGS("exec", "spec-a", "sh", "-c", "printf '%s' \"$GREETING\""));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_STRING_EQUAL(run.out, "hi there");
    sbx_test_run_clear(&run);

    json_object *labels = listed("team=red", 1);
    sbx_test_assert_json_string(labels, "team", "red");
    sbx_test_assert_json_string(labels, "tier", "gold");
    json_object_put(labels);
    json_object_put(listed("team=green", 0));

    /* Another spec for an existing id: refused, the sandbox as it was. */
    ctl(&run, ARGS("create", "--id", "spec-a", "--label", "team=blue"));
    sbx_test_assert_failure(&run, 6, "refused", "exists with another spec");
    sbx_test_run_clear(&run);
    json_object_put(listed("team=red", 1));
    /* An image is not local's: unsupported, naming the member. */
    ctl(&run, ARGS("create", "--id", "spec-c", "--image", "busybox"));
    sbx_test_assert_failure(&run, 10, "unsupported", "'image'");
    sbx_test_run_clear(&run);
    ctl(&run, ARGS("discover", "spec-c"));
    CU_ASSERT_EQUAL(run.exit_code, 1);
    sbx_test_run_clear(&run);
    sbx_test_local_box(state_setting, "spec-a", 0);
    sbx_test_local_box(state_setting, "spec-b", 0);
}

/* How long a connection the sandbox made may take to show at the
 * listener on a loaded machine. */
#define ACCEPT_DEADLINE_MS 30000

/* Accept a connection pending on `fd`, waiting at most `deadline_ms`: 1
 * when one came. */
static int accepted_within(int fd, int deadline_ms)
{
    struct pollfd p = { fd, POLLIN, 0 };
    if (poll(&p, 1, deadline_ms) != 1)
        return 0;
    int c = accept(fd, NULL, NULL);
    if (c >= 0)
        close(c);
    return c >= 0;
}

/* `sbxctl exec ID` connecting to the host's 127.0.0.1:`port` exits
 * `want` (bash's /dev/tcp: 0 connected, 1 refused). */
static void expect_connect_exit(const char *id, int port, int want)
{
    char text[96];
    snprintf(text, sizeof text, "exec 3<>/dev/tcp/127.0.0.1/%d", port);
    sbx_test_run run;
    ctl(&run, ARGS("exec", id, "bash", "-c", text));
    CU_ASSERT_EQUAL(run.exit_code, want);
    if (run.exit_code != want)
        fprintf(stderr, "connect from %s: exit %d: %s", id, run.exit_code, run.err);
    sbx_test_run_clear(&run);
}

static void test_network_none_cannot_connect_out_egress_can(void)
{
    int port = 0, listener = sbx_test_listening_port(&port);
    CU_ASSERT_FATAL(listener >= 0);
    sbx_test_run run;
    ctl(&run, ARGS("create", "--id", "net-none", "--network", "none"));
    if (run.exit_code == 10) {
        /* local without namespaces on this machine: none cannot be had. */
        fprintf(stderr, "SKIP --network: %s", run.err);
        sbx_test_run_clear(&run);
        close(listener);
        return;
    }
    CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    ctl(&run, ARGS("create", "--id", "net-egress", "--network", "egress"));
    CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    sbx_test_run_clear(&run);

    expect_connect_exit("net-none", port, 1);
    /* Nothing reached the host's listener from the sandbox without network. */
    CU_ASSERT_FALSE(accepted_within(listener, 0));
    expect_connect_exit("net-egress", port, 0);
    CU_ASSERT_TRUE(accepted_within(listener, ACCEPT_DEADLINE_MS));
    /* The network is part of the spec: the other one is refused. */
    ctl(&run, ARGS("create", "--id", "net-none", "--network", "egress"));
    sbx_test_assert_failure(&run, 6, "refused", "exists with another spec");
    sbx_test_run_clear(&run);
    close(listener);
    sbx_test_local_box(state_setting, "net-none", 0);
    sbx_test_local_box(state_setting, "net-egress", 0);
}

/* The size in KiB of the file system `df -k .` shows in sandbox `id`, or
 * -1. */
static long df_kib(const char *id)
{
    sbx_test_run run;
    ctl(&run, ARGS("exec", id, "sh", "-c", "df -k . | tail -n 1"));
    long kib = -1;
    if (run.exit_code != 0 || sscanf(run.out, "%*s %ld", &kib) != 1)
        fprintf(stderr, "df in %s: exit %d: %s%s", id, run.exit_code, run.out, run.err);
    sbx_test_run_clear(&run);
    return kib;
}

static void test_disk_is_a_file_system_of_that_size(void)
{
    const char *why = sbx_test_why_no_local_disk();
    sbx_test_run run;
    ctl(&run, ARGS("create", "--id", "disk-64", "--disk", "64M"));
    if (why != NULL) {
        /* Refused before anything is made, naming the member. */
        sbx_test_assert_failure(&run, 10, "unsupported", "'disk_bytes'");
        sbx_test_run_clear(&run);
        fprintf(stderr, "SKIP --disk 64M in the sandbox: %s\n", why);
        return;
    }
    CU_ASSERT_EQUAL_FATAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
    /* 64 MiB less ext4's own metadata (a few per cent). */
    long kib = df_kib("disk-64");
    CU_ASSERT(kib > 64 * 1024 * 85 / 100 && kib <= 64 * 1024);
    /* Past it a write fails inside with ENOSPC; the sandbox goes on. */
    ctl(&run, ARGS("exec", "disk-64", "dd", "if=/dev/zero", "of=fill", "bs=1M", "count=80"));
    CU_ASSERT_NOT_EQUAL(run.exit_code, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(run.err, "No space left on device"));
    sbx_test_run_clear(&run);
    ctl(&run, ARGS("exec", "disk-64", "sh", "-c", "rm fill && echo ok > small && cat small"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    CU_ASSERT_STRING_EQUAL(run.out, "ok\n");
    sbx_test_run_clear(&run);
    sbx_test_local_box(state_setting, "disk-64", 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"bad values are usage errors naming the option", test_bad_values_name_the_option},
        {"env and labels on local; another spec refused; limits unsupported",
         test_env_and_labels_on_local},
        {"--network none cannot connect to the host's loopback, egress can",
         test_network_none_cannot_connect_out_egress_can},
        {"--disk is a file system of that size, full with ENOSPC",
         test_disk_is_a_file_system_of_that_size},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbxctl create spec", setup, teardown, tests);
}
