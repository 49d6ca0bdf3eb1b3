/* Test support: whether this machine can run the resource limit cases
 * (the local backend's cgroups), so that their suites skip saying why
 * rather than fail where no controller is usable. */
#ifndef SBX_TEST_CGROUP_PROBE_H
#define SBX_TEST_CGROUP_PROBE_H

/* 1 when running as root with the memory, cpu and pids controllers of
 * cgroup v1 mounted, or a cgroup2 mount, in /proc/mounts; else 0. */
int sbx_test_cgroup_limits_possible(void);

#endif
