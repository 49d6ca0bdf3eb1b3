/* Proxy-bypass decisions for control-plane hosts (see net_policy.h). */
#include <config.h>

#include "common/net_policy.h"

#include <sbx/backend_support.h>

#include <arpa/inet.h>
#include <curl/curl.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

static int has_suffix_nocase(const char *name, size_t len, const char *suffix)
{
    size_t slen = strlen(suffix);
    return len >= slen && strncasecmp(name + len - slen, suffix, slen) == 0;
}

static int ipv4_is_internal(const unsigned char a[4])
{
    return a[0] == 127 || a[0] == 10 || a[0] == 0 ||
           (a[0] == 172 && (a[1] & 0xF0) == 16) ||
           (a[0] == 192 && a[1] == 168) ||
           (a[0] == 169 && a[1] == 254);
}

static int ipv6_is_internal(const unsigned char a[16])
{
    static const unsigned char zero[16];
    static const unsigned char v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF };
    if (memcmp(a, zero, 15) == 0 && (a[15] == 1 || a[15] == 0))
        return 1;                              /* ::1 and :: */
    if ((a[0] & 0xFE) == 0xFC)
        return 1;                              /* fc00::/7 unique local */
    if (a[0] == 0xFE && (a[1] & 0xC0) == 0x80)
        return 1;                              /* fe80::/10 link-local */
    if (memcmp(a, v4mapped, sizeof v4mapped) == 0)
        return ipv4_is_internal(a + 12);
    return 0;
}

int common_host_bypasses_proxy(const char *host)
{
    if (host == NULL)
        return 0;
    size_t len = strlen(host);
    if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
        host++;
        len -= 2;
    }
    while (len > 0 && host[len - 1] == '.')
        len--;
    char name[256];
    if (len == 0 || len >= sizeof name)
        return 0;
    memcpy(name, host, len);
    name[len] = '\0';
    char *zone = strchr(name, '%');            /* fe80::1%eth0 */
    if (zone != NULL)
        *zone = '\0';

    unsigned char addr[16];
    if (inet_pton(AF_INET, name, addr) == 1)
        return ipv4_is_internal(addr);
    if (inet_pton(AF_INET6, name, addr) == 1)
        return ipv6_is_internal(addr);

    /* A name of one label (no dot) is resolved by this machine's resolver
     * and search domains: a docker compose service ("provisioner", DeerFlow's
     * default), a Kubernetes service of the same namespace, an /etc/hosts
     * entry.  A proxy elsewhere would resolve it differently or not at all. */
    if (strchr(name, '.') == NULL)
        return 1;
    len = strlen(name);
    return has_suffix_nocase(name, len, ".localhost") ||
           has_suffix_nocase(name, len, ".svc") ||
           has_suffix_nocase(name, len, ".cluster.local") ||
           has_suffix_nocase(name, len, ".docker.internal") ||
           has_suffix_nocase(name, len, ".containers.internal");
}

sbx_status common_url_host_bypasses_proxy(const char *url, int *bypass, sbx_error *err)
{
    *bypass = 0;
    CURLU *u = curl_url();
    if (u == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    char *host = NULL;
    CURLUcode rc = curl_url_set(u, CURLUPART_URL, url, 0);
    if (rc == CURLUE_OK)
        rc = curl_url_get(u, CURLUPART_HOST, &host, 0);
    curl_url_cleanup(u);
    if (rc != CURLUE_OK)
        return sbx_backend_error_set(err, SBX_ERR_CONFIG, "cannot find a host in the base URL");
    *bypass = common_host_bypasses_proxy(host);
    curl_free(host);
    return SBX_OK;
}
