/*
 * A local sandbox's network (docs/local.md, "Network per sandbox"): the
 * create request's `network` against the options `isolation` and
 * `network`, and what the sandbox's record keeps of it, so that every
 * exec, process and command of the sandbox gets the network its create
 * chose whatever the options say later.
 */
#ifndef SBX_LOCAL_NET_H
#define SBX_LOCAL_NET_H

#include "plugin/local/local_metadata.h"
#include "plugin/local/local_options.h"

/* SBX_ERR_UNSUPPORTED, naming the sandbox and why, when the request's
 * network cannot be honoured with these options (network none without
 * isolation=namespaces, which alone gives a sandbox a network namespace
 * of its own); SBX_OK otherwise.  Nothing is made. */
sbx_status local_net_check(const local_options *options, const sbx_create_request *req,
                           sbx_error *err);

/* The record's "network" member for a sandbox created by `req` (checked by
 * local_net_check): LOCAL_NET_RECORDED(LOCAL_NETWORK_*) with
 * isolation=namespaces, 0 without (the sandbox is on the host's network,
 * whatever the record says). */
int local_net_for_record(const local_options *options, const sbx_create_request *req);

/* local_metadata.network of a sandbox with network `mode` (LOCAL_NETWORK_*),
 * and back: 0 stands for a record without the member. */
#define LOCAL_NET_RECORDED(mode) ((mode) + 1)
#define LOCAL_NET_OF_RECORDED(recorded) ((recorded) - 1)

/* The network (LOCAL_NETWORK_*) the sandbox of record `meta` has: the
 * record's, else (a record of an older backend) the option's. */
int local_net_of(const local_options *options, const local_metadata *meta);

#endif
