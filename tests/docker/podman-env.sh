#!/bin/sh
# A private Docker-API engine for the docker backend's tests: podman's API
# service with its own configuration and storage under DIR, so that nothing
# of the machine's own podman setup (/etc, /var/lib/containers) is touched.
# See docs/docker.md ("Testing with podman") for why each setting is here.
#
#   podman-env.sh start DIR [no-init]
#                             prepare DIR, start the service, import the
#                             busybox image; prints the shell assignments
#                               SBX_DOCKER_SOCKET=DIR/podman.sock
#                               SBX_DOCKER_IMAGE=localhost/sbx-busybox:latest
#                             With no-init, the service runs in a
#                             private mount namespace where catatonit is
#                             hidden: an engine without an init binary, as
#                             on a machine without the catatonit package.
#                             Exits 77 (automake's SKIP) with one line on
#                             stderr saying why when the engine cannot run.
#   podman-env.sh stop DIR    remove every container, stop the service,
#                             wait for podman's cleanup helpers, unmount
#                             what storage left mounted, delete DIR.
set -u

IMAGE=localhost/sbx-busybox:latest
. "$(dirname "$0")/engine-lib.sh"

podman_here() {
    CONTAINERS_CONF="$DIR/containers.conf" podman \
        --root "$DIR/root" --runroot "$DIR/runroot" --tmpdir "$DIR/tmp" "$@"
}

check_prerequisites() {
    command -v podman >/dev/null 2>&1 || die_skip "podman is not installed (apt-get install -y podman runc busybox-static)"
    command -v runc >/dev/null 2>&1 || die_skip "runc is not installed (apt-get install -y runc); crun cannot run on this kernel's cgroup layout"
    command -v curl >/dev/null 2>&1 || die_skip "curl is not installed (needed to ping the engine)"
    find_busybox
    if [ "$INIT" = no-init ]; then
        command -v unshare >/dev/null 2>&1 && command -v nsenter >/dev/null 2>&1 ||
            die_skip "unshare and nsenter (util-linux) are needed to hide the init binary"
        unshare -m --propagation private true 2>/dev/null ||
            die_skip "cannot make a private mount namespace here (unshare -m) to hide the init binary"
    fi
}

write_config() {
    cat > "$DIR/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$DIR/events.log"
CONF
}

build_image() {
    image_tar | podman_here import - "$IMAGE" >/dev/null 2>>"$DIR/service.log"
}

start() {
    check_prerequisites
    claim_dir podman
    mkdir -p "$DIR/root" "$DIR/runroot" "$DIR/tmp" || die "cannot create $DIR"
    write_config
    : > "$DIR/service.log"
    # The service must hold none of our descriptors: a caller reading our
    # stdout through a pipe would otherwise wait for the service to exit.
    (
        exec </dev/null >>"$DIR/service.log" 2>&1
        export CONTAINERS_CONF="$DIR/containers.conf"
        set -- podman --root "$DIR/root" --runroot "$DIR/runroot" --tmpdir "$DIR/tmp" \
            --log-level=info system service --time=0 "unix://$DIR/podman.sock"
        [ "$INIT" = no-init ] || exec "$@"
        # podman looks for /usr/libexec/podman/catatonit, then for catatonit
        # in its helper directories and PATH: an empty directory over the
        # first and a file that is not executable over the binary hide both.
        : > "$DIR/not-an-init"
        exec unshare -m --propagation private sh -c '
            dir=$1; shift
            mount -t tmpfs sbx-no-init /usr/libexec/podman || exit 1
            for bin in $(command -v catatonit); do
                mount --bind "$dir/not-an-init" "$bin" || exit 1
            done
            exec "$@"' sh "$DIR" "$@"
    ) &
    echo $! > "$DIR/service.pid"
    if ! wait_ready "$DIR/service.log" "API service listening" "$DIR/podman.sock"; then
        reason=$(grep -i -m1 -E "error|fatal" "$DIR/service.log")
        stop >/dev/null 2>&1
        die_skip "the podman API service did not start: ${reason:-no answer on /_ping within ${READY_TIMEOUT_S}s}"
    fi
    if ! build_image; then
        reason=$(grep -i -m1 -E "error|fatal" "$DIR/service.log")
        stop >/dev/null 2>&1
        die_skip "cannot import the busybox image: ${reason:-podman import failed}"
    fi
    echo "SBX_DOCKER_SOCKET=$DIR/podman.sock"
    echo "SBX_DOCKER_IMAGE=$IMAGE"
}

stop() {
    [ -d "$DIR" ] || return 0
    pid=
    [ -f "$DIR/service.pid" ] && pid=$(cat "$DIR/service.pid")
    if [ -S "$DIR/podman.sock" ] || [ -d "$DIR/root" ]; then
        # A no-init service keeps its storage mounts in its own namespace.
        if [ -f "$DIR/not-an-init" ] && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            nsenter -t "$pid" -m env CONTAINERS_CONF="$DIR/containers.conf" podman \
                --root "$DIR/root" --runroot "$DIR/runroot" --tmpdir "$DIR/tmp" \
                rm --all --force --time 0 >/dev/null 2>&1
        else
            podman_here rm --all --force --time 0 >/dev/null 2>&1
        fi
    fi
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null && wait_gone "$pid"
    fi
    # podman's `container cleanup` helpers run detached after a container
    # exits; they keep files in DIR open until they finish.  They are found
    # by this environment's private --root, so no other podman is touched.
    for helper in $(pgrep -f -- "--root $DIR/root" 2>/dev/null); do
        wait_gone "$helper"
    done
    # Storage leaves its overlay mount (and per-container ones) behind.
    unmount_under_dir
    rm -rf "$DIR"
}

[ $# -ge 2 ] || die "usage: $0 start|stop DIR [no-init]"
DIR=$2
INIT=${3:-}
case "$1" in
    start) start ;;
    stop) stop ;;
    *) die "usage: $0 start|stop DIR" ;;
esac
