#!/bin/sh
# The example host of live processes (examples/dev_server.c) does what its
# comments say, run as a user would run it over the local backend: the
# server starts as a process, its port opens inside the sandbox, its log
# shows the request, it is stopped and the sandbox destroyed (nothing left
# running); it fails as documented on bad usage and an unknown backend;
# and its source builds with the public headers alone.
set -u
srcdir=${SBX_TEST_SRCDIR:-.}
builddir=${SBX_TEST_BUILDDIR:-.}
example=$builddir/examples/dev_server
sbxctl=${SBXCTL_BIN:-$builddir/tools/sbxctl/sbxctl}
base=${XDG_STATE_HOME:-/tmp}
mkdir -p "$base"
work=$(mktemp -d "$base/example-dev-server-XXXXXX")
trap '"$sbxctl" --config "$work/sbx.json" destroy devbox >/dev/null 2>&1; rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

cat > "$work/sbx.json" <<JSON
{"backend": "local", "backends": {"local": {"state_dir": "$work/local"}}}
JSON

# Run the example; its stdout in $out, stderr in $work/err, exit status in $rc.
run() {
    out=$("$example" "$@" 2> "$work/err"); rc=$?
}
has_line() { printf '%s\n' "$out" | grep -qxF -- "$1"; }

# The sandbox's own loopback: any port is free there.
run "$work/sbx.json" devbox 8123
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$work/err")"
for line in "sandbox devbox ready" "port 8123 is open inside the sandbox" \
            "server stopped: signal 15" "sandbox devbox destroyed"; do
    has_line "$line" || fail "no line '$line' in: $out"
done
printf '%s\n' "$out" | grep -q '^server started: process [A-Za-z0-9][A-Za-z0-9._-]*$' ||
    fail "no process id line in: $out"
printf '%s\n' "$out" | grep -q '^log: .*"GET / HTTP/1.1" 200' ||
    fail "the request is not in the tailed log: $out"
count=$("$sbxctl" --config "$work/sbx.json" list --json | grep -o '"count":[0-9]*')
[ "$count" = '"count":0' ] || fail "sandboxes left running: $count"
[ $failed -eq 0 ] && echo "ok: server started, port awaited, log tailed, stopped, destroyed"

run
[ $rc -eq 2 ] || fail "no arguments: exit $rc"
grep -q '^usage: dev_server CONFIG SANDBOX_ID PORT$' "$work/err" ||
    fail "no usage line: $(cat "$work/err")"
run "$work/sbx.json" devbox not-a-port
[ $rc -eq 2 ] || fail "bad port: exit $rc"
printf '{"backend": "nosuch"}\n' > "$work/bad.json"
run "$work/bad.json" devbox 8123
[ $rc -eq 1 ] || fail "unknown backend: exit $rc"
grep -q "^dev_server: backend: .*nosuch" "$work/err" ||
    fail "unknown backend not named: $(cat "$work/err")"
[ -z "$out" ] || fail "a failed start printed on stdout: $out"
[ $failed -eq 0 ] && echo "ok: usage and backend errors"

if ${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$srcdir/include" \
        -c -o "$work/dev_server.o" "$srcdir/examples/dev_server.c"; then
    echo "ok: examples/dev_server.c builds with the public headers alone"
else
    fail "examples/dev_server.c does not build with the public headers alone"
fi
exit $((failed > 0))
