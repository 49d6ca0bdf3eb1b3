/* The provisioners' shared command-line values (see prov_cli.h). */
#include <config.h>

#include "tools/provisioner-common/prov_cli.h"

#include "common/secret_file.h"
#include "tools/provisioner-common/prov_server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int prov_cli_number(const char *prog, const char *option, const char *text, unsigned long min,
                    unsigned long max, unsigned long *out)
{
    char *end = NULL;
    errno = 0;
    /* strtoul takes a sign and leading blanks: only digits are a number here. */
    unsigned long value = text[0] >= '0' && text[0] <= '9' ? strtoul(text, &end, 10) : 0;
    if (end == NULL || errno != 0 || *end != '\0' || value < min || value > max) {
        fprintf(stderr, "%s: %s wants an integer from %lu to %lu, not '%s'\n", prog, option, min,
                max, text);
        return 0;
    }
    *out = value;
    return 1;
}

int prov_cli_read_tls(const char *prog, const char *cert_path, const char *key_path,
                      char **cert, char **key)
{
    char why[512];
    *cert = prov_read_pem(cert_path, why, sizeof why);
    *key = *cert != NULL ? prov_read_pem(key_path, why, sizeof why) : NULL;
    if (*key != NULL)
        return 1;
    fprintf(stderr, "%s: %s %s\n", prog, *cert == NULL ? "--tls-cert" : "--tls-key", why);
    free(*cert);
    *cert = NULL;
    return 0;
}

void prov_cli_tls_free(char *cert, char *key)
{
    if (key != NULL)
        memset(key, 0, strlen(key));
    free(key);
    free(cert);
}

int prov_cli_key_file(const char *prog, const char *option, const char *path, char **slot)
{
    char why[160];
    char *key = NULL;
    if (!common_secret_file_read(path, &key, why, sizeof why)) {
        fprintf(stderr, "%s: %s %s %s\n", prog, option, path, why);
        return 0;
    }
    common_secret_free(*slot);
    *slot = key;
    return 1;
}
