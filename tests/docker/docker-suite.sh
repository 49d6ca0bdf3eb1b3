#!/bin/sh
# Runs the docker backend's CUnit suite, then sbxctl's docker end-to-end
# suite, against a private podman engine (podman-env.sh), and always tears
# the engine down again.  Exit 77 (SKIP)
# with the reason when the engine cannot run here.
set -u
srcdir=${SBX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${SBX_TEST_BUILDDIR:-.}
env_script=$srcdir/tests/docker/podman-env.sh

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: the podman test engine needs root (rootful podman with private storage)" >&2
    exit 77
fi
# A short path: the engine's unix socket lives in it (108-byte limit).
dir=$(mktemp -d /tmp/sbx-podman.XXXXXX) || exit 1
settings=$("$env_script" start "$dir")
rc=$?
if [ "$rc" -ne 0 ]; then
    "$env_script" stop "$dir"
    exit "$rc"
fi
trap '"$env_script" stop "$dir"' EXIT
trap 'exit 1' INT TERM
eval "$settings"
export SBX_DOCKER_SOCKET SBX_DOCKER_IMAGE
"$builddir/tests/docker/test_docker_backend"
suite_rc=$?
# sbxctl end to end with --backend docker, against the same engine (the
# local half runs as its own TESTS entry).
SBX_E2E_BACKENDS=docker "$builddir/tests/sbxctl/test_sbxctl_local_docker"
e2e_rc=$?
[ "$suite_rc" -eq 0 ] && [ "$e2e_rc" -eq 0 ]
