# Unit tests of the remote backend's internals (plugin/remote/libsbx-remote-
# core.la): no network except the list stream suite, which talks to the
# provisioner emulator on 127.0.0.1.
SBX_REMOTE_UNIT_SUITES = \
	tests/remote-unit/test_contract_cache \
	tests/remote-unit/test_ids_options \
	tests/remote-unit/test_create_body \
	tests/remote-unit/test_decode \
	tests/remote-unit/test_json_scan \
	tests/remote-unit/test_list_stream \
	tests/remote-unit/test_answer_errors \
	tests/remote-unit/test_aio_text \
	tests/remote-unit/test_aio_decode \
	tests/remote-unit/test_process_wire
check_PROGRAMS += $(SBX_REMOTE_UNIT_SUITES)
TESTS += $(SBX_REMOTE_UNIT_SUITES)

SBX_REMOTE_UNIT_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
SBX_REMOTE_UNIT_LDADD = plugin/remote/libsbx-remote-core.la common/libsbx-http.la \
	$(SBX_TEST_LIBS) -lpthread

tests_remote_unit_test_contract_cache_SOURCES = tests/remote-unit/test_contract_cache.c
tests_remote_unit_test_contract_cache_CFLAGS = $(SBX_REMOTE_UNIT_CFLAGS)
tests_remote_unit_test_contract_cache_LDADD = $(SBX_REMOTE_UNIT_LDADD)

tests_remote_unit_test_ids_options_SOURCES = tests/remote-unit/test_ids_options.c
tests_remote_unit_test_ids_options_CFLAGS = $(SBX_REMOTE_UNIT_CFLAGS)
tests_remote_unit_test_ids_options_LDADD = $(SBX_REMOTE_UNIT_LDADD)

tests_remote_unit_test_create_body_SOURCES = tests/remote-unit/test_create_body.c
tests_remote_unit_test_create_body_CFLAGS = $(SBX_REMOTE_UNIT_CFLAGS)
tests_remote_unit_test_create_body_LDADD = $(SBX_REMOTE_UNIT_LDADD)

tests_remote_unit_test_decode_SOURCES = tests/remote-unit/test_decode.c
tests_remote_unit_test_decode_CFLAGS = $(SBX_REMOTE_UNIT_CFLAGS)
tests_remote_unit_test_decode_LDADD = $(SBX_REMOTE_UNIT_LDADD)

tests_remote_unit_test_json_scan_SOURCES = tests/remote-unit/test_json_scan.c
tests_remote_unit_test_json_scan_CFLAGS = $(SBX_REMOTE_UNIT_CFLAGS)
tests_remote_unit_test_json_scan_LDADD = $(SBX_REMOTE_UNIT_LDADD)

tests_remote_unit_test_answer_errors_SOURCES = tests/remote-unit/test_answer_errors.c
tests_remote_unit_test_answer_errors_CFLAGS = $(SBX_REMOTE_UNIT_CFLAGS)
tests_remote_unit_test_answer_errors_LDADD = $(SBX_REMOTE_UNIT_LDADD)

tests_remote_unit_test_list_stream_SOURCES = tests/remote-unit/test_list_stream.c
tests_remote_unit_test_list_stream_CFLAGS = $(SBX_REMOTE_UNIT_CFLAGS)
tests_remote_unit_test_list_stream_LDADD = $(SBX_REMOTE_UNIT_LDADD)

tests_remote_unit_test_aio_text_SOURCES = tests/remote-unit/test_aio_text.c
tests_remote_unit_test_aio_text_CFLAGS = $(SBX_REMOTE_UNIT_CFLAGS)
tests_remote_unit_test_aio_text_LDADD = $(SBX_REMOTE_UNIT_LDADD)

tests_remote_unit_test_aio_decode_SOURCES = tests/remote-unit/test_aio_decode.c
tests_remote_unit_test_aio_decode_CFLAGS = $(SBX_REMOTE_UNIT_CFLAGS)
tests_remote_unit_test_aio_decode_LDADD = $(SBX_REMOTE_UNIT_LDADD)

tests_remote_unit_test_process_wire_SOURCES = tests/remote-unit/test_process_wire.c
tests_remote_unit_test_process_wire_CFLAGS = $(SBX_REMOTE_UNIT_CFLAGS)
tests_remote_unit_test_process_wire_LDADD = $(SBX_REMOTE_UNIT_LDADD)
