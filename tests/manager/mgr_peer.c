/*
 * A manager in its own process, for the multi-process suites: the local
 * backend on a shared state directory and the sqlite lease store on a shared
 * file, driven by one command per line on stdin, one answer per line on
 * stdout; log lines go to stderr.
 *
 *   mgr_peer STATE_DIR LEASE_DB INTERVAL_MS IDLE_MS destroy|keep [COMMAND STOP_MS]
 *
 * INTERVAL_MS is both the renewal and the reaper interval (real clock).
 * With COMMAND each sandbox runs it (the local backend's `command`, not
 * waited for) and destroy gives it STOP_MS after SIGTERM.
 * Commands: "acquire USER THREAD" -> "ok ID" | "error MESSAGE";
 * "release ID", "destroy ID" -> "ok" | "error MESSAGE"; "renew", "reap" ->
 * "ok"; "counters" -> "active warm adopted reaped evicted lost"; "quit" ->
 * shuts down and answers "ok".  End of input: the same as quit.
 */
#include <config.h>

#include <sbx/manager.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void log_line(void *ctx, sbx_log_level level, const char *backend, const char *message)
{
    (void)ctx;
    fprintf(stderr, "[%d] %s: %s\n", (int)level, backend, message);
}

static void answer(sbx_status st, const sbx_error *err, const char *ok_text)
{
    if (st == SBX_OK)
        printf("ok%s%s\n", ok_text != NULL ? " " : "", ok_text != NULL ? ok_text : "");
    else
        printf("error %s\n", err->message);
    fflush(stdout);
}

static void serve(sbx_manager *m)
{
    char line[512];
    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char verb[32] = "", a[128] = "", b[128] = "";
        sscanf(line, "%31s %127s %127s", verb, a, b);
        sbx_error err;
        if (strcmp(verb, "acquire") == 0) {
            sbx_create_request req = SBX_CREATE_REQUEST_INIT;
            req.user_id = a;
            req.thread_id = b;
            sbx_managed *got = NULL;
            sbx_status st = sbx_manager_acquire(m, &req, &got, &err);
            answer(st, &err, st == SBX_OK ? sbx_managed_sandbox(got)->sandbox_id : NULL);
            sbx_managed_unref(got);
        } else if (strcmp(verb, "release") == 0) {
            answer(sbx_manager_release(m, a, &err), &err, NULL);
        } else if (strcmp(verb, "destroy") == 0) {
            answer(sbx_manager_destroy(m, a, &err), &err, NULL);
        } else if (strcmp(verb, "renew") == 0) {
            answer(sbx_manager_renew_now(m, &err), &err, NULL);
        } else if (strcmp(verb, "reap") == 0) {
            answer(sbx_manager_reap_now(m, &err), &err, NULL);
        } else if (strcmp(verb, "counters") == 0) {
            sbx_manager_counters c = {.struct_size = sizeof c};
            sbx_manager_get_counters(m, &c);
            printf("%llu %llu %llu %llu %llu %llu\n", (unsigned long long)c.active,
                   (unsigned long long)c.warm, (unsigned long long)c.adopted,
                   (unsigned long long)c.reaped, (unsigned long long)c.evicted,
                   (unsigned long long)c.lease_losses);
            fflush(stdout);
        } else if (strcmp(verb, "quit") == 0) {
            break;
        } else {
            printf("error unknown command '%s'\n", verb);
            fflush(stdout);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 6 && argc != 8) {
        fprintf(stderr, "usage: mgr_peer STATE_DIR LEASE_DB INTERVAL_MS IDLE_MS destroy|keep "
                "[COMMAND STOP_MS]\n");
        return 2;
    }
    sbx_error err;
    sbx_host *host = NULL;
    sbx_backend *backend = NULL;
    sbx_manager *m = NULL;
    sbx_host_services services = {sizeof services, log_line, NULL};
    sbx_option opts[] = {{"state_dir", argv[1]},
                         {"command", argc == 8 ? argv[6] : ""},
                         {"stop_timeout_ms", argc == 8 ? argv[7] : "5000"},
                         {"ready_timeout_ms", "0"}};
    sbx_manager_config c = SBX_MANAGER_CONFIG_INIT;
    c.store = SBX_MANAGER_STORE_SQLITE;
    c.store_path = argv[2];
    c.renewal_interval_ms = c.check_interval_ms = atoll(argv[3]);
    c.idle_timeout_ms = atoll(argv[4]);
    c.shutdown = strcmp(argv[5], "keep") == 0 ? SBX_MANAGER_SHUTDOWN_KEEP : SBX_MANAGER_SHUTDOWN_DESTROY;
    c.log = log_line;
    /* The sandboxes run `sleep`, not an HTTP server: no readiness wait. */
    c.ready_timeout_ms = 0;
    if (sbx_host_new(&services, &host, &err) != SBX_OK ||
        sbx_backend_open(host, "local", opts, 4, &backend, &err) != SBX_OK ||
        sbx_manager_open(backend, &c, &m, &err) != SBX_OK) {
        fprintf(stderr, "mgr_peer: %s\n", err.message);
        printf("error %s\n", err.message);
        return 1;
    }
    printf("ready %s\n", sbx_manager_owner_id(m));
    fflush(stdout);
    serve(m);
    sbx_status st = sbx_manager_shutdown(m, &err);
    answer(st, &err, NULL);
    sbx_manager_free(m);
    sbx_backend_close(backend);
    sbx_host_free(host);
    return st == SBX_OK ? 0 : 1;
}
