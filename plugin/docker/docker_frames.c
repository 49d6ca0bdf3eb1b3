/* The multiplexed exec stream decoder (see docker_frames.h). */
#include <config.h>

#include "plugin/docker/docker_frames.h"

void docker_frames_init(docker_frames *d, docker_frames_fn deliver, void *ctx)
{
    d->header_len = 0;
    d->left = 0;
    d->stream = 0;
    d->deliver = deliver;
    d->ctx = ctx;
}

int docker_frames_feed(docker_frames *d, const char *bytes, size_t n)
{
    while (n > 0) {
        if (d->left == 0) {
            d->header[d->header_len++] = (unsigned char)*bytes++;
            n--;
            if (d->header_len < sizeof d->header)
                continue;
            d->header_len = 0;
            const unsigned char *h = d->header;
            if (h[0] > DOCKER_STREAM_SYSTEM || h[1] != 0 || h[2] != 0 || h[3] != 0)
                return -1;
            d->stream = h[0] == 0 ? DOCKER_STREAM_STDOUT : h[0];
            d->left = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
            continue;
        }
        size_t take = n < d->left ? n : d->left;
        int rc = d->deliver(d->ctx, d->stream, bytes, take);
        if (rc != 0)
            return rc;
        bytes += take;
        n -= take;
        d->left -= (uint32_t)take;
    }
    return 0;
}

int docker_frames_complete(const docker_frames *d)
{
    return d->left == 0 && d->header_len == 0;
}
