# The provisioner emulator checked over real HTTP against the reference
# provisioner's recorded answers and its control API.
check_PROGRAMS += tests/emulator/test_emulator
TESTS += tests/emulator/test_emulator
tests_emulator_test_emulator_SOURCES = tests/emulator/test_emulator.c
tests_emulator_test_emulator_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_emulator_test_emulator_LDADD = $(SBX_TEST_LIBS) -lpthread

# The AIO sandbox routes (sbx-provisioner-emu --aio) over HTTP, every
# request and answer validated against the AIO OpenAPI schemas transcribed
# in aio-schemas.json (Python 3 with python3-jsonschema).
TESTS += tests/emulator/test_aio_routes.py
EXTRA_DIST += tests/emulator/test_aio_routes.py tests/emulator/aio-schemas.json

# The AIO shell session routes (/v1/shell/*) of the emulator over HTTP,
# every request and answer validated against the schemas transcribed in
# aio-schemas-shell.json; a session living on across a restart of
# sbx-provisiond (local backend).
TESTS += tests/emulator/test_aio_shell.py
EXTRA_DIST += tests/emulator/test_aio_shell.py tests/emulator/aio-schemas-shell.json
# The AIO file search routes (find, glob, grep, search) on hostile trees,
# validated against the schemas transcribed in aio-schemas-search.json.
TESTS += tests/emulator/test_aio_search.py
EXTRA_DIST += tests/emulator/test_aio_search.py tests/emulator/aio-schemas-search.json
# /v1/file/str_replace_editor's commands and texts, validated against the
# schemas transcribed in aio-schemas-search.json.
TESTS += tests/emulator/test_aio_editor.py
EXTRA_DIST += tests/emulator/test_aio_editor.py
# A sandbox deleted through the emulator ends its background commands and
# shell sessions at the delete.
TESTS += tests/emulator/test_aio_gone.py
EXTRA_DIST += tests/emulator/test_aio_gone.py
# The AIO bash sessions (/v1/bash/sessions/create and the bash routes on a
# created session's commands), validated against the schemas transcribed
# in aio-schemas-bash.json.
TESTS += tests/emulator/test_aio_bash_sessions.py
EXTRA_DIST += tests/emulator/test_aio_bash_sessions.py tests/emulator/aio-schemas-bash.json
