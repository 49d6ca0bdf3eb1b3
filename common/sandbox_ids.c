/* Identifier validation shared by the backends (see sandbox_ids.h). */
#include <config.h>

#include "common/sandbox_ids.h"

#include "common/printable.h"

#include <sbx/backend_support.h>

#include <string.h>

static int is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

int common_sandbox_id_is_valid(const char *id)
{
    if (id == NULL)
        return 0;
    size_t len = strlen(id);
    if (len == 0 || len > COMMON_SANDBOX_ID_MAX)
        return 0;
    if (!is_lower_alnum(id[0]) || !is_lower_alnum(id[len - 1]))
        return 0;
    for (size_t i = 1; i + 1 < len; i++) {
        if (!is_lower_alnum(id[i]) && id[i] != '-')
            return 0;
    }
    return 1;
}

int common_principal_id_is_valid(const char *id)
{
    if (id == NULL)
        return 0;
    size_t len = strlen(id);
    if (len == 0 || len > COMMON_PRINCIPAL_ID_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = id[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                 (c >= '0' && c <= '9') || c == '_' || c == '-';
        if (!ok)
            return 0;
    }
    return 1;
}

sbx_status common_check_sandbox_id(const char *id, sbx_error *err)
{
    if (common_sandbox_id_is_valid(id))
        return SBX_OK;
    char shown[80];
    return sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                 "invalid sandbox_id '%s': must be a DNS label (lower-case "
                                 "letters, digits and '-', starting and ending with a letter "
                                 "or digit) of at most %d characters",
                                 common_printable(id, shown, sizeof shown), COMMON_SANDBOX_ID_MAX);
}

sbx_status common_check_principal_id(const char *field, const char *id, sbx_error *err)
{
    if (id == NULL || common_principal_id_is_valid(id))
        return SBX_OK;
    char shown[80];
    return sbx_backend_error_set(
        err, SBX_ERR_REFUSED,
        "invalid %s '%s': must match ^[A-Za-z0-9_-]{1,%d}$",
        field, common_printable(id, shown, sizeof shown), COMMON_PRINCIPAL_ID_MAX);
}
