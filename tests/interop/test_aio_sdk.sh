#!/bin/sh
# Runs test_aio_sdk.py (the AIO sandbox API of the emulator and of
# sbx-provisiond, driven by the AIO sandbox's own Python SDK) with
# $PYTHON, else Debian's /usr/bin/python3.  Skips (77), saying why, when
# SBX_AIO_SDK does not name the SDK's folder (the one holding
# agent_sandbox/) or the interpreter lacks httpx and pydantic (Debian:
# python3-httpx python3-pydantic).
python=${PYTHON:-/usr/bin/python3}
srcdir=${SBX_TEST_SRCDIR:-$(dirname "$0")/../..}
if [ -z "${SBX_AIO_SDK:-}" ]; then
    echo "SKIP: SBX_AIO_SDK (the AIO sandbox Python SDK's folder) is not set"
    exit 77
fi
if [ ! -f "$SBX_AIO_SDK/agent_sandbox/__init__.py" ]; then
    echo "SKIP: SBX_AIO_SDK=$SBX_AIO_SDK holds no agent_sandbox package"
    exit 77
fi
if ! "$python" -c 'import httpx, pydantic' 2>/dev/null; then
    echo "SKIP: $python cannot import httpx and pydantic" \
         "(Debian: python3-httpx python3-pydantic)"
    exit 77
fi
exec "$python" "$srcdir/tests/interop/${SBX_AIO_SDK_SCRIPT:-test_aio_sdk.py}"
