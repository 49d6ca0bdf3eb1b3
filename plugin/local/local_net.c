/* A local sandbox's network chosen at create (see local_net.h). */
#include <config.h>

#include "plugin/local/local_net.h"

#include "plugin/local/local_isolation.h"

#include <sbx/backend_support.h>

sbx_status local_net_check(const local_options *options, const sbx_create_request *req,
                           sbx_error *err)
{
    if (req->network != SBX_NETWORK_NONE ||
        options->isolation.mode == LOCAL_ISOLATION_NAMESPACES)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                 "local: cannot create sandbox '%s' with network none: "
                                 "this backend runs sandboxes with isolation=none, on the "
                                 "host's network; only isolation=namespaces gives a sandbox "
                                 "a network namespace of its own", req->sandbox_id);
}

int local_net_for_record(const local_options *options, const sbx_create_request *req)
{
    if (options->isolation.mode != LOCAL_ISOLATION_NAMESPACES)
        return 0;
    int configured = options->isolation.network;
    int mode = configured;
    /* Egress exists only as the host's own network: there is no address
     * of the sandbox's to route. */
    if (req->network == SBX_NETWORK_EGRESS)
        mode = LOCAL_NETWORK_HOST;
    /* Both of the others keep the sandbox on its own loopback; forward
     * still lets the host reach the command, as host did. */
    else if (req->network == SBX_NETWORK_NONE && configured == LOCAL_NETWORK_HOST)
        mode = LOCAL_NETWORK_FORWARD;
    return LOCAL_NET_RECORDED(mode);
}

int local_net_of(const local_options *options, const local_metadata *meta)
{
    return meta->network != 0 ? LOCAL_NET_OF_RECORDED(meta->network)
                              : options->isolation.network;
}
