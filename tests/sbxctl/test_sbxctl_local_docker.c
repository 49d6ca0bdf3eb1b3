/* sbxctl end to end with the backends that run sandboxes on this machine:
 * `--backend local` (a busybox or python3 HTTP server per sandbox) and
 * `--backend docker` (a container of the engine in SBX_DOCKER_SOCKET, as
 * tests/docker/docker-suite.sh provides).  For each: create --thread t1
 * returns a URL that answers HTTP at once (create waits for the server),
 * list shows the sandbox (JSON and the aligned table), destroy removes it,
 * and afterwards neither list nor the URL knows it.  create, discover and
 * list show what each backend knows beyond the 1.1 record (ABI 1.2:
 * created_at, incarnation, container and engine, or process and directory).
 *
 * SBX_E2E_BACKENDS ("local", "docker"; unset: both) chooses the halves:
 * `make check` runs the local one, docker-suite.sh the docker one while its
 * engine is up.  The docker half is skipped only when SBX_DOCKER_SOCKET is
 * unset. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/sbxctl/run_sbxctl.h"
#include "tests/sbxctl/sbxctl_checks.h"
#include "tests/support/backend_calls.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/http_probe.h"
#include "tests/support/scratch_dir.h"

#define ARGS SBX_TEST_ARGS

#define MAX_ARGS 32
/* One request to a sandbox's server: it answers at once; the bound only
 * ends a hung one, and a loaded machine must not reach it. */
#define HTTP_TIMEOUT_MS 60000L
#define PAGE_TEXT "hello from the sandbox\n"
#define READY_SETTING "ready_timeout_ms=" SBX_TEST_READY_TIMEOUT_MS

/* How one backend is driven: its sbxctl arguments (--backend, --set ...),
 * and where a page with PAGE_TEXT is served once the sandbox `id` exists. */
typedef struct backend_case {
    const char *const *settings;
    /* Make PAGE_TEXT available at a path of the sandbox's URL, written to
     * `path` (size bytes); 0 when it cannot. */
    int (*publish_page)(const char *id, char *path, size_t size);
    /* Check the members of ABI 1.2 in a --json sandbox `id`. */
    void (*check_record)(json_object *sandbox, const char *id);
} backend_case;

/* "YYYY-MM-DDTHH:MM:SS.mmmZ", as sbxctl(1) writes created_at. */
static int is_iso_time(const char *text)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ";
    if (text == NULL || strlen(text) != sizeof shape - 1)
        return 0;
    for (size_t i = 0; shape[i] != '\0'; i++)
        if (shape[i] == 'd' ? text[i] < '0' || text[i] > '9' : text[i] != shape[i])
            return 0;
    return 1;
}

/* created_at is a time of this run (the same minute, in UTC). */
static void check_created_at(json_object *sandbox)
{
    const char *created = sbx_test_json_string(sandbox, "created_at");
    CU_ASSERT_TRUE(is_iso_time(created));
    time_t now = time(NULL);
    struct tm tm;
    char today[16];
    gmtime_r(&now, &tm);
    strftime(today, sizeof today, "%Y-%m-%d", &tm);
    CU_ASSERT_TRUE(created != NULL && strncmp(created, today, 10) == 0);
    if (!is_iso_time(created))
        fprintf(stderr, "created_at: %s\n", created != NULL ? created : "(not a string)");
}

