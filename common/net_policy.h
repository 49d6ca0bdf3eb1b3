/*
 * Which hosts control-plane traffic must reach directly, never through a
 * proxy from the environment: a proxy in front of a loopback, private,
 * link-local or cluster-local host answers misleading 502s.
 */
#ifndef SBX_COMMON_NET_POLICY_H
#define SBX_COMMON_NET_POLICY_H

#include <sbx/backend.h>

/* 1 when `host` (a name, an IPv4 literal, or an IPv6 literal with or without
 * brackets) is loopback (127/8, ::1), private (10/8, 172.16/12, 192.168/16,
 * fc00::/7), link-local (169.254/16, fe80::/10), unspecified, a name of a
 * single label (`localhost`, `provisioner`: a compose service or search-domain
 * name) or a name under .localhost, .svc, .cluster.local, .docker.internal or
 * .containers.internal (case-insensitive, a trailing dot ignored); else 0.
 * Pure function. */
int common_host_bypasses_proxy(const char *host);

/* Extract the host of `url` and apply common_host_bypasses_proxy, storing the
 * answer in *bypass.  SBX_ERR_CONFIG when the URL cannot be parsed. */
sbx_status common_url_host_bypasses_proxy(const char *url, int *bypass, sbx_error *err);

#endif /* SBX_COMMON_NET_POLICY_H */
