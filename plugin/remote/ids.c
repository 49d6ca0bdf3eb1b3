/* Identifier checks (see ids.h). */
#include "plugin/remote/ids.h"

#include <sbx/host.h>

#include <string.h>

const char *sbx_remote_printable(const char *value, char *buf, size_t cap)
{
    const size_t max_chars = 64;
    size_t n = 0;
    if (cap == 0)
        return buf;
    if (value == NULL)
        value = "";
    for (; value[n] != '\0' && n < max_chars && n + 4 < cap; n++) {
        unsigned char ch = (unsigned char)value[n];
        buf[n] = (ch >= 0x20 && ch < 0x7F) ? (char)ch : '?';
    }
    if (value[n] != '\0' && n + 4 <= cap) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

static int is_lower_alnum(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
}

static int is_name_char(char ch)
{
    return is_lower_alnum(ch) || (ch >= 'A' && ch <= 'Z') || ch == '_' || ch == '-';
}

sbx_status sbx_remote_check_sandbox_id(const char *id, sbx_error *err)
{
    char shown[80];
    if (id == NULL || id[0] == '\0')
        return sbx_error_set(err, SBX_ERR_REFUSED, "invalid sandbox_id '': must not be empty");
    size_t len = strlen(id);
    int ok = len <= SBX_REMOTE_SANDBOX_ID_MAX && is_lower_alnum(id[0]) &&
             is_lower_alnum(id[len - 1]);
    for (size_t i = 0; ok && i < len; i++)
        ok = is_lower_alnum(id[i]) || id[i] == '-';
    if (!ok)
        return sbx_error_set(err, SBX_ERR_REFUSED,
                             "invalid sandbox_id '%s': must be a DNS label (lowercase "
                             "letters, digits and '-', starting and ending with a letter "
                             "or digit) of at most %d characters",
                             sbx_remote_printable(id, shown, sizeof shown),
                             SBX_REMOTE_SANDBOX_ID_MAX);
    return SBX_OK;
}

sbx_status sbx_remote_check_name_id(const char *field, const char *id, sbx_error *err)
{
    char shown[80];
    size_t len = id == NULL ? 0 : strlen(id);
    int ok = len >= 1 && len <= SBX_REMOTE_NAME_ID_MAX;
    for (size_t i = 0; ok && i < len; i++)
        ok = is_name_char(id[i]);
    if (!ok)
        return sbx_error_set(err, SBX_ERR_REFUSED,
                             "invalid %s '%s': must match ^[A-Za-z0-9_-]{1,%d}$", field,
                             sbx_remote_printable(id, shown, sizeof shown),
                             SBX_REMOTE_NAME_ID_MAX);
    return SBX_OK;
}
