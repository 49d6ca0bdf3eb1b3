#!/bin/sh
# The AIO file search routes of sbx-provisiond over the docker backend, on
# a private dockerd (tests/docker/dockerd-env.sh) whose image is busybox:
# one container, its tree built by its own command, then what a user sees
# of each route there.  find (find alone) and glob (the backend's list_dir: find
# and stat) answer the tree, never following the link to /; grep and
# search need GNU grep, which busybox's is not: each answers the
# `unsupported` failure naming the options busybox's grep lacks.  Exit 77
# (SKIP) with the reason when the engine cannot run here.
set -u
srcdir=${SBX_TEST_SRCDIR:?run through make check}
builddir=${SBX_TEST_BUILDDIR:?run through make check}
. "$srcdir/tests/provisiond/provd-docker-lib.sh"
provd_engine_start dockerd
provd_start "mkdir -p /www /t/sub /t/.h && echo alpha > /t/a.py && echo alpha > /t/sub/b.py && echo alpha > /t/.h/c.py && echo alpha > /t/d.txt && ln -s / /t/root && exec httpd -f -p 8080 -h /www"

post() { # ROUTE BODY: the answer's body
    curl -s --max-time 120 -X POST -H 'Content-Type: application/json' -d "$2" "$1"
}
# check ANSWER PYTHON-EXPRESSION: the expression (over `a`, the answer
# parsed) must hold; the answer is shown when it does not.
check() {
    python3 -c 'import json, sys; a = json.loads(sys.argv[1]); sys.exit(0 if eval(sys.argv[2]) else 1)' \
        "$1" "$2" || fail "$2 does not hold of: $1"
}

out=$(post "$url/api/sandboxes" '{"sandbox_id":"search1"}')
sandbox=$(printf '%s' "$out" | sed -n 's/.*"sandbox_url":"\([^"]*\)".*/\1/p')
[ -n "$sandbox" ] || fail "create: $out"

out=$(post "$sandbox/v1/file/find" '{"path":"/t","glob":"*.py"}')
check "$out" 'a["success"] and sorted(a["data"]["files"]) == ["/t/.h/c.py", "/t/a.py", "/t/sub/b.py"]'

out=$(post "$sandbox/v1/file/glob" '{"path":"/t","pattern":"**/*.py"}')
check "$out" 'a["success"] and [f["path"] for f in a["data"]["files"]] == ["/t/a.py", "/t/sub/b.py"]'
check "$out" 'all(f["size"] == 6 and f["modified_time"] for f in a["data"]["files"])'
out=$(post "$sandbox/v1/file/glob" '{"path":"/t","pattern":"*","files_only":false}')
check "$out" '{f["name"]: f["is_directory"] for f in a["data"]["files"]} == {"a.py": False, "d.txt": False, "root": False, "sub": True}'

out=$(post "$sandbox/v1/file/grep" '{"path":"/t","pattern":"alpha","fixed_strings":true}')
check "$out" 'not a["success"] and a["data"]["error_type"] == "unsupported"'
check "$out" '"lacks -Z --no-group-separator," in a["data"]["message"] and "GNU grep" in a["data"]["message"]'
out=$(post "$sandbox/v1/file/search" '{"file":"/t/a.py","regex":"al+pha"}')
check "$out" 'not a["success"] and a["data"]["error_type"] == "unsupported"'
check "$out" '"lacks -Z --no-group-separator -P," in a["data"]["message"]'
echo "PASS"
