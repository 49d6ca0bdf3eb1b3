# The remote backend: a client of the provisioner HTTP API (libcurl + json-c).
# All logic lives in a convenience library that unit tests link directly; the
# module adds the entry point and exports nothing else.
noinst_LTLIBRARIES += plugin/remote/libsbx-remote-core.la
plugin_remote_libsbx_remote_core_la_SOURCES = \
	plugin/remote/remote_aio_decode.c plugin/remote/remote_aio_decode.h \
	plugin/remote/remote_aio_text.c plugin/remote/remote_aio_text.h \
	plugin/remote/remote_answer_errors.c plugin/remote/remote_answer_errors.h \
	plugin/remote/remote_contract_cache.c plugin/remote/remote_contract_cache.h \
	plugin/remote/remote_create.c plugin/remote/remote_create.h \
	plugin/remote/remote_decode.c plugin/remote/remote_decode.h \
	plugin/remote/remote_endpoint.c plugin/remote/remote_endpoint.h \
	plugin/remote/remote_exec.c plugin/remote/remote_exec.h \
	plugin/remote/remote_exec_answer.c plugin/remote/remote_exec_answer.h \
	plugin/remote/remote_list_answer.c plugin/remote/remote_list_answer.h \
	plugin/remote/remote_exec_call.c plugin/remote/remote_exec_call.h \
	plugin/remote/remote_files.c plugin/remote/remote_files.h \
	plugin/remote/remote_field_reader.c plugin/remote/remote_field_reader.h \
	plugin/remote/remote_instance.c plugin/remote/remote_instance.h \
	plugin/remote/remote_json_scan.c plugin/remote/remote_json_scan.h \
	plugin/remote/remote_lookup.c plugin/remote/remote_lookup.h \
	plugin/remote/remote_ops.c plugin/remote/remote_ops.h \
	plugin/remote/remote_process.c plugin/remote/remote_process.h \
	plugin/remote/remote_process_answer.c plugin/remote/remote_process_answer.h \
	plugin/remote/remote_process_ids.c plugin/remote/remote_process_ids.h \
	plugin/remote/remote_list_stream.c plugin/remote/remote_list_stream.h \
	plugin/remote/remote_options.c plugin/remote/remote_options.h \
	plugin/remote/remote_sandbox_answer.c plugin/remote/remote_sandbox_answer.h \
	plugin/remote/remote_sandbox_clients.c plugin/remote/remote_sandbox_clients.h \
	plugin/remote/remote_sandbox_rules.c plugin/remote/remote_sandbox_rules.h \
	plugin/remote/remote_create_spec.c plugin/remote/remote_create_spec.h \
	plugin/remote/remote_extend.c plugin/remote/remote_extend.h \
	plugin/remote/remote_records.c plugin/remote/remote_records.h
plugin_remote_libsbx_remote_core_la_SOURCES += \
	plugin/remote/remote_address_cache.c plugin/remote/remote_address_cache.h
plugin_remote_libsbx_remote_core_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden \
	$(CURL_CFLAGS) $(JSONC_CFLAGS)

pkglib_LTLIBRARIES += plugin/remote/sbx-remote.la
plugin_remote_sbx_remote_la_SOURCES = plugin/remote/remote_backend.c plugin/remote/remote_backend.h
plugin_remote_sbx_remote_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
plugin_remote_sbx_remote_la_LIBADD = plugin/remote/libsbx-remote-core.la \
	common/libsbx-http.la $(CURL_LIBS) $(JSONC_LIBS)
plugin_remote_sbx_remote_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_MODULE_LINK_FLAGS)
