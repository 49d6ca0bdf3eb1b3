/* Which backend takes an option the selected backend does not know, so that
 * `--set provisioner_url=...` without `--backend remote` says what the user
 * most likely meant. */
#ifndef CTL_OPTION_HINTS_H
#define CTL_OPTION_HINTS_H

#include <stddef.h>
#include <sbx/host.h>

#include "common/option_table.h"

/* Table `index` of those the hints come from, in the order they name
 * them: the remote and docker backends' own option tables
 * (plugin/remote/remote_options.c, plugin/docker/docker_options.c), so
 * that a hint names exactly the keys a backend takes.  Static data; NULL
 * past the last. */
const common_option_table *ctl_known_backend_table(size_t index);

/* When `err` (from opening `backend` with `options`) says one of the option
 * keys is unknown and another backend of the table takes it, add
 * "did you mean --backend NAME?" to its message (cutting the message when
 * the whole would not fit).  Otherwise `err` is left as it is. */
void ctl_hint_backend(sbx_error *err, const char *backend, const sbx_option *options,
                          size_t count);

#endif
