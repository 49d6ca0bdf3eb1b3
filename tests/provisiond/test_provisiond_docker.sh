#!/bin/sh
# The sbxctl remote flow end to end against sbx-provisiond over the docker
# backend on a private podman engine (tests/docker/podman-env.sh):
# `sbxctl --backend remote` creates a sandbox through the daemon, its
# sandbox API reads the container's page, sbxctl exec and cp go through
# it, its default shell session keeps cd and export, then list,
# discover, reconcile (found),
# another user's create of the same id (refused, exit 6), destroy,
# reconcile (absent), and SIGTERM ends the daemon with exit 0; then a
# container whose server never answers stays its owner's.  Exit 77
# (SKIP) with the reason when the engine cannot run here.
set -u
srcdir=${SBX_TEST_SRCDIR:?run through make check}
builddir=${SBX_TEST_BUILDDIR:?run through make check}
sbxctl=${SBXCTL_BIN:?run through make check}
. "$srcdir/tests/provisiond/provd-docker-lib.sh"
provd_engine_start podman
provd_start "mkdir -p /www && echo 'hello from the sandbox' > /www/page.txt && exec httpd -f -p 8080 -h /www"

remote() { "$sbxctl" --backend remote --set "provisioner_url=$url" "$@"; }
field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }

out=$(remote --json create --id e2e1 --thread t1 --user alice) || fail "create: $out"
echo "create: $out"
sandbox_url=$(printf '%s' "$out" | field sandbox_url)
[ "$(printf '%s' "$out" | field user_id)" = alice ] || fail "create echoes another user"
# The daemon's sandbox API for this container: its file read runs as the
# docker backend's operation, in the container.
case "$sandbox_url" in "$url"/s/*) ;; *) fail "no sandbox API URL in '$out'" ;; esac
page=$(curl -s --max-time 30 -X POST -H 'Content-Type: application/json' \
    -d '{"file":"/www/page.txt"}' "$sandbox_url/v1/file/read")
case "$page" in *'"content":"hello from the sandbox\n"'*) ;;
*) fail "the sandbox API does not read the container's page: '$page'" ;; esac

# sbxctl exec and cp through the remote backend, the daemon and docker:
# the command's output, env and exit code; a file in and out byte-exact.
out=$(remote exec -e GREETING='a b;$(no)' e2e1 -- sh -c 'printf %s "$GREETING"; exit 3')
rc=$?
[ "$rc" -eq 3 ] && [ "$out" = 'a b;$(no)' ] || fail "exec: exit $rc, output '$out'"
head -c 4096 /dev/urandom >"$dir/blob"
remote cp "$dir/blob" e2e1:/tmp/blob || fail "cp in"
remote cp e2e1:/tmp/blob "$dir/blob.back" || fail "cp out"
cmp -s "$dir/blob" "$dir/blob.back" || fail "the file came back changed"

# DeerFlow's execute_command over docker: /v1/shell/exec without an id
# runs in the sandbox's default session, so cd and export carry over.
shell() {
    curl -s --max-time 60 -X POST -H 'Content-Type: application/json' \
        -d "{\"command\":\"$1\"}" "$sandbox_url/v1/shell/exec"
}
out=$(shell 'cd /www && export KEPT=yes')
case "$out" in *'"exit_code":0'*) ;; *) fail "shell exec in the default session: '$out'" ;; esac
out=$(shell 'pwd; echo $KEPT')
case "$out" in *'"output":"/www\nyes\n"'*) ;;
*) fail "the default session lost cd or export: '$out'" ;; esac

out=$(remote --json list) || fail "list: $out"
echo "list: $out"
printf '%s' "$out" | grep -q '"sandbox_id":"e2e1"' || fail "list misses e2e1"
out=$(remote --json discover e2e1) || fail "discover: $out"
[ "$(printf '%s' "$out" | field sandbox_url)" = "$sandbox_url" ] || fail "discover: $out"
out=$(remote --json reconcile e2e1) || fail "reconcile: $out"
echo "reconcile: $out"
printf '%s' "$out" | grep -q '"status":"found"' || fail "reconcile is not found"
namespace=$(printf '%s' "$out" | field backend_namespace)
[ -n "$namespace" ] && [ -n "$(printf '%s' "$out" | field incarnation_id)" ] ||
    fail "reconcile without namespace or incarnation"

remote create --id e2e1 --thread t1 --user bob
rc=$?
[ "$rc" -eq 6 ] || fail "another user's create of e2e1 exited $rc, not 6 (refused)"

remote destroy e2e1 || fail "destroy"
out=$(remote --json reconcile e2e1)
rc=$?
echo "reconcile after destroy: $out"
[ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q '"status":"absent"' || fail "not absent"
[ "$(printf '%s' "$out" | field backend_namespace)" = "$namespace" ] || fail "namespace moved"

kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
[ "$rc" -eq 0 ] || fail "the daemon exited $rc on SIGTERM"

# A create that fails after the engine made the container (its server
# never answers): the container stays, for destroy, and stays its
# owner's: the owner's retry is not refused, another user's is.
mkfifo "$dir/stdout2"
"$builddir/tools/provisiond/sbx-provisiond" --listen 127.0.0.1:0 --backend docker \
    --set "socket=$SBX_DOCKER_SOCKET" --set "image=$SBX_DOCKER_IMAGE" \
    --set "command=exec sleep 600" --set ready_timeout_ms=300 \
    --state-dir "$dir/owners" >"$dir/stdout2" 2>>"$dir/stderr" &
daemon_pid=$!
line=$(timeout 30 head -n 1 "$dir/stdout2")
url=${line##*listening on }
remote create --id e2e2 --thread t1 --user alice
rc=$?
[ "$rc" -eq 9 ] || fail "a sandbox that never serves: create exited $rc, not 9 (provisioner)"
remote create --id e2e2 --thread t1 --user alice
rc=$?
[ "$rc" -eq 9 ] || fail "the owner's retry exited $rc, not 9 (still not serving)"
remote create --id e2e2 --thread t1 --user bob
rc=$?
[ "$rc" -eq 6 ] || fail "another user's create of the left container exited $rc, not 6"
remote destroy e2e2 || fail "destroy of the left container"
echo "PASS"
