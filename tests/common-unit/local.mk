# Unit tests of the building blocks in common/ that every part of the tree
# shares (the growable buffer, the hash, base64, UTF-8 and hex digits, the
# backends' option table): no process, no network.
SBX_COMMON_UNIT_SUITES = tests/common-unit/test_building_blocks \
	tests/common-unit/test_base64 \
	tests/common-unit/test_utf8 \
	tests/common-unit/test_option_table
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

tests_common_unit_test_utf8_SOURCES = tests/common-unit/test_utf8.c
tests_common_unit_test_utf8_CFLAGS = $(SBX_TEST_CFLAGS)
tests_common_unit_test_utf8_LDADD = common/libsbx-common.la $(SBX_TEST_LIBS)
