/* Which backend takes an option the selected backend does not know, so that
 * `--set provisioner_url=...` without `--backend remote` says what the user
 * most likely meant. */
#ifndef CTL_OPTION_HINTS_H
#define CTL_OPTION_HINTS_H

#include <stddef.h>
#include <sbx/host.h>

/* The options one shipped backend takes (static data). */
typedef struct ctl_backend_options {
    const char *backend;
    const char *const *keys;    /* NULL-terminated */
} ctl_backend_options;

/* The table the hints come from: the options of the remote and docker
 * backends.  Sets *count; the entries are static. */
const ctl_backend_options *ctl_known_backend_options(size_t *count);

/* When `err` (from opening `backend` with `options`) says one of the option
 * keys is unknown and another backend of the table takes it, add
 * "did you mean --backend NAME?" to its message (cutting the message when
 * the whole would not fit).  Otherwise `err` is left as it is. */
void ctl_hint_backend(sbx_error *err, const char *backend, const sbx_option *options,
                          size_t count);

#endif