/* Run sbxctl SETTINGS [--json] ARGS. */
static void run_backend(sbx_test_run *run, const backend_case *bc, int json,
                        const char *const *args)
{
    const char *argv[MAX_ARGS];
    size_t n = 0;
    for (size_t i = 0; bc->settings[i] != NULL && n < MAX_ARGS - 2; i++)
        argv[n++] = bc->settings[i];
    if (json)
        argv[n++] = "--json";
    for (size_t i = 0; args[i] != NULL && n < MAX_ARGS - 1; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    sbx_test_sbxctl(run, NULL, argv);
}

/* Run a --json command expected to exit 0; returns its object (caller puts). */
static json_object *run_json(const backend_case *bc, const char *const *args)
{
    sbx_test_run run;
    run_backend(&run, bc, 1, args);
    CU_ASSERT_EQUAL(run.exit_code, 0);
    if (run.exit_code != 0)
        fprintf(stderr, "exit %d, stderr [%s], stdout [%s]\n", run.exit_code, run.err, run.out);
    json_object *object = sbx_test_run_json(&run);
    CU_ASSERT_PTR_NOT_NULL(object);
    sbx_test_run_clear(&run);
    return object;
}

/* The key: value lines of `discover ID`: a time and every member the JSON
 * gave, in the same words. */
static void check_discover_text(const backend_case *bc, const char *id, json_object *sandbox)
{
    sbx_test_run run;
    run_backend(&run, bc, 0, ARGS("discover", id));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    static const char *const keys[] = {"created_at", "incarnation_id", "container_id",
                                       "container_name", "engine", "engine_version",
                                       "directory"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *value = sbx_test_json_string(sandbox, keys[i]);
        char line[PATH_MAX + 64];
        snprintf(line, sizeof line, "\n%s: %s\n", keys[i], value != NULL ? value : "-");
        CU_ASSERT_PTR_NOT_NULL(strstr(run.out, line));
        if (strstr(run.out, line) == NULL)
            fprintf(stderr, "discover printed [%s], not [%s]\n", run.out, line + 1);
    }
    sbx_test_run_clear(&run);
}

/* How many entries of `list --json` have id `id`; *url gets the URL of one. */
static int listed(const backend_case *bc, const char *id, char *url, size_t url_size)
{
    json_object *list = run_json(bc, ARGS("list"));
    json_object *sandboxes = list != NULL ? json_object_object_get(list, "sandboxes") : NULL;
    CU_ASSERT_TRUE(json_object_is_type(sandboxes, json_type_array));
    size_t count = json_object_is_type(sandboxes, json_type_array)
                       ? json_object_array_length(sandboxes) : 0;
    CU_ASSERT_EQUAL(sbx_test_json_int(list, "count", -1), (int)count);
    int found = 0;
    for (size_t i = 0; i < count; i++) {
        json_object *sandbox = json_object_array_get_idx(sandboxes, i);
        const char *sandbox_id = sbx_test_json_string(sandbox, "sandbox_id");
        const char *sandbox_url = sbx_test_json_string(sandbox, "sandbox_url");
        if (sandbox_id == NULL || strcmp(sandbox_id, id) != 0)
            continue;
        found++;
        bc->check_record(sandbox, id);
        if (url != NULL)
            snprintf(url, url_size, "%s", sandbox_url != NULL ? sandbox_url : "");
    }
    json_object_put(list);
    return found;
}

/* The human `list`: the aligned table with a row for `id`. */
static void assert_table_shows(const backend_case *bc, const char *id, const char *url)
{
    sbx_test_run run;
    run_backend(&run, bc, 0, ARGS("list"));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_assert_list_table(run.out);
    char row_start[160];
    snprintf(row_start, sizeof row_start, "\n%s ", id);
    const char *found = strstr(run.out, row_start);
    char row[1024] = "";
    if (found != NULL)
        snprintf(row, sizeof row, "%.*s", (int)strcspn(found + 1, "\n"), found + 1);
    CU_ASSERT_PTR_NOT_NULL(found);
    CU_ASSERT_PTR_NOT_NULL(strstr(row, url));
    CU_ASSERT_PTR_NOT_NULL(strstr(row, " Running "));
    CU_ASSERT_PTR_NOT_NULL(strstr(row, " t1 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(row, "Z "));   /* the CREATED column */
    if (found == NULL)
        fprintf(stderr, "list printed [%s]\n", run.out);
    sbx_test_run_clear(&run);
}

/* GET `url` once: the status, and the body into *body (caller frees). */
static long get_page(const char *url, char **body)
{
    sbx_test_http_result result;
    int rc = sbx_test_http("GET", url, NULL, NULL, HTTP_TIMEOUT_MS, &result);
    long status = rc == 0 ? result.status : -1;
    *body = result.body != NULL ? strdup(result.body) : NULL;
    sbx_test_http_result_clear(&result);
    return status;
}

/* create --thread t1, use, list, destroy, and check nothing is left. */
static void exercise(const backend_case *bc)
{
    json_object *sandbox = run_json(bc, ARGS("create", "--thread", "t1"));
    CU_ASSERT_PTR_NOT_NULL_FATAL(sandbox);
    char id[128], url[512];
    const char *text = sbx_test_json_string(sandbox, "sandbox_id");
    snprintf(id, sizeof id, "%s", text != NULL ? text : "");
    text = sbx_test_json_string(sandbox, "sandbox_url");
    snprintf(url, sizeof url, "%s", text != NULL ? text : "");
    sbx_test_assert_json_string(sandbox, "thread_id", "t1");
    CU_ASSERT_FATAL(id[0] != '\0');
    bc->check_record(sandbox, id);
    check_discover_text(bc, id, sandbox);
    json_object_put(sandbox);
    CU_ASSERT_EQUAL(strncmp(url, "http://127.0.0.1:", 17), 0);

    /* create returned once the server accepts connections: no retries. */
    long status = sbx_test_http_get_once(url, HTTP_TIMEOUT_MS);
    CU_ASSERT_TRUE(status >= 100 && status < 600);
    char path[256], page_url[800];
    if (bc->publish_page(id, path, sizeof path)) {
        snprintf(page_url, sizeof page_url, "%s%s", url, path);
        char *body = NULL;
        CU_ASSERT_EQUAL(get_page(page_url, &body), 200);
        CU_ASSERT_TRUE(body != NULL && strcmp(body, PAGE_TEXT) == 0);
        free(body);
    }

    char listed_url[512] = "";
    CU_ASSERT_EQUAL(listed(bc, id, listed_url, sizeof listed_url), 1);
    CU_ASSERT_STRING_EQUAL(listed_url, url);
    assert_table_shows(bc, id, url);

    json_object *destroyed = run_json(bc, ARGS("destroy", id));
    sbx_test_assert_json_string(destroyed, "sandbox_id", id);
    CU_ASSERT_TRUE(sbx_test_json_true(destroyed, "destroyed"));
    json_object_put(destroyed);

    CU_ASSERT_EQUAL(listed(bc, id, NULL, 0), 0);
    CU_ASSERT_EQUAL(sbx_test_http_get_once(url, HTTP_TIMEOUT_MS), -1);
    /* Whatever failed above, leave no server running. */
    sbx_test_run run;
    run_backend(&run, bc, 0, ARGS("destroy", id));
    CU_ASSERT_EQUAL(run.exit_code, 0);
    sbx_test_run_clear(&run);
}

/* 1 when the half named `name` is selected by SBX_E2E_BACKENDS. */
static int half_selected(const char *name)
{
    const char *chosen = getenv("SBX_E2E_BACKENDS");
    return chosen == NULL || chosen[0] == '\0' || strstr(chosen, name) != NULL;
}

/* ------------------------------------------------------------ local */

static char local_state_dir[PATH_MAX];

/* An executable named `name` in a directory of $PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    char candidate[PATH_MAX + 64];
    while (path != NULL && *path != '\0') {
        size_t len = strcspn(path, ":");
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, len ? path : ".", name);
        if (access(candidate, X_OK) == 0)
            return 1;
        path += len + (path[len] == ':');
    }
    return 0;
}

/* The local sandbox's server serves its directory: write the page there. */
static int local_publish_page(const char *id, char *path, size_t size)
{
    char file[PATH_MAX + 160];
    snprintf(file, sizeof file, "%s/%s/page.txt", local_state_dir, id);
    FILE *out = fopen(file, "w");
    CU_ASSERT_PTR_NOT_NULL(out);
    if (out == NULL)
        return 0;
    fputs(PAGE_TEXT, out);
    fclose(out);
    snprintf(path, size, "/page.txt");
    return 1;
}

/* A local sandbox: its record's time and incarnation, its directory and
 * its command's process; no container. */
static void local_check_record(json_object *sandbox, const char *id)
{
    char dir[PATH_MAX + 160];
    snprintf(dir, sizeof dir, "%s/%s", local_state_dir, id);
    check_created_at(sandbox);
    CU_ASSERT_PTR_NOT_NULL(sbx_test_json_string(sandbox, "incarnation_id"));
    sbx_test_assert_json_string(sandbox, "directory", dir);
    CU_ASSERT_TRUE(sbx_test_json_int(sandbox, "pid", 0) > 1);
    static const char *const none[] = {"container_id", "container_name", "engine",
                                       "engine_version"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        CU_ASSERT_TRUE(sbx_test_json_is_null(sandbox, none[i]));
}

static void test_local(void)
{
    /* Servers listen on 127.0.0.1 only. */
    const char *command = NULL;
    if (on_path("busybox"))
        command = "command=exec busybox httpd -f -p 127.0.0.1:{port} -h {dir}";
    else if (on_path("python3"))
        command = "command=exec python3 -m http.server {port} --bind 127.0.0.1 --directory {dir}";
    if (command == NULL) {
        fprintf(stderr, "SKIP local half: neither busybox nor python3 on PATH\n");
        return;
    }
    CU_ASSERT_FATAL(sbx_test_scratch_dir(local_state_dir, sizeof local_state_dir,
                                         "e2e-local") == 0);
    char state_setting[PATH_MAX + 16];
    snprintf(state_setting, sizeof state_setting, "state_dir=%s", local_state_dir);
    const char *const settings[] = {"--backend", "local", "--set", state_setting,
                                    "--set", command, "--set", READY_SETTING, NULL};
    backend_case bc = { settings, local_publish_page, local_check_record };
    exercise(&bc);
    sbx_test_destroy_local_sandboxes(local_state_dir);
    sbx_test_remove_tree(local_state_dir);
}

/* ------------------------------------------------------------ docker */

/* The container writes the page into the directory httpd serves. */
#define DOCKER_COMMAND \
    "command=mkdir -p /www && echo 'hello from the sandbox' > /www/page.txt && " \
    "exec httpd -f -p 8080 -h /www"

static int docker_publish_page(const char *id, char *path, size_t size)
{
    (void)id;
    snprintf(path, size, "/page.txt");
    return 1;
}

/* A docker sandbox: its container (ID, which is also its incarnation, and
 * name) and the engine that runs it (SBX_DOCKER_ENGINE: docker or podman,
 * with a version); no process or directory. */
static void docker_check_record(json_object *sandbox, const char *id)
{
    char name[160];
    snprintf(name, sizeof name, "sbx-%s", id);
    check_created_at(sandbox);
    const char *container = sbx_test_json_string(sandbox, "container_id");
    CU_ASSERT_TRUE(container != NULL && strlen(container) == 64 &&
                   strspn(container, "0123456789abcdef") == 64);
    sbx_test_assert_json_string(sandbox, "incarnation_id", container ? container : "-");
    sbx_test_assert_json_string(sandbox, "container_name", name);
    const char *engine = getenv("SBX_DOCKER_ENGINE");
    sbx_test_assert_json_string(sandbox, "engine", engine != NULL ? engine : "docker");
    const char *version = sbx_test_json_string(sandbox, "engine_version");
    CU_ASSERT_TRUE(version != NULL && version[0] >= '0' && version[0] <= '9');
    CU_ASSERT_TRUE(sbx_test_json_is_null(sandbox, "directory"));
    CU_ASSERT_TRUE(sbx_test_json_is_null(sandbox, "pid"));
}

static void test_docker(void)
{
    const char *socket_path = getenv("SBX_DOCKER_SOCKET");
    const char *image = getenv("SBX_DOCKER_IMAGE");
    CU_ASSERT_PTR_NOT_NULL_FATAL(socket_path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(image);
    char socket_setting[PATH_MAX + 16], image_setting[512];
    snprintf(socket_setting, sizeof socket_setting, "socket=%s", socket_path);
    snprintf(image_setting, sizeof image_setting, "image=%s", image);
    const char *const settings[] = {"--backend", "docker", "--set", socket_setting,
                                    "--set", image_setting, "--set", DOCKER_COMMAND,
                                    "--set", READY_SETTING,
                                    "--set", "stop_grace_s=1", NULL};
    backend_case bc = { settings, docker_publish_page, docker_check_record };
    exercise(&bc);
}

void sbx_test_register(void)
{
    static const CU_TestInfo local_tests[] = {
        {"create --thread t1, serve, list, destroy", test_local},
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo docker_tests[] = {
        {"create --thread t1, serve, list, destroy", test_docker},
        CU_TEST_INFO_NULL,
    };
    int local = half_selected("local"), docker = half_selected("docker");
    if (docker && getenv("SBX_DOCKER_SOCKET") == NULL) {
        fprintf(stderr, "SKIP docker half: SBX_DOCKER_SOCKET is not set "
                        "(tests/docker/docker-suite.sh sets it)\n");
        docker = 0;
    }
    if (!local && !docker)
        exit(77);
    if (local)
        sbx_test_add_suite("sbxctl --backend local end to end", NULL, NULL, local_tests);
    if (docker)
        sbx_test_add_suite("sbxctl --backend docker end to end", NULL, NULL, docker_tests);
}
