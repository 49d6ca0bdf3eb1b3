/* Test support: open the "remote" backend module through the public host
 * library (<sbx/host.h>), pointed at a provisioner (usually the emulator),
 * with its logs going to a capture (tests/support/log_capture.h). */
#ifndef SBX_TEST_REMOTE_HELPERS_H
#define SBX_TEST_REMOTE_HELPERS_H

#include <stddef.h>
#include <sbx/host.h>

#include "tests/support/log_capture.h"

/* A host whose backends log into `capture` (NULL: they log nothing).
 * The capture must outlive the host.  NULL (message on stderr) on failure;
 * else release with sbx_host_free after closing its backends. */
sbx_host *sbx_test_host_new(sbx_test_log_capture *capture);

/* Open the "remote" module (found on $SBX_MODULE_PATH, which the harness
 * points at the build) with provisioner_url=`url`, api_key=`api_key` (when
 * not NULL) and the `n_extra` options `extra` (borrowed; one with the key
 * provisioner_url or api_key replaces that option).  When *host is NULL a host without logging is created
 * into *host; the caller closes the backend, then frees *host.  Returns
 * the backend, or NULL with `err` filled. */
sbx_backend *sbx_test_open_remote(sbx_host **host, const char *url, const char *api_key,
                                  const sbx_option *extra, size_t n_extra, sbx_error *err);

#endif
