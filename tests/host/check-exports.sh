#!/bin/sh
# Every backend module built in this tree exports its entry point and
# nothing else (`nm -D --defined-only`), so that modules cannot clash with
# each other or with the host.
builddir=${SBX_TEST_BUILDDIR:-.}
status=0
count=0
failed=0
for module in "$builddir"/plugin/*/.libs/*.so "$builddir"/tests/host/fixtures/.libs/fixture-good.so; do
    [ -f "$module" ] || continue
    count=$((count + 1))
    exported=$(nm -D --defined-only "$module" | awk '{print $NF}' | sort | tr '\n' ' ')
    if [ "$exported" != "sbx_backend_entry " ]; then
        echo "FAIL: $module exports: $exported"
        failed=$((failed + 1))
        status=1
    else
        echo "ok: $module exports only sbx_backend_entry"
    fi
done
if [ "$count" -lt 2 ]; then
    echo "FAIL: found only $count module(s) under $builddir/plugin/*/.libs"
    status=1
fi
echo "$((count - failed)) passed, $failed failed"
exit $status
