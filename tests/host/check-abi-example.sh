#!/bin/sh
# The out-of-tree module of docs/abi.md ("Writing a module") is real: its
# text is compiled as a loadable module against the public headers alone
# (what `pkg-config --cflags sbx-host` gives after an install) and linked
# with nothing but the C library (-z defs fails the link if it needed a
# symbol of an sbx library), exports only its entry point, and sbxctl
# loads it, creates through it, sees its log line and its errors.
set -u
srcdir=${SBX_TEST_SRCDIR:-.}
builddir=${SBX_TEST_BUILDDIR:-.}
sbxctl=${SBXCTL_BIN:-$builddir/tools/sbxctl/sbxctl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

awk '/^## Writing a module/ { in_section = 1 }
     in_section && /^```c$/ { in_code = 1; next }
     in_code && /^```$/ { exit }
     in_code' "$srcdir/docs/abi.md" > "$work/mine.c"
if ! grep -q sbx_backend_entry "$work/mine.c"; then
    echo "FAIL: docs/abi.md has no C module under 'Writing a module'"
    exit 1
fi
if ! ${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror -fPIC -fvisibility=hidden -shared \
        -Wl,-z,defs -I"$srcdir/include" -o "$work/sbx-mine.so" "$work/mine.c"; then
    echo "FAIL: the example of docs/abi.md does not build against the public headers alone"
    exit 1
fi
echo "ok: the example builds with the public headers and links with libc alone"

exported=$(nm -D --defined-only "$work/sbx-mine.so" | awk '{print $NF}' | tr '\n' ' ')
[ "$exported" = "sbx_backend_entry " ] || fail "the example exports: $exported"

run() { SBX_MODULE_PATH="$work" "$sbxctl" --backend mine "$@" 2>&1; }

out=$(run -v --set url=http://127.0.0.1:9 create --id abc); rc=$?
[ $rc -eq 0 ] || fail "create exited $rc: $out"
case $out in *http://127.0.0.1:9*) ;; *) fail "create does not show the URL: $out" ;; esac
case $out in *"created sandbox abc"*) ;; *) fail "the module's log line is not shown with -v: $out" ;; esac

out=$(run --set colour=red create --id abc); rc=$?
[ $rc -eq 2 ] || fail "an unknown option exited $rc, not 2: $out"
case $out in *"unknown option 'colour' for backend 'mine'"*) ;; *) fail "unknown option not named: $out" ;; esac

out=$(run --set url=http://127.0.0.1:9 destroy abc); rc=$?
[ $rc -eq 10 ] || fail "an operation the example lacks exited $rc, not 10: $out"

[ $failed -eq 0 ] && echo "ok: sbxctl loads the example, creates through it, shows its log and errors"
exit $((failed > 0))
