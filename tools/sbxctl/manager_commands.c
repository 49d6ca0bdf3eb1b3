/* The commands that run a sandbox manager (<sbx/manager.h>) configured by
 * the file's `manager` section: acquire, manage, leases. */
#include <config.h>

#include "tools/sbxctl/commands.h"

#include "tools/sbxctl/exit_code.h"

#include <pthread.h>
#include <signal.h>

/* The file's manager section with the session's log sink. */
static sbx_manager_config session_manager_config(ctl_session *session)
{
    sbx_manager_config cfg;
    sbx_config_manager(session->config, &cfg);
    cfg.log = ctl_log_line;
    cfg.log_ctx = &session->log;
    return cfg;
}

int ctl_cmd_acquire(const ctl_args *args, ctl_session *session,
                        sbx_backend *backend, const ctl_output *out)
{
    sbx_error err;
    sbx_manager_config cfg = session_manager_config(session);
    /* A one-shot process: what it hands out must outlive it. */
    cfg.shutdown = args->keep_lease ? SBX_MANAGER_SHUTDOWN_KEEP_LEASES : SBX_MANAGER_SHUTDOWN_KEEP;
    sbx_manager *m = NULL;
    if (sbx_manager_open(backend, &cfg, &m, &err) != SBX_OK)
        return ctl_fail(out, &err);
    sbx_create_request request = ctl_args_create_request(args);
    sbx_managed *sandbox = NULL;
    int code = CTL_EXIT_OK;
    if (sbx_manager_acquire(m, &request, &sandbox, &err) != SBX_OK) {
        code = ctl_fail(out, &err);
    } else {
        ctl_print_sandbox(out, sbx_managed_sandbox(sandbox));
        if (sbx_manager_release(m, sbx_managed_sandbox(sandbox)->sandbox_id, &err) != SBX_OK)
            code = ctl_fail(out, &err);
        sbx_managed_unref(sandbox);
    }
    if (sbx_manager_shutdown(m, &err) != SBX_OK && code == CTL_EXIT_OK)
        code = ctl_fail(out, &err);
    sbx_manager_free(m);
    return code;
}

/* ------------------------------------------------------------------ manage */

/* Event lines come from the manager's threads: one at a time. */
typedef struct event_sink {
    pthread_mutex_t lock;
    const ctl_output *out;
} event_sink;

static void print_event(void *ctx, sbx_manager_event event, const char *sandbox_id)
{
    static const char *const names[] = {"adopted", "reaped", "evicted", "lease_lost",
                                        "expired"};
    event_sink *sink = ctx;
    pthread_mutex_lock(&sink->lock);
    ctl_print_event(sink->out, names[event], "sandbox_id", sandbox_id);
    pthread_mutex_unlock(&sink->lock);
}

int ctl_cmd_manage(ctl_session *session, sbx_backend *backend,
                       const ctl_output *out)
{
    /* Blocked before the manager's threads start, so that they inherit the
     * mask and the signals wait for sigwait below. */
    sigset_t stop_signals, old_mask;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, &old_mask);

    event_sink sink = {PTHREAD_MUTEX_INITIALIZER, out};
    sbx_manager_config cfg = session_manager_config(session);
    cfg.event = print_event;
    cfg.event_ctx = &sink;
    sbx_error err;
    sbx_manager *m = NULL;
    int code = CTL_EXIT_OK;
    if (sbx_manager_open(backend, &cfg, &m, &err) != SBX_OK) {
        code = ctl_fail(out, &err);
    } else {
        pthread_mutex_lock(&sink.lock);
        ctl_print_event(out, "started", "owner", sbx_manager_owner_id(m));
        pthread_mutex_unlock(&sink.lock);
        int signal_number = 0;
        while (sigwait(&stop_signals, &signal_number) != 0)
            ;
        if (sbx_manager_shutdown(m, &err) != SBX_OK)
            code = ctl_fail(out, &err);
        sbx_manager_free(m);
        ctl_print_event(out, "stopped", NULL, NULL);
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    pthread_mutex_destroy(&sink.lock);
    return code;
}

/* ------------------------------------------------------------------ leases */

int ctl_cmd_leases(ctl_session *session, const ctl_output *out)
{
    sbx_error err;
    sbx_manager_config cfg = session_manager_config(session);
    sbx_lease_record *leases = NULL;
    size_t count = 0;
    if (sbx_manager_list_leases(&cfg, &leases, &count, &err) != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_leases(out, leases, count);
    sbx_lease_records_free(leases, count);
    return CTL_EXIT_OK;
}
