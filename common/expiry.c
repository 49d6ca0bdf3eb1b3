/* Sandbox expiry checks shared by the host and the backends (see expiry.h). */
#include <config.h>

#include "common/expiry.h"

#include <sbx/backend_support.h>

#include <time.h>

int64_t common_epoch_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

sbx_status common_expiry_check_future(const char *what, int64_t expires_at, int64_t now_ms,
                                      sbx_error *err)
{
    if (expires_at > now_ms)
        return SBX_OK;
    return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                 "%s: expires_at %lld is not in the future "
                                 "(now %lld ms since the epoch)",
                                 what, (long long)expires_at, (long long)now_ms);
}

int common_expiry_passed(int64_t expires_at, int64_t now_ms)
{
    return expires_at != SBX_TIME_UNKNOWN && now_ms >= expires_at;
}
