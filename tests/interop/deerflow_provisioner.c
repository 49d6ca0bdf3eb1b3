/* The real DeerFlow provisioner as a child process (see deerflow_provisioner.h). */
#include <config.h>

#include "tests/interop/deerflow_provisioner.h"

#include "tests/support/http_probe.h"
#include "tests/support/subprocess.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Python imports, uvicorn's start and the first answer take about a second
 * here; a loaded CI machine gets thirty. */
#define START_TIMEOUT_MS 30000

static const char *run_script(char *buf, size_t cap)
{
    const char *dir = getenv("SBX_DEERFLOW_PROVISIONER");
    if (dir == NULL || dir[0] == '\0')
        return NULL;
    snprintf(buf, cap, "%s/run.sh", dir);
    return buf;
}

const char *sbx_test_deerflow_unavailable(void)
{
    char script[4096];
    struct stat sb;
    if (run_script(script, sizeof script) == NULL)
        return "SBX_DEERFLOW_PROVISIONER is not set (the folder of the real provisioner's "
               "run.sh; .ci/run sets it)";
    if (stat(script, &sb) != 0 || !S_ISREG(sb.st_mode))
        return "SBX_DEERFLOW_PROVISIONER has no run.sh";
    /* The interpreter run.sh uses: $PYTHON, else Debian's own. */
    const char *python = getenv("PYTHON");
    const char *const probe[] = { python != NULL && python[0] != '\0' ? python : "/usr/bin/python3",
                                  "-c", "import fastapi, uvicorn, kubernetes", NULL };
    if (sbx_test_run_program(probe, 60000, NULL, 0) != 0)
        return "its python3 cannot import fastapi, uvicorn and kubernetes (Debian: "
               "python3-fastapi python3-uvicorn python3-kubernetes)";
    return NULL;
}

/* A port that was free a moment ago: bound to port 0, read, released. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

int sbx_test_deerflow_start(sbx_test_deerflow *p, const char *api_key)
{
    memset(p, 0, sizeof *p);
    char script[4096], port_arg[16], control_arg[16];
    int port = free_port(), control = free_port();
    if (run_script(script, sizeof script) == NULL || port < 0 || control < 0 ||
        port == control) {
        fprintf(stderr, "deerflow provisioner: no script or no free port\n");
        return 0;
    }
    snprintf(port_arg, sizeof port_arg, "%d", port);
    snprintf(control_arg, sizeof control_arg, "%d", control);
    snprintf(p->url, sizeof p->url, "http://127.0.0.1:%d", port);
    snprintf(p->control_url, sizeof p->control_url, "http://127.0.0.1:%d", control);
    if (getcwd(p->state_dir, sizeof p->state_dir - 32) == NULL) {
        perror("getcwd");
        return 0;
    }
    strcat(p->state_dir, "/tests/interop/state");
    mkdir(p->state_dir, 0755);
    p->pid = fork();
    if (p->pid < 0) {
        perror("fork");
        return 0;
    }
    if (p->pid == 0) {
        setpgid(0, 0);
        /* Its log goes where make check keeps this suite's own. */
        int log = open("tests/interop/deerflow-provisioner.out",
                       O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (log >= 0) {
            dup2(log, STDOUT_FILENO);
            dup2(log, STDERR_FILENO);
        }
        setenv("DEER_FLOW_HOST_BASE_DIR", p->state_dir, 1);
        execlp("bash", "bash", script, port_arg, api_key, "--control-port", control_arg,
               (char *)NULL);
        _exit(127);
    }
    setpgid(p->pid, p->pid);
    char health[96];
    snprintf(health, sizeof health, "%s/health", p->url);
    if (sbx_test_http_get(health, START_TIMEOUT_MS, NULL) != 200) {
        fprintf(stderr, "deerflow provisioner: %s did not answer 200 in time (see "
                        "tests/interop/deerflow-provisioner.out)\n", health);
        sbx_test_deerflow_stop(p);
        return 0;
    }
    return 1;
}

int sbx_test_deerflow_control(const sbx_test_deerflow *p, const char *path, const char *json)
{
    char url[160];
    snprintf(url, sizeof url, "%s%s", p->control_url, path);
    sbx_test_http_result r;
    int ok = sbx_test_http(json != NULL ? "POST" : "DELETE", url, NULL, json, 10000, &r) == 0 &&
             r.status >= 200 && r.status < 300;
    if (!ok)
        fprintf(stderr, "deerflow control %s %s: HTTP %ld %s\n", path, json ? json : "",
                r.status, r.body != NULL ? r.body : "");
    sbx_test_http_result_clear(&r);
    return ok;
}

char *sbx_test_deerflow_state(const sbx_test_deerflow *p)
{
    char url[160], *body = NULL;
    snprintf(url, sizeof url, "%s/state", p->control_url);
    if (sbx_test_http_get(url, 10000, &body) != 200) {
        free(body);
        return NULL;
    }
    return body;
}

void sbx_test_deerflow_stop(sbx_test_deerflow *p)
{
    if (p->pid <= 0)
        return;
    /* run.sh passes TERM on to uvicorn and removes its temporary state. */
    kill(-p->pid, SIGTERM);
    waitpid(p->pid, NULL, 0);
    kill(-p->pid, SIGKILL);
    p->pid = 0;
}
