/*
 * A small host program embedding libsbx-host: it serves one "turn" of a
 * conversation the way an agent host would, through the sandbox manager.
 *
 *   host CONFIG USER THREAD
 *
 * CONFIG is an sbx configuration file (docs/configuration.md): the backend
 * to use, its options, and the `manager` section (lease store, timeouts).
 * The program
 *   1. opens the configured backend,
 *   2. opens a manager on it,
 *   3. acquires the sandbox of (USER, THREAD) and looks it up on every
 *      "tool call", as a host does between a model's requests,
 *   4. releases it at the end of the turn (it stays warm for the next one),
 *   5. acquires it again, as the next turn would: the same sandbox comes
 *      back from the warm pool, without a create,
 *   6. shuts the manager down as the configuration says (destroy the
 *      sandboxes, or keep them for a successor process to adopt).
 * It prints one line per step on stdout and the library's log on stderr;
 * it exits 0 on success, 1 when a call fails (the error on stderr), 2 on
 * bad usage.
 *
 * Build it against an installed sbx:
 *   cc -std=c11 host.c $(pkg-config --cflags --libs sbx-host) -o host
 * In the source tree `make check` builds it (examples/local.mk) and
 * tests/manager/check-example-host.sh runs it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sbx/host.h>
#include <sbx/manager.h>

/* The library never prints: it hands each log line to the host.  This host
 * writes them to stderr; a real one would feed its own logger.  The line
 * comes from whichever thread logs (an acquire, the manager's reaper or
 * renewal thread), so a real logger must be thread-safe; stdio is. */
static void log_line(void *ctx, sbx_log_level level, const char *backend, const char *message)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    (void)ctx;
    fprintf(stderr, "[%s] %s: %s\n", names[level <= SBX_LOG_DEBUG ? level : SBX_LOG_DEBUG],
            backend, message);
}

/* Every sbx call returns a status and fills an sbx_error with a message
 * that names what failed; the host decides what to do with it. */
static int failed(const char *what, const sbx_error *err)
{
    fprintf(stderr, "host: %s: %s: %s\n", what, sbx_status_name(err->kind), err->message);
    return 1;
}

/* One tool call of the turn.  sbx_manager_get is what a host calls on every
 * request of the model: it does no I/O and asks no store, and it marks the
 * sandbox as used now (so the idle reaper leaves it alone).  NULL means the
 * sandbox is no longer active here (reaped as idle, or destroyed): the host
 * would acquire again. */
static int tool_call(sbx_manager *m, const char *id, int n)
{
    sbx_managed *sb = sbx_manager_get(m, id);
    if (sb == NULL) {
        fprintf(stderr, "host: sandbox %s is no longer active\n", id);
        return 1;
    }
    /* A real host sends its command to this URL (an AIO sandbox's HTTP
     * API); the record stays readable while we hold the reference. */
    printf("tool call %d: sandbox %s at %s\n", n, id, sbx_managed_sandbox(sb)->sandbox_url);
    sbx_managed_unref(sb);
    return 0;
}

/* Acquire the sandbox of (user, thread): the manager derives its id from
 * the pair (the same id DeerFlow derives), and returns the active one, a
 * warm one, one the backend already runs, or a new one.  The caller owns
 * the returned reference. */
static sbx_managed *acquire(sbx_manager *m, const char *user, const char *thread, sbx_error *err)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.user_id = user;
    req.thread_id = thread;
    /* req.sandbox_id stays NULL: the manager derives it. */
    sbx_managed *sb = NULL;
    if (sbx_manager_acquire(m, &req, &sb, err) != SBX_OK)
        return NULL;
    return sb;
}

/* The turn itself: acquire, two tool calls, release; then the next turn's
 * acquire, which finds the sandbox warm.  Returns the exit status. */
