#!/bin/sh
# The remote backend's seed suites (tests/remote/test_seed_*) a second
# time, against sbx-provisiond over the local backend instead of the
# emulator: the fixture's daemon switch (SBX_RT_PROVISIOND) runs the cases
# that need no emulator control and says which it skips.  Fails when a suite
# fails or when no case ran against the daemon at all.
set -u
builddir=${SBX_TEST_BUILDDIR:?SBX_TEST_BUILDDIR is not set (run through make check)}
status=0
ran=0
for suite in test_seed_list test_seed_create test_seed_contract test_seed_lifecycle \
             test_seed_reconcile; do
    out=$(SBX_RT_PROVISIOND=1 "$builddir/tests/remote/$suite" 2>&1)
    rc=$?
    printf '%s\n' "$out"
    [ "$rc" -eq 0 ] || { echo "FAIL: $suite against sbx-provisiond (exit $rc)"; status=1; }
    n=$(printf '%s\n' "$out" | grep -o '(against sbx-provisiond)' | wc -l)
    ran=$((ran + n))
done
echo "seed cases run against sbx-provisiond: $ran"
[ "$ran" -gt 0 ] || { echo "FAIL: no seed case ran against sbx-provisiond"; status=1; }
exit $status
