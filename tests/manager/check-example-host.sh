#!/bin/sh
# The example host of docs/manager.md (examples/host.c) does what its
# comments say, run as a user would run it: over the local backend, with
# the memory store (shutdown destroys) and a sqlite lease file (shutdown
# keeps; a second run finds the same sandbox), and it fails as documented
# on bad usage, a bad configuration and an unknown backend.  Its source
# also builds with the public headers alone, as after an install.
set -u
srcdir=${SBX_TEST_SRCDIR:-.}
builddir=${SBX_TEST_BUILDDIR:-.}
host=$builddir/examples/host
sbxctl=${SBXCTL_BIN:-$builddir/tools/sbxctl/sbxctl}
base=${XDG_STATE_HOME:-/tmp}
mkdir -p "$base"
work=$(mktemp -d "$base/example-host-XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# The id the manager derives (docs/manager.md rule 1), computed apart from sbx.
id=$(printf '%s' 'alice:t1' | sha256sum | cut -c1-16)

# A configuration over the local backend in $work; $1: the ownership
# section, $2: the shutdown mode.
configure() {
    cat > "$work/sbx.json" <<EOF
{"backend": "local",
 "backends": {"local": {"state_dir": "$work/local"}},
 "manager": {"lock_dir": "$work/locks", "shutdown": "$2", "ownership": $1}}
EOF
}

# Run the example; its stdout in $out, stderr in $work/err, exit status in $rc.
run() {
    out=$("$host" "$@" 2> "$work/err"); rc=$?
}

# 1 when stdout has a line equal to $1.
has_line() { printf '%s\n' "$out" | grep -qxF -- "$1"; }
running() { "$sbxctl" --config "$work/sbx.json" list --json | grep -o '"count":[0-9]*'; }

# --- memory store, shutdown destroy: the whole turn, nothing left running.
mkdir -p "$work/local"
configure '{"store": "memory"}' destroy
run "$work/sbx.json" alice t1
[ $rc -eq 0 ] || fail "memory store: exit $rc: $(cat "$work/err")"
url="file://$work/local/$id"
for line in "acquired sandbox $id for user alice thread t1 at $url" \
            "tool call 1: sandbox $id at $url" "tool call 2: sandbox $id at $url" \
            "released sandbox $id to the warm pool" \
            "acquired again: the same sandbox, from the warm pool" \
            "counters: active 0 warm 1 adopted 0 reaped 0 evicted 0 lease_losses 0" \
            "shut down: sandboxes destroyed"; do
    has_line "$line" || fail "memory store: no line '$line' in: $out"
done
printf '%s\n' "$out" | head -n 1 | grep -q '^manager .* on backend local$' ||
    fail "memory store: first line: $out"
grep -q "manager: created sandbox $id" "$work/err" ||
    fail "memory store: the library's log is not on stderr: $(cat "$work/err")"
[ "$(running)" = '"count":0' ] || fail "memory store: sandboxes left running: $(running)"
[ $failed -eq 0 ] && echo "ok: memory store: acquire, get, release, warm reuse, destroy at shutdown"

# --- sqlite store, shutdown keep: the sandbox outlives the process, its
# lease is released, and the next run finds it (no second create).
configure "{\"store\": \"sqlite\", \"path\": \"$work/leases.db\"}" keep
run "$work/sbx.json" alice t1
[ $rc -eq 0 ] || fail "sqlite store: exit $rc: $(cat "$work/err")"
has_line "shut down: sandboxes kept" || fail "sqlite store: not kept: $out"
[ "$(running)" = '"count":1' ] || fail "sqlite store: not left running: $(running)"
leases=$("$sbxctl" --config "$work/sbx.json" leases --json)
case $leases in *'"count":0'*) ;; *) fail "sqlite store: leases left: $leases" ;; esac
run "$work/sbx.json" alice t1
[ $rc -eq 0 ] || fail "sqlite store, second run: exit $rc: $(cat "$work/err")"
has_line "acquired sandbox $id for user alice thread t1 at $url" ||
    fail "sqlite store, second run: not the same sandbox: $out"
grep -q "manager: discovered running sandbox $id" "$work/err" ||
    fail "sqlite store, second run: the kept sandbox was not found: $(cat "$work/err")"
grep -q "created sandbox" "$work/err" && fail "sqlite store, second run: created again"
[ $failed -eq 0 ] && echo "ok: sqlite store: a kept sandbox is found by the next process"

# --- errors: usage 2; a bad configuration and an unknown backend 1, named.
run
[ $rc -eq 2 ] || fail "no arguments: exit $rc"
grep -q '^usage: host CONFIG USER THREAD$' "$work/err" || fail "no usage line: $(cat "$work/err")"
configure '{"stor": "memory"}' destroy
run "$work/sbx.json" alice t1
[ $rc -eq 1 ] || fail "bad configuration: exit $rc"
grep -q "^host: configuration: config: .*unknown key 'manager.ownership.stor'" "$work/err" ||
    fail "bad configuration not named: $(cat "$work/err")"
printf '{"backend": "nosuch"}\n' > "$work/sbx.json"
run "$work/sbx.json" alice t1
[ $rc -eq 1 ] || fail "unknown backend: exit $rc"
grep -q "^host: backend: .*nosuch" "$work/err" || fail "unknown backend not named: $(cat "$work/err")"
[ -z "$out" ] || fail "a failed start printed on stdout: $out"
[ $failed -eq 0 ] && echo "ok: usage, configuration and backend errors"

# --- the source needs nothing but the public headers (as after an install).
if ${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$srcdir/include" \
        -c -o "$work/host.o" "$srcdir/examples/host.c"; then
    echo "ok: examples/host.c builds with the public headers alone"
else
    fail "examples/host.c does not build with the public headers alone"
fi
exit $((failed > 0))
