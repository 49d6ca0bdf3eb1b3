/* Enumerating every backend a host can load (for `sbxctl backends`). */
#include <config.h>

#include "host-api/src/host_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Load every *.so in `dir`; refused modules are logged and skipped because a
 * listing must show what works, not stop at the first broken file. */
static void load_modules_in(sbx_host *host, const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0)
            continue;
        /* Fits: dir is at most HOST_MODULE_DIR_MAX, d_name at most NAME_MAX. */
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        const host_known_backend *known;
        sbx_error err;
        if (host_load_file(host, path, &known, &err) != SBX_OK)
            host_log(host, SBX_LOG_WARN, "%s", err.message);
    }
    closedir(d);
}

sbx_status sbx_host_list_backends(sbx_host *host, const sbx_backend_info **out, size_t *count,
                                  sbx_error *err)
{
    sbx_error_clear(err);
    char **dirs;
    size_t dir_count;
    sbx_status st = host_module_search_path(host, &dirs, &dir_count, err);
    if (st != SBX_OK)
        return st;
    for (size_t i = 0; i < dir_count; i++)
        load_modules_in(host, dirs[i]);
    host_strv_free(dirs, dir_count);

    sbx_backend_info *listing = calloc(host->known_count ? host->known_count : 1, sizeof *listing);
    if (listing == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < host->known_count; i++) {
        const host_known_backend *k = &host->known[i];
        listing[i] = (sbx_backend_info){
            .name = k->descriptor->name, .kind = k->kind, .path = k->path,
            .abi_major = k->descriptor->abi_major, .abi_minor = k->descriptor->abi_minor,
            .version = k->descriptor->version};
    }
    free(host->listing);
    host->listing = listing;
    host->listing_count = host->known_count;
    *out = listing;
    *count = host->known_count;
    return SBX_OK;
}
