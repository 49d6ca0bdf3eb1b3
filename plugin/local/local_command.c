/* `command` placeholders (see local_command.h). */
#include <config.h>

#include "plugin/local/local_command.h"

#include "common/dynbuf.h"
#include "common/shell_quote.h"

#include <sbx/backend_support.h>

#include <stdlib.h>
#include <string.h>

sbx_status local_command_expand(const char *command, int port, const char *dir,
                                char **out, sbx_error *err)
{
    common_dynbuf b;
    common_dynbuf_init(&b, 0);
    common_dynbuf_add(&b, "", 0);
    for (const char *p = command; *p != '\0';) {
        if (strncmp(p, "{port}", 6) == 0) {
            common_dynbuf_addf(&b, "%d", port);
            p += 6;
        } else if (strncmp(p, "{dir}", 5) == 0) {
            common_shell_quote(&b, dir);
            p += 5;
        } else {
            common_dynbuf_add(&b, p, 1);
            p++;
        }
    }
    if (b.failed != COMMON_DYNBUF_OK) {
        common_dynbuf_free(&b);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    *out = common_dynbuf_take(&b, NULL);
    return SBX_OK;
}
