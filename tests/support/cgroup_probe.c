/* Test support: the resource limit suites' probe (cgroup_probe.h). */
#include <config.h>

#include "tests/support/cgroup_probe.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

int sbx_test_cgroup_limits_possible(void)
{
    FILE *in = fopen("/proc/mounts", "re");
    char line[1024];
    int seen = 0;
    while (in != NULL && fgets(line, sizeof line, in) != NULL)
        if (strstr(line, " cgroup") != NULL)
            seen |= (strstr(line, "memory") != NULL) | (strstr(line, "pids") != NULL) << 1 |
                    (strstr(line, "cpu") != NULL) << 2 |
                    (strstr(line, "cgroup2") != NULL) << 3;
    if (in != NULL)
        fclose(in);
    return geteuid() == 0 && ((seen & 7) == 7 || (seen & 8) != 0);
}
