#!/bin/sh
# The test harness's LOG_COMPILER (tests/local.mk): runs one test with its
# arguments and closes the test's log with the test's wall time.  CUnit's
# "Elapsed time" is the CPU time of the process, which says nothing of a
# suite that waits on engines and sockets; .ci/slowest-tests lists these
# lines, slowest first, so that CI shows which suite made a run longer.
# The test's exit status is passed on unchanged (77 SKIP, 99 ERROR).
started=$(date +%s.%N)
"$@"
status=$?
ended=$(date +%s.%N)
awk -v started="$started" -v ended="$ended" \
    'BEGIN { printf "wall time: %.1f s\n", ended - started }'
exit "$status"
