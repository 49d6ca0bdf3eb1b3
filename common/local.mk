# Code shared by the host library and the backends.  Convenience libraries:
# each user links its own copy, and modules export none of it.

# Id and create request rules, the built-in backends' mount contract,
# sandbox records, option tables and values, values quoted in messages, the
# wait for a sandbox's server, random bytes, shell quoting, the streaming
# JSON lexer (the HTTP backends'
# list decoders, the provisioners' strict body check), and the requests and
# results of the sandbox operations: everything any backend (in-process or
# module) needs.
noinst_LTLIBRARIES += common/libsbx-common.la
common_libsbx_common_la_SOURCES = \
	common/create_request.c common/create_request.h \
	common/mount_contract.c common/mount_contract.h \
	common/base64.c common/base64.h \
	common/dynbuf.c common/dynbuf.h \
	common/exec_request.c common/exec_request.h \
	common/expiry.c common/expiry.h \
	common/op_results.c common/op_results.h \
	common/fnv1a.h \
	common/hex_digit.h \
	common/option_table.c common/option_table.h \
	common/option_values.c common/option_values.h \
	common/printable.c common/printable.h \
	common/random_bytes.c common/random_bytes.h \
	common/redact.c common/redact.h \
	common/secret_file.c common/secret_file.h \
	common/skip_log.c common/skip_log.h \
	common/sandbox_ids.c common/sandbox_ids.h \
	common/iso_time.c common/iso_time.h \
	common/record_chain.c common/record_chain.h \
	common/sandbox_records.c common/sandbox_records.h \
	common/shell_quote.c common/shell_quote.h \
	common/siphash.c common/siphash.h \
	common/tcp_ready.c common/tcp_ready.h \
	common/utf8.c common/utf8.h \
	common/json_stream.c common/json_stream.h \
	common/json_unescape.c common/json_unescape.h \
	common/json_escape.c common/json_escape.h common/json_plain.h

# The HTTP client and strict JSON readers of the HTTP backends (remote,
# docker), also linked into the host library for the manager's readiness
# wait; kept apart so that a program needing only libsbx-common does not
# link libcurl.
noinst_LTLIBRARIES += common/libsbx-http.la
common_libsbx_http_la_SOURCES = \
	common/http_client.c common/http_client.h \
	common/net_policy.c common/net_policy.h \
	common/json_fields.c common/json_fields.h
common_libsbx_http_la_CFLAGS = $(AM_CFLAGS) $(CURL_CFLAGS) $(JSONC_CFLAGS)
common_libsbx_http_la_LIBADD = common/libsbx-common.la $(CURL_LIBS) $(JSONC_LIBS)
