#!/bin/sh
# A private Docker Engine for the docker backend's tests: Debian's dockerd
# (package docker.io) with its own data root, exec root, socket, containerd
# namespace, network bridge and configuration under DIR, on vfs storage, so
# that nothing of the machine's own Docker (/var/lib/docker,
# /var/run/docker.sock, /etc/docker, docker0) is touched.  See
# docs/docker.md ("Testing with Docker").
#
#   dockerd-env.sh start DIR [no-init]
#                             prepare DIR, start dockerd, import the busybox
#                             image; prints the shell assignments
#                               SBX_DOCKER_SOCKET=DIR/docker.sock
#                               SBX_DOCKER_IMAGE=sbx-busybox:latest
#                             With no-init, dockerd's --init-path names a
#                             file that does not exist: an engine without an
#                             init binary.  Exits 77 (automake's SKIP) with
#                             one line on stderr saying why when the engine
#                             cannot run.
#   dockerd-env.sh stop DIR   remove every container, stop dockerd, delete
#                             its bridge, delete DIR.
set -u

IMAGE=sbx-busybox:latest
. "$(dirname "$0")/engine-lib.sh"

engine() {
    curl -s --max-time 60 --unix-socket "$DIR/docker.sock" "$@"
}

check_prerequisites() {
    command -v dockerd >/dev/null 2>&1 || die_skip "dockerd is not installed (apt-get install -y --no-install-recommends docker.io)"
    command -v curl >/dev/null 2>&1 || die_skip "curl is not installed (needed to talk to the engine)"
    command -v ip >/dev/null 2>&1 || die_skip "ip (iproute2) is not installed (needed for the engine's bridge)"
    command -v unshare >/dev/null 2>&1 || die_skip "unshare (util-linux) is not installed"
    unshare -m --propagation private true 2>/dev/null ||
        die_skip "cannot make a private mount namespace here (unshare -m) for dockerd's fixed paths"
    find_busybox
}

start() {
    check_prerequisites
    claim_dir dockerd
    mkdir -p "$DIR/data" "$DIR/exec" || die "cannot create $DIR"
    echo '{}' > "$DIR/daemon.json"
    # Our own bridge (a name of at most 15 characters), not docker0.
    bridge=sbxd$(echo "$DIR" | cksum | cut -c1-8)
    ip link add "$bridge" type bridge 2>/dev/null ||
        die_skip "cannot create a network bridge for the engine (ip link add: not permitted here?)"
    echo "$bridge" > "$DIR/bridge"
    # dockerd writes its identity key under /etc/docker and plugin sockets
    # under /run/docker whatever its flags: it runs in a private mount
    # namespace with a fresh tmpfs over each that exists; one that does not
    # exist is noted, for stop to remove what dockerd makes there.
    for fixed in /etc/docker /run/docker; do
        [ -d "$fixed" ] || echo "$fixed" >> "$DIR/made-dirs"
    done
    set -- dockerd --config-file "$DIR/daemon.json" --data-root "$DIR/data" \
        --exec-root "$DIR/exec" --pidfile "$DIR/dockerd.pid" -H "unix://$DIR/docker.sock" \
        --iptables=false --ip-masq=false --storage-driver=vfs --bridge "$bridge" \
        --containerd-namespace "$bridge" --containerd-plugins-namespace "$bridge-p" \
        --shutdown-timeout 1
    [ "${INIT:-}" = no-init ] && set -- "$@" --init-path "$DIR/no-init-binary"
    : > "$DIR/dockerd.log"
    # dockerd must hold none of our descriptors (see podman-env.sh).
    (
        exec </dev/null >>"$DIR/dockerd.log" 2>&1
        exec unshare -m --propagation private sh -c '
            for fixed in /etc/docker /run/docker; do
                [ -d "$fixed" ] && { mount -t tmpfs sbx-dockerd "$fixed" || exit 1; }
            done
            exec "$@"' sh "$@"
    ) &
    echo $! > "$DIR/service.pid"
    if ! wait_ready "$DIR/dockerd.log" "API listen on" "$DIR/docker.sock"; then
        reason=$(grep -m1 -E "level=(error|fatal)|failed to start" "$DIR/dockerd.log")
        stop >/dev/null 2>&1
        die_skip "dockerd did not start: ${reason:-no answer on /_ping within ${READY_TIMEOUT_S}s}"
    fi
    image_tar | engine -X POST -H "Content-Type: application/x-tar" --data-binary @- \
        "http://d/v1.41/images/create?fromSrc=-&repo=sbx-busybox&tag=latest" >> "$DIR/dockerd.log"
    if [ "$(engine -o /dev/null -w '%{http_code}' "http://d/v1.41/images/$IMAGE/json")" != 200 ]; then
        stop >/dev/null 2>&1
        die_skip "cannot import the busybox image into dockerd"
    fi
    echo "SBX_DOCKER_SOCKET=$DIR/docker.sock"
    echo "SBX_DOCKER_IMAGE=$IMAGE"
}

stop() {
    [ -d "$DIR" ] || return 0
    pid=
    [ -f "$DIR/service.pid" ] && pid=$(cat "$DIR/service.pid")
    if [ -S "$DIR/docker.sock" ]; then
        for id in $(engine "http://d/v1.41/containers/json?all=1" | grep -o '"Id":"[0-9a-f]*"' | cut -d'"' -f4); do
            engine -o /dev/null -X DELETE "http://d/v1.41/containers/$id?force=true"
        done
    fi
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null && wait_gone "$pid"
    fi
    [ -f "$DIR/bridge" ] && ip link delete "$(cat "$DIR/bridge")" 2>/dev/null
    unmount_under_dir
    if [ -f "$DIR/made-dirs" ]; then
        while read -r made; do rm -rf "$made"; done < "$DIR/made-dirs"
    fi
    rm -rf "$DIR"
}

[ $# -ge 2 ] || die "usage: $0 start|stop DIR [no-init]"
DIR=$2
INIT=${3:-}
case "$1" in
    start) start ;;
    stop) stop ;;
    *) die "usage: $0 start|stop DIR [no-init]" ;;
esac