static int serve(sbx_manager *m, const char *user, const char *thread)
{
    sbx_error err;
    sbx_managed *sb = acquire(m, user, thread, &err);
    if (sb == NULL)
        return failed("acquire", &err);
    /* Copy the id: the reference is dropped below, the id is used after. */
    char id[SBX_DERIVED_ID_SIZE];
    snprintf(id, sizeof id, "%s", sbx_managed_sandbox(sb)->sandbox_id);
    printf("acquired sandbox %s for user %s thread %s at %s\n", id, user, thread,
           sbx_managed_sandbox(sb)->sandbox_url);
    sbx_managed_unref(sb);

    for (int n = 1; n <= 2; n++)
        if (tool_call(m, id, n) != 0)
            return 1;

    /* End of the turn: the sandbox goes to the warm pool, still running and
     * still leased to this process, until the next turn or idle_timeout. */
    if (sbx_manager_release(m, id, &err) != SBX_OK)
        return failed("release", &err);
    printf("released sandbox %s to the warm pool\n", id);

    /* The next turn of the same thread gets the same sandbox back. */
    sb = acquire(m, user, thread, &err);
    if (sb == NULL)
        return failed("acquire", &err);
    int same = strcmp(sbx_managed_sandbox(sb)->sandbox_id, id) == 0;
    printf("acquired again: %s\n", same ? "the same sandbox, from the warm pool"
                                        : "a different sandbox");
    sbx_managed_unref(sb);
    if (sbx_manager_release(m, id, &err) != SBX_OK)
        return failed("release", &err);

    /* Counters a host exports to its metrics (no I/O). */
    sbx_manager_counters c = {.struct_size = sizeof c};
    sbx_manager_get_counters(m, &c);
    printf("counters: active %llu warm %llu adopted %llu reaped %llu evicted %llu "
           "lease_losses %llu\n", (unsigned long long)c.active, (unsigned long long)c.warm,
           (unsigned long long)c.adopted, (unsigned long long)c.reaped,
           (unsigned long long)c.evicted, (unsigned long long)c.lease_losses);
    return same ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: host CONFIG USER THREAD\n");
        return 2;
    }
    sbx_error err;
    sbx_config *config = NULL;
    sbx_host *host = NULL;
    sbx_backend *backend = NULL;
    sbx_manager *m = NULL;
    int status = 1;

    /* 1. The configuration file: errors name the file and the key at
     * fault. */
    if (sbx_config_load_file(argv[1], &config, &err) != SBX_OK) {
        failed("configuration", &err);
        goto out;
    }

    /* A host object owns the loaded backend modules and the log callback. */
    sbx_host_services services = {sizeof services, log_line, NULL};
    if (sbx_host_new(&services, &host, &err) != SBX_OK) {
        failed("host", &err);
        goto out;
    }
    /* Modules are looked up in the file's module_path, when it has one. */
    size_t dir_count = 0;
    const char *const *dirs = sbx_config_module_path(config, &dir_count);
    if (dir_count > 0 && sbx_host_set_module_path(host, dirs, dir_count, &err) != SBX_OK) {
        failed("module path", &err);
        goto out;
    }

    /* The backend the file names, with its options (local, docker, remote
     * or a third party's module: the manager works over any of them). */
    const char *name = sbx_config_backend(config);
    if (name == NULL || name[0] == '\0') {
        fprintf(stderr, "host: %s names no backend\n", argv[1]);
        goto out;
    }
    size_t option_count = 0;
    const sbx_option *options = sbx_config_backend_options(config, name, &option_count);
    if (sbx_backend_open(host, name, options, option_count, &backend, &err) != SBX_OK) {
        failed("backend", &err);
        goto out;
    }

    /* 2. The manager, configured by the file's `manager` section; the log
     * callback is the host's to set.  Opening it reconciles once (adopting
     * sandboxes a crashed predecessor left) and starts its reaper and lease
     * renewal threads. */
    sbx_manager_config mcfg;
    sbx_config_manager(config, &mcfg);
    mcfg.log = log_line;
    if (sbx_manager_open(backend, &mcfg, &m, &err) != SBX_OK) {
        failed("manager", &err);
        goto out;
    }
    printf("manager %s on backend %s\n", sbx_manager_owner_id(m), name);

    /* 3-5. One turn and the start of the next. */
    status = serve(m, argv[2], argv[3]);

    /* 6. Shutdown, as a host does from its SIGTERM path (from its main
     * loop, not from the signal handler: the library installs none).  It
     * waits for acquires in progress, stops the threads, and destroys or
     * keeps the sandboxes as the `shutdown` key says. */
    if (sbx_manager_shutdown(m, &err) != SBX_OK) {
        status = failed("shutdown", &err);
        goto out;
    }
    printf("shut down: sandboxes %s\n",
           mcfg.shutdown == SBX_MANAGER_SHUTDOWN_DESTROY ? "destroyed" : "kept");

out:
    /* Free in the reverse order of opening: the manager before the backend
     * it uses, the backend before the host that loaded it, and the
     * configuration last (the manager's configuration borrowed its
     * strings until sbx_manager_open returned). */
    sbx_manager_free(m);
    sbx_backend_close(backend);
    sbx_host_free(host);
    sbx_config_free(config);
    return status;
}
