/* The host ids of a sandbox's processes (see local_isolation_ids.h). */
#include <config.h>

#include "plugin/local/local_isolation_ids.h"

#include <sbx/backend_support.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first id of root's range in `file` (lines "NAME:FIRST:COUNT",
 * root named or numbered); -1 when there is none. */
static long subordinate_first(const char *file)
{
    FILE *in = fopen(file, "re");
    if (in == NULL)
        return -1;
    char line[256];
    long first = -1;
    while (first < 0 && fgets(line, sizeof line, in) != NULL) {
        char *save = NULL, *name = strtok_r(line, ":", &save);
        char *start = strtok_r(NULL, ":", &save), *count = strtok_r(NULL, ":\n", &save);
        if (name == NULL || start == NULL || count == NULL ||
            (strcmp(name, "root") != 0 && strcmp(name, "0") != 0))
            continue;
        char *end;
        errno = 0;
        long value = strtol(start, &end, 10);
        if (errno == 0 && *end == '\0' && value > 0 && value < 4294967295L &&
            strtol(count, NULL, 10) > 0)
            first = value;
    }
    fclose(in);
    return first;
}

/* The id a root host's sandboxes get: the option's, root's subordinate
 * one, or the default. */
static long root_host_id(long configured, const char *subordinate_file)
{
    if (configured >= 0)
        return configured;
    long first = subordinate_first(subordinate_file);
    return first > 0 ? first : LOCAL_ISOLATION_DEFAULT_ID;
}

sbx_status local_isolation_ids_resolve(local_isolation_options *options, sbx_error *err)
{
    long own_uid = (long)geteuid(), own_gid = (long)getegid();
    if (own_uid == 0 && options->mode == LOCAL_ISOLATION_NAMESPACES) {
        options->switch_ids = 1;
        options->host_uid = root_host_id(options->host_uid, "/etc/subuid");
        options->host_gid = root_host_id(options->host_gid, "/etc/subgid");
        return SBX_OK;
    }
    const char *key = options->host_uid >= 0 && options->host_uid != own_uid ? "sandbox_uid"
                      : options->host_gid >= 0 && options->host_gid != own_gid ? "sandbox_gid"
                                                                               : NULL;
    if (key != NULL && own_uid != 0)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG, "option '%s': only a host running "
                                     "as root can run its sandboxes as another user (this "
                                     "host runs as uid %ld, gid %ld)", key, own_uid, own_gid);
    options->switch_ids = 0;
    options->host_uid = own_uid;
    options->host_gid = own_gid;
    return SBX_OK;
}

sbx_status local_isolation_ids_own(const local_isolation_options *options, const char *path,
                                   sbx_error *err)
{
    if (!options->switch_ids ||
        chown(path, (uid_t)options->host_uid, (gid_t)options->host_gid) == 0)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED, "isolation=namespaces: cannot give "
                                 "%s to uid %ld, gid %ld, the ids its sandbox runs as on this "
                                 "root host: %s (set the options sandbox_uid and sandbox_gid, "
                                 "or give root a range in /etc/subuid and /etc/subgid, to ids "
                                 "this host can use)", path, options->host_uid,
                                 options->host_gid, strerror(errno));
}
