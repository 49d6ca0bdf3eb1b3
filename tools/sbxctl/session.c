/* Configuration, host and backend selection for one sbxctl run. */
#include <config.h>

#include "tools/sbxctl/session.h"

#include "tools/sbxctl/option_hints.h"

#include <stdlib.h>
#include <string.h>

static sbx_status load_config(const ctl_args *args, sbx_config **out, sbx_error *err)
{
    const char *path = args->config_path;
    if (path == NULL) {
        const char *from_env = getenv("SBX_CONFIG");
        if (from_env != NULL && from_env[0] != '\0')
            path = from_env;
    }
    if (path != NULL)
        return sbx_config_load_file(path, out, err);
    return sbx_config_new(out, err);
}

static const char *select_backend(const ctl_args *args, const sbx_config *config)
{
    if (args->backend != NULL)
        return args->backend;
    const char *configured = sbx_config_backend(config);
    if (configured != NULL && configured[0] != '\0')
        return configured;
    return CTL_DEFAULT_BACKEND;
}

sbx_status ctl_session_start(ctl_session *session, const ctl_args *args,
                                 sbx_error *err)
{
    memset(session, 0, sizeof *session);
    session->log.verbose = args->verbose;
    session->log.redactor = &session->redactor;

    /* --set secrets first, so that nothing printed from here on shows them. */
    for (size_t i = 0; i < args->setting_count; i++) {
        const sbx_option setting = {args->settings[i].key, args->settings[i].value};
        sbx_status status = ctl_redactor_add_options(&session->redactor, &setting, 1, err);
        if (status != SBX_OK)
            return status;
    }

    sbx_status status = load_config(args, &session->config, err);
    if (status != SBX_OK)
        return status;
    session->backend_name = select_backend(args, session->config);

    for (size_t i = 0; i < args->setting_count; i++) {
        status = sbx_config_set_option(session->config, session->backend_name,
                                       args->settings[i].key, args->settings[i].value, err);
        if (status != SBX_OK)
            return status;
    }

    size_t option_count = 0;
    const sbx_option *options =
        sbx_config_backend_options(session->config, session->backend_name, &option_count);
    status = ctl_redactor_add_options(&session->redactor, options, option_count, err);
    if (status != SBX_OK)
        return status;

    const sbx_host_services services = {sizeof services, ctl_log_line, &session->log};
    status = sbx_host_new(&services, &session->host, err);
    if (status != SBX_OK)
        return status;

    size_t dir_count = 0;
    const char *const *dirs = sbx_config_module_path(session->config, &dir_count);
    if (dir_count > 0)
        status = sbx_host_set_module_path(session->host, dirs, dir_count, err);
    return status;
}

sbx_status ctl_session_open_backend(ctl_session *session, sbx_backend **out,
                                        sbx_error *err)
{
    size_t option_count = 0;
    const sbx_option *options =
        sbx_config_backend_options(session->config, session->backend_name, &option_count);
    sbx_status status = sbx_backend_open(session->host, session->backend_name, options,
                                         option_count, out, err);
    if (status != SBX_OK)
        ctl_hint_backend(err, session->backend_name, options, option_count);
    return status;
}

void ctl_session_end(ctl_session *session)
{
    sbx_host_free(session->host);
    sbx_config_free(session->config);
    ctl_redactor_clear(&session->redactor);
    session->host = NULL;
    session->config = NULL;
}
