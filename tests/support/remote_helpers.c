/* Opening the remote backend the way a host program does. */
#include <config.h>

#include "tests/support/remote_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sbx_host *sbx_test_host_new(sbx_test_log_capture *capture)
{
    sbx_host_services services = {sizeof services, NULL, NULL};
    if (capture != NULL) {
        services.log = sbx_test_log_capture_fn;
        services.log_ctx = capture;
    }
    sbx_host *host = NULL;
    sbx_error err;
    sbx_error_clear(&err);
    if (sbx_host_new(&services, &host, &err) != SBX_OK) {
        fprintf(stderr, "sbx_test_host_new: %s\n", err.message);
        return NULL;
    }
    return host;
}

sbx_backend *sbx_test_open_remote(sbx_host **host, const char *url, const char *api_key,
                                  const sbx_option *extra, size_t n_extra, sbx_error *err)
{
    sbx_error_clear(err);
    if (*host == NULL) {
        *host = sbx_test_host_new(NULL);
        if (*host == NULL) {
            sbx_error_set(err, SBX_ERR_INTERNAL, "cannot create a host");
            return NULL;
        }
    }
    size_t count = 0;
    sbx_option *options = calloc(n_extra + 2, sizeof *options);
    if (options == NULL) {
        sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
        return NULL;
    }
    options[count++] = (sbx_option){"provisioner_url", url};
    if (api_key != NULL)
        options[count++] = (sbx_option){"api_key", api_key};
    for (size_t i = 0; i < n_extra; i++) {
        /* An extra option of the same key replaces ours: no duplicates. */
        size_t slot = count;
        for (size_t j = 0; j < count; j++) {
            if (strcmp(options[j].key, extra[i].key) == 0)
                slot = j;
        }
        options[slot] = extra[i];
        if (slot == count)
            count++;
    }

    sbx_backend *backend = NULL;
    if (sbx_backend_open(*host, "remote", options, count, &backend, err) != SBX_OK)
        backend = NULL;
    free(options);
    return backend;
}
