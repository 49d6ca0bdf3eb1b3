# Unit tests of the building blocks in common/ that every part of the tree
# shares (the growable buffer, the hashes, base64, UTF-8, JSON escapes and
# hex digits, the backends' option table, the id rules, the HTTP client,
# the list decoders' skip log): no process, no network except the HTTP
# client suite, which talks to the provisioner emulator on 127.0.0.1.
SBX_COMMON_UNIT_SUITES = tests/common-unit/test_building_blocks \
	tests/common-unit/test_base64 \
	tests/common-unit/test_utf8 \
	tests/common-unit/test_json_escape \
	tests/common-unit/test_option_table \
	tests/common-unit/test_sandbox_ids \
	tests/common-unit/test_http_client \
	tests/common-unit/test_skip_log \
	tests/common-unit/test_siphash
check_PROGRAMS += $(SBX_COMMON_UNIT_SUITES)
TESTS += $(SBX_COMMON_UNIT_SUITES)

tests_common_unit_test_building_blocks_SOURCES = tests/common-unit/test_building_blocks.c
tests_common_unit_test_building_blocks_CFLAGS = $(SBX_TEST_CFLAGS)
tests_common_unit_test_building_blocks_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS)

tests_common_unit_test_option_table_SOURCES = tests/common-unit/test_option_table.c
tests_common_unit_test_option_table_CFLAGS = $(SBX_TEST_CFLAGS)
tests_common_unit_test_option_table_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS)

tests_common_unit_test_base64_SOURCES = tests/common-unit/test_base64.c
tests_common_unit_test_base64_CFLAGS = $(SBX_TEST_CFLAGS)
tests_common_unit_test_base64_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS)

tests_common_unit_test_sandbox_ids_SOURCES = tests/common-unit/test_sandbox_ids.c
tests_common_unit_test_sandbox_ids_CFLAGS = $(SBX_TEST_CFLAGS)
tests_common_unit_test_sandbox_ids_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS)

tests_common_unit_test_http_client_SOURCES = tests/common-unit/test_http_client.c
tests_common_unit_test_http_client_CFLAGS = $(SBX_TEST_CFLAGS) -pthread
tests_common_unit_test_http_client_LDADD = common/libsbx-http.la $(SBX_TEST_LIBS) -lpthread

tests_common_unit_test_skip_log_SOURCES = tests/common-unit/test_skip_log.c
tests_common_unit_test_skip_log_CFLAGS = $(SBX_TEST_CFLAGS)
tests_common_unit_test_skip_log_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS)

tests_common_unit_test_json_escape_SOURCES = tests/common-unit/test_json_escape.c
tests_common_unit_test_json_escape_CFLAGS = $(SBX_TEST_CFLAGS)
tests_common_unit_test_json_escape_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS)

tests_common_unit_test_utf8_SOURCES = tests/common-unit/test_utf8.c
tests_common_unit_test_utf8_CFLAGS = $(SBX_TEST_CFLAGS)
tests_common_unit_test_utf8_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS)

tests_common_unit_test_siphash_SOURCES = tests/common-unit/test_siphash.c
tests_common_unit_test_siphash_CFLAGS = $(SBX_TEST_CFLAGS)
tests_common_unit_test_siphash_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS)
