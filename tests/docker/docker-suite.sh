#!/bin/sh
# docker-suite.sh ENGINE: runs the docker backend's CUnit suites (its
# operations also through sbx-provisiond, the host library's sessions and
# the network and OOM suite on dockerd), then the backend contract (tests/backend-contract), sbxctl's
# docker end-to-end suite and the backend's create under allocation failures
# (tests/alloc-fail/test_docker_oom), against a private engine, ENGINE being
# podman (podman-env.sh) or dockerd (dockerd-env.sh); then the init tests
# against a second private engine of that kind that has no init binary.
# Always tears the engines down again.  Exit 77 (SKIP) with the reason when
# the engine cannot run here.
set -u
srcdir=${SBX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${SBX_TEST_BUILDDIR:-.}
engine_kind=${1:-podman}
case "$engine_kind" in
    podman) env_script=$srcdir/tests/docker/podman-env.sh; docker_kind=podman ;;
    dockerd) env_script=$srcdir/tests/docker/dockerd-env.sh; docker_kind=docker ;;
    *) echo "usage: $0 podman|dockerd" >&2; exit 1 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: the $engine_kind test engine needs root (a private engine with its own storage)" >&2
    exit 77
fi

# run_with_engine [no-init]: start an engine, run the suites for it, stop
# it.  Returns the suites' status, or 77 when the engine cannot run.
run_with_engine() {
    # A short path: the engine's unix socket lives in it (108-byte limit).
    dir=$(mktemp -d "/tmp/sbx-$engine_kind.XXXXXX") || return 1
    settings=$("$env_script" start "$dir" "$@")
    rc=$?
    if [ "$rc" -ne 0 ]; then
        "$env_script" stop "$dir"
        return "$rc"
    fi
    trap '"$env_script" stop "$dir"' EXIT
    eval "$settings"
    if [ "${1:-}" = no-init ]; then
        SBX_DOCKER_ENGINE_INIT=no
    else
        SBX_DOCKER_ENGINE_INIT=yes
    fi
    SBX_DOCKER_ENGINE=$docker_kind
    # The process helper of this build (not yet installed), by an absolute
    # path: sbx-provisiond and sbxctl may run elsewhere.
    SBX_DOCKER_PTY_HELPER=$(cd "$builddir" && pwd)/plugin/docker/sbx-docker-pty
    export SBX_DOCKER_SOCKET SBX_DOCKER_IMAGE SBX_DOCKER_ENGINE_INIT SBX_DOCKER_ENGINE \
        SBX_DOCKER_PTY_HELPER
    "$builddir/tests/docker/test_docker_backend"
    rc=$?
    # The sandbox operations need the engine's init no more than create.
    if [ "$SBX_DOCKER_ENGINE_INIT" = yes ]; then
        "$builddir/tests/docker/test_docker_ops" || rc=1
        "$builddir/tests/docker/test_docker_processes" || rc=1
        "$builddir/tests/docker/test_docker_proc_server" || rc=1
        # The host library's session cases (tests/host/session_cases.*), on
        # one engine: they run over the process calls, which the suites
        # above and the contract prove on both (and they cost minutes).
        if [ "$engine_kind" = dockerd ]; then
            "$builddir/tests/docker/test_docker_sessions" || rc=1
            "$builddir/tests/docker/test_docker_network" || rc=1
            # Expiry waits on the wall clock: once is enough.
            "$builddir/tests/docker/test_docker_expiry" || rc=1
        fi
        "$builddir/tests/docker/test_docker_spec" || rc=1
        # The same operations through remote -> sbx-provisiond -> docker,
        # the containers a plain image's (docs/provisiond.md).
        "$builddir/tests/provisiond/test_provisiond_docker_ops" || rc=1
    fi
    # sbxctl end to end with --backend docker, against the same engine (the
    # local half runs as its own TESTS entry).
    if [ "$SBX_DOCKER_ENGINE_INIT" = yes ]; then
        # The backend contract, the cases every backend of the tree passes.
        SBX_CONTRACT_BACKENDS=docker "$builddir/tests/backend-contract/test_backend_contract" \
            || rc=1
        SBX_E2E_BACKENDS=docker "$builddir/tests/sbxctl/test_sbxctl_local_docker" || rc=1
        # create and create_record under allocation failures (not built in
        # sanitizer builds: ASan brings its own allocator).
        if [ -x "$builddir/tests/alloc-fail/test_docker_oom" ]; then
            "$builddir/tests/alloc-fail/test_docker_oom" || rc=1
        else
            echo "(tests/alloc-fail/test_docker_oom not built: a sanitizer build)"
        fi
    fi
    "$env_script" stop "$dir"
    trap - EXIT
    return "$rc"
}

trap 'exit 1' INT TERM
run_with_engine
with_init=$?
[ "$with_init" -eq 77 ] && exit 77
echo "--- $engine_kind without an init binary"
run_with_engine no-init
without_init=$?
if [ "$without_init" -eq 77 ]; then
    echo "(engine without an init binary: skipped, see the SKIP line above)"
    without_init=0
fi
[ "$with_init" -eq 0 ] && [ "$without_init" -eq 0 ]
