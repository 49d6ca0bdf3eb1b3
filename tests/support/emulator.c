/* The emulator as a watched child process: its listening line read with a
 * deadline, stopped by signal and reaped once its stdout closes (never by
 * sleeping).  Control calls go over https when it serves
 * https. */
#include <config.h>

#include "tests/support/emulator.h"

#include "tests/support/http_probe.h"
#include "tests/support/watched_child.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The emulator says where it listens at once; the bound ends a hung one
 * (10 s was reached at a load of 36 on two cores). */
#define START_DEADLINE_MS 60000
#define STOP_DEADLINE_MS 5000
#define CONTROL_TIMEOUT_MS 30000L
#define LISTENING_PREFIX "sbx-provisioner-emu listening on "
/* Emulators started before one answers on the port it names. */
#define START_ATTEMPTS 3

struct sbx_test_emu {
    sbx_test_child child;   /* its stdout ends when it does */
    char url[256];
    int https;              /* it serves https: control calls use ca_file */
    char *ca_file;          /* NULL: an https emulator's certificate is not verified */
};

static void free_emu(sbx_test_emu *emu)
{
    free(emu->ca_file);
    free(emu);
}

const char *sbx_test_emu_url(const sbx_test_emu *emu)
{
    return emu->url;
}

void sbx_test_emu_stop(sbx_test_emu *emu)
{
    if (emu == NULL)
        return;
    sbx_test_child_finish(&emu->child, SIGTERM, STOP_DEADLINE_MS, NULL, 0);
    free_emu(emu);
}

static int control_request(sbx_test_emu *emu, const char *method, const char *path,
                           const char *json_body, long timeout_ms, json_object **answer)
{
    if (answer != NULL)
        *answer = NULL;
    char url[1024];
    snprintf(url, sizeof url, "%s%s", emu->url, path);
    sbx_test_http_result r;
    int sent = emu->https
                   ? sbx_test_http_trusting(emu->ca_file, method, url, json_body, timeout_ms, &r)
                   : sbx_test_http(method, url, NULL, json_body, timeout_ms, &r);
    int status = sent == 0 ? (int)r.status : -1;
    if (sent == 0 && answer != NULL)
        *answer = json_tokener_parse(r.body);
    sbx_test_http_result_clear(&r);
    return status;
}

/* One emulator started and its listening line read; NULL (said on
 * stderr) when it cannot start. */
static sbx_test_emu *start_once(const char *bin, const char *const *args, const char *ca_file)
{
    sbx_test_emu *emu = calloc(1, sizeof *emu);
    if (emu != NULL && ca_file != NULL)
        emu->ca_file = strdup(ca_file);
    if (emu == NULL || (ca_file != NULL && emu->ca_file == NULL)) {
        fprintf(stderr, "sbx_test_emu_start: out of memory\n");
        if (emu != NULL)
            free_emu(emu);
        return NULL;
    }
    if (sbx_test_child_spawn(&emu->child, bin, args, NULL, 0) != 0) {
        free_emu(emu);
        return NULL;
    }
    if (!sbx_test_child_expect(&emu->child, LISTENING_PREFIX, emu->url, sizeof emu->url,
                               START_DEADLINE_MS)) {
        sbx_test_child_finish(&emu->child, SIGTERM, STOP_DEADLINE_MS, NULL, 0);
        free_emu(emu);
        return NULL;
    }
    emu->https = strncmp(emu->url, "https://", 8) == 0;
    return emu;
}

sbx_test_emu *sbx_test_emu_start(const char *const *args)
{
    return sbx_test_emu_start_trusting(args, NULL);
}

sbx_test_emu *sbx_test_emu_start_trusting(const char *const *args, const char *ca_file)
{
    const char *bin = getenv("EMU_BIN");
    if (bin == NULL || bin[0] == '\0') {
        fprintf(stderr, "sbx_test_emu_start: EMU_BIN is not set\n");
        return NULL;
    }
    /* The port the kernel gave the emulator may still be taken by a NAT
     * rule for it (a container engine killed before it removed a container
     * leaves the rule of the container's published port): every request
     * would go elsewhere.  One control call proves the emulator answers. */
    for (int attempt = 1;; attempt++) {
        sbx_test_emu *emu = start_once(bin, args, ca_file);
        if (emu == NULL ||
            control_request(emu, "GET", "/_emu/stats", NULL, CONTROL_TIMEOUT_MS, NULL) == 200)
            return emu;
        fprintf(stderr,
                "sbx_test_emu_start: %s does not reach the emulator that listens there (a NAT "
                "rule on that port?)%s\n",
                emu->url, attempt < START_ATTEMPTS ? ": starting another" : "");
        sbx_test_emu_stop(emu);
        if (attempt == START_ATTEMPTS)
            return NULL;
    }
}

int sbx_test_emu_control(sbx_test_emu *emu, const char *method, const char *path,
                         const char *json_body, struct json_object **answer)
{
    return control_request(emu, method, path, json_body, CONTROL_TIMEOUT_MS, answer);
}

int sbx_test_emu_fault(sbx_test_emu *emu, const char *fault_json)
{
    return sbx_test_emu_control(emu, "POST", "/_emu/faults", fault_json, NULL);
}

struct json_object *sbx_test_emu_requests(sbx_test_emu *emu)
{
    json_object *answer = NULL;
    if (sbx_test_emu_control(emu, "GET", "/_emu/requests", NULL, &answer) != 200) {
        json_object_put(answer);
        return NULL;
    }
    return answer;
}

int sbx_test_emu_received(sbx_test_emu *emu, const char *route)
{
    json_object *stats = NULL, *routes = NULL, *count = NULL;
    int received = -1;
    if (sbx_test_emu_control(emu, "GET", "/_emu/stats", NULL, &stats) == 200 &&
        json_object_object_get_ex(stats, "routes", &routes) &&
        json_object_object_get_ex(routes, route, &count))
        received = json_object_get_int(count);
    json_object_put(stats);
    return received;
}

int sbx_test_emu_wait(sbx_test_emu *emu, const char *route, int received, int held,
                      int timeout_ms)
{
    char path[256];
    if (held >= 0)
        snprintf(path, sizeof path, "/_emu/wait?route=%s&received=%d&held=%d&timeout_ms=%d",
                 route, received, held, timeout_ms);
    else
        snprintf(path, sizeof path, "/_emu/wait?route=%s&received=%d&timeout_ms=%d", route,
                 received, timeout_ms);
    /* The emulator answers at its deadline; allow for the round trip. */
    return control_request(emu, "GET", path, NULL, (long)timeout_ms + 5000L, NULL) == 200;
}
