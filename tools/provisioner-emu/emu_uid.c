/* Random uids: only uniqueness matters (tests compare them, never parse). */
#include <config.h>

#include "tools/provisioner-emu/emu_uid.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>

void emu_uid_generate(char out[EMU_UID_LEN + 1])
{
    uint8_t b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t n = getrandom(b + got, sizeof b - got, 0);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    if (got < sizeof b) {
        /* No entropy source: a clock-derived value still differs per call. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        static _Atomic unsigned counter;
        uint64_t seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ++counter;
        for (size_t i = 0; i < sizeof b; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            b[i] = (uint8_t)(seed >> 56);
        }
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, EMU_UID_LEN + 1,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
             b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}
