#!/bin/sh
# The remote backend's seed suites (tests/remote/test_seed_*) a second
# time, against sbx-provisiond instead of the emulator: the fixture's
# daemon switch (SBX_RT_PROVISIOND) runs every case that is meaningful
# against a real provisioner and says which it skips (SEED_MAP.md says
# why): over the local backend, then the extra-mount cases over the docker
# backend on a private podman engine (tests/docker/podman-env.sh; as root,
# else those are reported as not run).  Fails when a suite fails or when
# fewer cases than the fixture's table ran against the daemon.
set -u
srcdir=${SBX_TEST_SRCDIR:?SBX_TEST_SRCDIR is not set (run through make check)}
builddir=${SBX_TEST_BUILDDIR:?SBX_TEST_BUILDDIR is not set (run through make check)}
status=0

# run MODE SUITE...: each suite against the daemon over MODE's backend;
# sets `ran` to how many cases ran against it (and `status` on a failure:
# run is called in this shell, never in a command substitution, whose
# subshell would drop the failure).
run() {
    mode=$1
    shift
    ran=0
    for suite in "$@"; do
        out=$(SBX_RT_PROVISIOND=$mode "$builddir/tests/remote/$suite" 2>&1)
        rc=$?
        printf '%s\n' "$out"
        [ "$rc" -eq 0 ] || { echo "FAIL: $suite against sbx-provisiond over $mode (exit $rc)"; status=1; }
        n=$(printf '%s\n' "$out" | grep -o "(against sbx-provisiond over $mode)" | wc -l)
        ran=$((ran + n))
    done
}

expect() {
    echo "seed cases run against sbx-provisiond over $1: $2 (the fixture's table: $3)"
    [ "$2" -eq "$3" ] || { echo "FAIL: $2 of the $3 cases over $1 ran"; status=1; }
}

run local test_seed_list test_seed_create test_seed_contract test_seed_lifecycle \
    test_seed_reconcile
expect local "$ran" 21

if [ "$(id -u)" -ne 0 ]; then
    echo "NOT RUN: the 3 extra-mount cases over the docker backend: the podman test engine needs root"
    exit $status
fi
# A short path: the engine's unix socket lives in it (108-byte limit).
dir=$(mktemp -d /tmp/sbx-seed.XXXXXX) || exit 1
settings=$("$srcdir/tests/docker/podman-env.sh" start "$dir")
rc=$?
if [ "$rc" -ne 0 ]; then
    "$srcdir/tests/docker/podman-env.sh" stop "$dir"
    echo "NOT RUN: the 3 extra-mount cases over the docker backend: the engine did not start (exit $rc)"
    exit $status
fi
eval "$settings"
export SBX_DOCKER_SOCKET SBX_DOCKER_IMAGE
run docker test_seed_create
"$srcdir/tests/docker/podman-env.sh" stop "$dir"
expect docker "$ran" 3
exit $status
