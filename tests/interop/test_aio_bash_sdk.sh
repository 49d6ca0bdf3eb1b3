#!/bin/sh
# Runs test_aio_bash_sdk.py (the AIO bash sessions driven by the AIO SDK)
# through test_aio_sdk.sh's checks and skips.
srcdir=${SBX_TEST_SRCDIR:-$(dirname "$0")/../..}
SBX_AIO_SDK_SCRIPT=test_aio_bash_sdk.py exec sh "$srcdir/tests/interop/test_aio_sdk.sh"
