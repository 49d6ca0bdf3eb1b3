# Interoperability with the real DeerFlow provisioner (a Python service the
# suite starts on 127.0.0.1 from $SBX_DEERFLOW_PROVISIONER): the remote
# backend through the C API and through sbxctl.  Skips with the reason when
# the variable is unset or Debian's python3-fastapi, python3-uvicorn and
# python3-kubernetes are missing.
check_PROGRAMS += tests/interop/test_deerflow_provisioner
TESTS += tests/interop/test_deerflow_provisioner
tests_interop_test_deerflow_provisioner_SOURCES = tests/interop/test_deerflow_provisioner.c \
	tests/interop/deerflow_provisioner.c tests/interop/deerflow_provisioner.h \
	$(SBX_SBXCTL_TEST_SUPPORT)
tests_interop_test_deerflow_provisioner_CFLAGS = $(SBX_TEST_CFLAGS)
tests_interop_test_deerflow_provisioner_LDADD = $(SBX_TEST_LIBS)
EXTRA_tests_interop_test_deerflow_provisioner_DEPENDENCIES = tools/sbxctl/sbxctl$(EXEEXT) \
	plugin/remote/sbx-remote.la
CLEANFILES += tests/interop/deerflow-provisioner.out

# The AIO sandbox API of the emulator (--aio) and of sbx-provisiond (over
# the local backend), driven by the AIO sandbox's own Python SDK from
# $SBX_AIO_SDK and, with $SBX_DEERFLOW_SRC, by DeerFlow's AioSandbox on top
# of it.  Skips with the reason when SBX_AIO_SDK is unset or Debian's
# python3-httpx and python3-pydantic are missing.
TESTS += tests/interop/test_aio_sdk.sh
EXTRA_DIST += tests/interop/test_aio_sdk.sh tests/interop/test_aio_sdk.py

# The AIO shell sessions of sbx-provisiond driven by the AIO SDK and by
# DeerFlow's AioSandbox (cd/export kept, its recovery path, a background
# command, a client gone mid-wait); skips as test_aio_sdk.sh does.
TESTS += tests/interop/test_aio_shell_sdk.sh
EXTRA_DIST += tests/interop/test_aio_shell_sdk.sh tests/interop/test_aio_shell_sdk.py
# The AIO file search routes (find, grep, glob, search) of the emulator and
# sbx-provisiond through the AIO SDK, and DeerFlow's glob and grep tools.
TESTS += tests/interop/test_aio_search_sdk.sh
EXTRA_DIST += tests/interop/test_aio_search_sdk.sh tests/interop/test_aio_search_sdk.py
# The AIO bash sessions of sbx-provisiond driven by the AIO SDK (a created
# session, its commands read, written and killed); skips as test_aio_sdk.sh.
TESTS += tests/interop/test_aio_bash_sdk.sh
EXTRA_DIST += tests/interop/test_aio_bash_sdk.sh tests/interop/test_aio_bash_sdk.py
