/* sbxctl's resource options (see resource_args.h). */
#include <config.h>

#include "tools/sbxctl/resource_args.h"

#include <sbx/host.h>

#include <errno.h>
#include <math.h>  /* isfinite, a macro: no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The power of 1024 a unit suffix stands for; -1 when it is none of them. */
static int unit_power(const char *suffix)
{
    static const char *const units[][3] = {
        { "", "B", NULL }, { "K", "KiB", "KB" }, { "M", "MiB", "MB" },
        { "G", "GiB", "GB" }, { "T", "TiB", "TB" },
    };
    for (int power = 0; power < 5; power++)
        for (int i = 0; i < 3 && units[power][i] != NULL; i++)
            if (strcasecmp(suffix, units[power][i]) == 0)
                return power;
    return -1;
}

/* SIZE of option `option` into *bytes; below `least` (spelled `least_text`
 * in the message) is refused too. */
static sbx_status parse_size(const char *option, const char *text, int64_t least,
                             const char *least_text, int64_t *bytes, sbx_error *err)
{
    char *end = NULL;
    errno = 0;
    double number = strtod(text, &end);
    int power = end != text ? unit_power(end) : -1;
    double value = power >= 0 ? number : 0;
    for (int i = 0; i < power; i++)
        value *= 1024;
    if (errno != 0 || power < 0 || !(value >= 0) || value > 9.0e18 || !isfinite(number))
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "option '%s' needs a size such as 512M or 2G (bytes, or K, "
                             "M, G, T: powers of 1024), got '%s'", option, text);
    if (value < (double)least)
        return sbx_error_set(err, SBX_ERR_USAGE, "option '%s' needs at least %s, got '%s'",
                             option, least_text, text);
    *bytes = (int64_t)value;
    return SBX_OK;
}

sbx_status ctl_parse_memory(const char *text, int64_t *bytes, sbx_error *err)
{
    /* The figure is spelled out so that the message cannot drift from it. */
    char least[48];
    snprintf(least, sizeof least, "6M (%lld bytes)", (long long)SBX_MEMORY_MIN_BYTES);
    return parse_size("--memory", text, SBX_MEMORY_MIN_BYTES, least, bytes, err);
}

sbx_status ctl_parse_disk(const char *text, int64_t *bytes, sbx_error *err)
{
    return parse_size("--disk", text, 1, "1 byte", bytes, err);
}

sbx_status ctl_parse_network(const char *text, sbx_network *network, sbx_error *err)
{
    if (strcmp(text, "none") == 0)
        *network = SBX_NETWORK_NONE;
    else if (strcmp(text, "egress") == 0)
        *network = SBX_NETWORK_EGRESS;
    else
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "option '--network' needs 'none' (loopback only) or 'egress' "
                             "(outbound connections), got '%s'", text);
    return SBX_OK;
}

sbx_status ctl_parse_cpus(const char *text, int64_t *millicores, sbx_error *err)
{
    char *end = NULL;
    errno = 0;
    double cores = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0' || !(cores * 1000 >= 1) || cores > 1e6)
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "option '--cpus' needs a number of cores above 0 such as 1.5 (at "
                             "least 0.001), got '%s'", text);
    *millicores = (int64_t)(cores * 1000 + 0.5);
    return SBX_OK;
}

sbx_status ctl_parse_pids(const char *text, int64_t *pids, sbx_error *err)
{
    char *end = NULL;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < 1)
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "option '--pids' needs a whole number of processes of at least 1, "
                             "got '%s'", text);
    *pids = value;
    return SBX_OK;
}
