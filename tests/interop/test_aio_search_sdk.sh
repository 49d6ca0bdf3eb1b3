#!/bin/sh
# Runs test_aio_search_sdk.py (the AIO file search routes driven by the AIO
# SDK and DeerFlow's AioSandbox) through test_aio_sdk.sh, which skips
# (77) without the SDK, httpx or pydantic.
srcdir=${SBX_TEST_SRCDIR:-$(dirname "$0")/../..}
SBX_AIO_SDK_SCRIPT=test_aio_search_sdk.py exec sh "$srcdir/tests/interop/test_aio_sdk.sh"
