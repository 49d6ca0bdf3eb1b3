# What the provisioner emulator and sbx-provisiond share, so that both speak
# the protocol the one same way (docs/protocol.md): the HTTP server
# (libmicrohttpd: body limit, API key, routing, 404/405/307), the routes,
# JSON reading and writing, the strict check of request bodies, answers
# and their error shapes, the create body's validation (pydantic-style
# 422s), the mount rules (400s) and the path arithmetic they use, and the
# non-blocking read of given files; what their mains share: the stop
# signals and the command line's numbers and TLS files.  It knows no
# backend (only its programs call the host API), and the AIO sandbox API
# is a library above it (tools/aio-api).  A convenience library: each
# program links its own copy (and common/libsbx-common.la, for the JSON
# lexer).
noinst_LTLIBRARIES += tools/provisioner-common/libsbx-provisioner.la
tools_provisioner_common_libsbx_provisioner_la_SOURCES = \
	tools/provisioner-common/prov_alloc.c tools/provisioner-common/prov_alloc.h \
	tools/provisioner-common/prov_answers.c tools/provisioner-common/prov_answers.h \
	tools/provisioner-common/prov_cli.c tools/provisioner-common/prov_cli.h \
	tools/provisioner-common/prov_conns.c tools/provisioner-common/prov_conns.h \
	tools/provisioner-common/prov_create.c tools/provisioner-common/prov_create.h \
	tools/provisioner-common/prov_create_spec.c tools/provisioner-common/prov_create_spec.h \
	tools/provisioner-common/prov_files.c tools/provisioner-common/prov_files.h \
	tools/provisioner-common/prov_json.c tools/provisioner-common/prov_json.h \
	tools/provisioner-common/prov_json_strict.c tools/provisioner-common/prov_json_strict.h \
	tools/provisioner-common/prov_mounts.c tools/provisioner-common/prov_mounts.h \
	tools/provisioner-common/prov_offload.c tools/provisioner-common/prov_offload.h \
	tools/provisioner-common/prov_paths.c tools/provisioner-common/prov_paths.h \
	tools/provisioner-common/prov_reply.c tools/provisioner-common/prov_reply.h \
	tools/provisioner-common/prov_routes.c tools/provisioner-common/prov_routes.h \
	tools/provisioner-common/prov_server.c tools/provisioner-common/prov_server.h \
	tools/provisioner-common/prov_shown.c tools/provisioner-common/prov_shown.h \
	tools/provisioner-common/prov_signals.c tools/provisioner-common/prov_signals.h
tools_provisioner_common_libsbx_provisioner_la_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) \
	$(JSONC_CFLAGS) -pthread
tools_provisioner_common_libsbx_provisioner_la_LIBADD = $(MHD_LIBS) $(JSONC_LIBS) -lpthread
