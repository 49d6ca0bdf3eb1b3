# Shell functions shared by the private test engines (podman-env.sh,
# dockerd-env.sh); sourced, never run.  Each expects DIR to be set.

READY_TIMEOUT_S=20

die_skip() { echo "SKIP: $*" >&2; exit 77; }
die() { echo "$(basename "$0"): $*" >&2; exit 1; }

# BUSYBOX: a static busybox for the image, or SKIP saying why.
find_busybox() {
    BUSYBOX=
    for candidate in /bin/busybox /usr/bin/busybox; do
        [ -x "$candidate" ] && BUSYBOX=$candidate && break
    done
    [ -n "$BUSYBOX" ] || die_skip "busybox-static is not installed (apt-get install -y busybox-static)"
    # The image holds nothing but this binary, so it must be static.
    if ldd "$BUSYBOX" >/dev/null 2>&1; then
        die_skip "$BUSYBOX is dynamically linked; install busybox-static"
    fi
}

# Wait until the engine's log ($1) has a line matching $2 (it logs one once
# its socket accepts), bounded by READY_TIMEOUT_S, then check that /_ping
# on socket $3 answers OK.  tail follows the log through a fifo so that it
# can be stopped by its pid.
wait_ready() {
    mkfifo "$DIR/ready.fifo" || return 1
    tail -n +1 -f "$1" > "$DIR/ready.fifo" &
    tail_pid=$!
    timeout "$READY_TIMEOUT_S" grep -q -m1 "$2" < "$DIR/ready.fifo"
    listening=$?
    kill "$tail_pid" 2>/dev/null
    wait "$tail_pid" 2>/dev/null
    rm -f "$DIR/ready.fifo"
    [ "$listening" -eq 0 ] &&
        [ "$(curl -s --max-time 5 --unix-socket "$3" http://d/_ping)" = OK ]
}

# Wait (bounded) for process `$1`, which is not our child, to end; tail
# watches it for us.  Kill it when it outlives the deadline.
wait_gone() {
    timeout 10 tail --pid="$1" -f /dev/null 2>/dev/null || kill -9 "$1" 2>/dev/null
}

# The image's root file system: busybox and the applets the tests use, as
# a tar stream on stdout (rm and cat: the sandbox operations need them;
# mkfifo, dd, wc, setsid and date the processes; ps and seq their tests).
image_tar() {
    mkdir -p "$DIR/rootfs/bin" "$DIR/rootfs/tmp" "$DIR/rootfs/www" || return 1
    cp "$BUSYBOX" "$DIR/rootfs/bin/busybox" || return 1
    for applet in sh httpd cat echo ls touch mkdir sleep rm dd ln chmod find stat truncate \
        mkfifo wc setsid date ps seq; do
        ln -s busybox "$DIR/rootfs/bin/$applet" || return 1
    done
    tar -C "$DIR/rootfs" -c .
}

# Engines of earlier runs that were killed before they could stop them (a
# SIGKILL cannot be trapped) outlive those runs: a podman container left
# behind keeps the NAT rule of its published loopback port, which takes
# that port from any server a later test binds to it.  claim_dir marks each
# engine's DIR; a marked directory that no process names on its command
# line any more (the engine, its helpers and the env script all name DIR)
# is stopped by its own env script.
# Only pgrep's "none found" (exit 1) counts: without pgrep nothing is reaped.
reap_stale_engines() {
    command -v pgrep >/dev/null 2>&1 || return 0
    for reap_marker in /tmp/sbx-*/engine-kind; do
        [ -f "$reap_marker" ] || continue
        reap_dir=${reap_marker%/engine-kind}
        pgrep -f -- "$reap_dir" >/dev/null 2>&1
        [ $? -eq 1 ] || continue
        reap_kind=$(cat "$reap_marker")
        case "$reap_kind" in podman|dockerd) ;; *) continue ;; esac
        echo "$(basename "$0"): stopping the $reap_kind engine a killed run left in $reap_dir" >&2
        "$(dirname "$0")/$reap_kind-env.sh" stop "$reap_dir" >/dev/null 2>&1
    done
}

# Reap what killed runs left, then mark DIR as an engine of kind $1 for a
# later run's reap_stale_engines.
claim_dir() {
    reap_stale_engines
    echo "$1" > "$DIR/engine-kind" || die "cannot write in $DIR"
}

# Unmount whatever is still mounted under DIR, deepest first.
unmount_under_dir() {
    grep " $DIR/" /proc/self/mounts | awk '{print $2}' | sort -r | while read -r mnt; do
        umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
    done
}
