# Sourced by the shell suites that run sbx-provisiond over the docker
# backend on a private engine: root checked (else SKIP), the engine of
# `provd_engine_start` started in a fresh short directory $dir and stopped
# with the daemon at exit, `fail`, and `provd_start` starting the daemon.
# Needs srcdir and builddir set.

fail() { echo "FAIL: $*"; exit 1; }

# provd_engine_start ENGINE: ENGINE is podman or dockerd
# (tests/docker/ENGINE-env.sh); exits 77 (SKIP) with the reason when it
# cannot run here.  Sets dir, env_script, daemon_pid and the engine's
# SBX_DOCKER_SOCKET and SBX_DOCKER_IMAGE.
provd_engine_start() {
    env_script=$srcdir/tests/docker/$1-env.sh
    if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP: the $1 test engine needs root (a private engine with its own storage)" >&2
        exit 77
    fi
    # A short path: the engine's unix socket lives in it (108-byte limit).
    dir=$(mktemp -d /tmp/sbx-provd.XXXXXX) || exit 1
    daemon_pid=
    settings=$("$env_script" start "$dir")
    rc=$?
    if [ "$rc" -ne 0 ]; then
        "$env_script" stop "$dir"
        exit "$rc"
    fi
    trap provd_cleanup EXIT
    trap 'exit 1' INT TERM
    eval "$settings"
}

provd_cleanup() {
    [ -n "$daemon_pid" ] && kill -TERM "$daemon_pid" 2>/dev/null && wait "$daemon_pid"
    echo "--- sbx-provisiond stderr"; cat "$dir/stderr" 2>/dev/null
    "$env_script" stop "$dir"
}

# provd_start COMMAND: sbx-provisiond over the engine, the sandboxes'
# command COMMAND (ready within 120 s); sets daemon_pid and url.  The
# daemon's first stdout line says where it listens; a FIFO lets the test
# wait for it with a deadline instead of sleeping.  Processes (the shell
# sessions) run under this build's helper, not yet installed.
provd_start() {
    mkfifo "$dir/stdout"
    "$builddir/tools/provisiond/sbx-provisiond" --listen 127.0.0.1:0 --backend docker \
        --set "socket=$SBX_DOCKER_SOCKET" --set "image=$SBX_DOCKER_IMAGE" \
        --set "command=$1" \
        --set "pty_helper=$(cd "$builddir" && pwd)/plugin/docker/sbx-docker-pty" \
        --set ready_timeout_ms=120000 --state-dir "$dir/owners" >"$dir/stdout" 2>"$dir/stderr" &
    daemon_pid=$!
    line=$(timeout 30 head -n 1 "$dir/stdout")
    url=${line##*listening on }
    case "$url" in http://127.0.0.1:*) ;; *) fail "the daemon did not start: '$line'" ;; esac
    echo "daemon at $url"
}
