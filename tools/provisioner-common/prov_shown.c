/* Requests named with their tokens masked (see prov_shown.h). */
#include <config.h>

#include "tools/provisioner-common/prov_shown.h"

#include "common/redact.h"

void prov_shown_request(const char *method, const char *path, char *out, size_t cap)
{
    size_t used = common_redact_tokens(method, out, cap);
    if (used + 2 < cap) {
        out[used++] = ' ';
        common_redact_tokens(path, out + used, cap - used);
    }
}
