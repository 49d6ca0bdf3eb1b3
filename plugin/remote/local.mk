# The remote backend: a client of the provisioner HTTP API (libcurl + json-c).
# All logic lives in a convenience library that unit tests link directly; the
# module adds the entry point and exports nothing else.
noinst_LTLIBRARIES += plugin/remote/libsbx-remote-core.la
plugin_remote_libsbx_remote_core_la_SOURCES = \
	plugin/remote/answer_errors.c plugin/remote/answer_errors.h \
	plugin/remote/contract_cache.c plugin/remote/contract_cache.h \
	plugin/remote/create.c plugin/remote/create.h \
	plugin/remote/decode.c plugin/remote/decode.h \
	plugin/remote/instance.c plugin/remote/instance.h \
	plugin/remote/json_scan.c plugin/remote/json_scan.h \
	plugin/remote/ops.c plugin/remote/ops.h \
	plugin/remote/list_stream.c plugin/remote/list_stream.h \
	plugin/remote/options.c plugin/remote/options.h \
	plugin/remote/sandbox_rules.c plugin/remote/sandbox_rules.h
plugin_remote_libsbx_remote_core_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden \
	$(CURL_CFLAGS) $(JSONC_CFLAGS)

pkglib_LTLIBRARIES += plugin/remote/sbx-remote.la
plugin_remote_sbx_remote_la_SOURCES = plugin/remote/module.c plugin/remote/module.h
plugin_remote_sbx_remote_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
plugin_remote_sbx_remote_la_LIBADD = plugin/remote/libsbx-remote-core.la \
	common/libsbx-http.la $(CURL_LIBS) $(JSONC_LIBS)
plugin_remote_sbx_remote_la_LDFLAGS = $(AM_LDFLAGS) $(SBX_MODULE_LINK_FLAGS)
