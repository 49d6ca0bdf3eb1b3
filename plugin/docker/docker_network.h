/*
 * A docker sandbox's network (ABI 1.5's create member `network`,
 * docs/docker.md "Network"): egress and the default are the engine's
 * default network, whose published port is the sandbox's URL; none is
 * HostConfig.NetworkMode "none", a container with only its loopback,
 * which publishes nothing and so has no address (its URL is "").
 */
#ifndef SBX_DOCKER_NETWORK_H
#define SBX_DOCKER_NETWORK_H

#include <sbx/backend.h>

/* 1 when a sandbox created by `req` (read by common_create_request_read)
 * publishes its port, so that its URL answers; 0 with network none. */
int docker_network_publishes(const sbx_create_request *req);

/* Make *body, a create body of docker_create_body (owned by the caller),
 * the one for req->network: unchanged unless it is none; then the body
 * is replaced (the old one freed) by one with HostConfig.NetworkMode
 * "none" and no port exposed or published.  SBX_ERR_INTERNAL when out of
 * memory or when *body is not a JSON object (*body is kept then). */
sbx_status docker_network_apply(const sbx_create_request *req, char **body, sbx_error *err);

#endif
