# The AIO sandbox API (the HTTP API of the agent-infra "AIO" sandbox that
# the remote backend calls at a sandbox's sandbox_url) served on the
# sandboxes of an sbx backend: routing and key check, request bodies and
# their 422s, answer envelopes, text of the output, and one file per route
# family (exec, files, list, sandbox, upload/download), each route becoming
# ABI 1.3 operations through libsbx-host.  It sits above the provisioner
# library (tools/provisioner-common: server, replies, JSON), which knows
# nothing of it.  A convenience library: the emulator (--aio) and
# sbx-provisiond link their own copy, with libsbx-provisioner, libsbx-host
# and common/libsbx-common.la.
noinst_LTLIBRARIES += tools/aio-api/libsbx-aio.la
tools_aio_api_libsbx_aio_la_SOURCES = \
	tools/aio-api/aio_answers.c tools/aio-api/aio_answers.h \
	tools/aio-api/aio_bash_session.c tools/aio-api/aio_bash_session.h \
	tools/aio-api/aio_bash_sessions.c tools/aio-api/aio_bash_sessions.h \
	tools/aio-api/aio_body.c tools/aio-api/aio_body.h \
	tools/aio-api/aio_edit.c \
	tools/aio-api/aio_exec.c \
	tools/aio-api/aio_files.c tools/aio-api/aio_files.h \
	tools/aio-api/aio_list.c \
	tools/aio-api/aio_list_answer.c tools/aio-api/aio_list_answer.h \
	tools/aio-api/aio_multipart.c tools/aio-api/aio_multipart.h \
	tools/aio-api/aio_process.c tools/aio-api/aio_process.h \
	tools/aio-api/aio_routes.h \
	tools/aio-api/aio_sandbox.c \
	tools/aio-api/aio_search.h tools/aio-api/aio_search_find.c \
	tools/aio-api/aio_search_glob.c tools/aio-api/aio_search_grep.c \
	tools/aio-api/aio_search_run.c \
	tools/aio-api/aio_server.c tools/aio-api/aio_server.h \
	tools/aio-api/aio_shell.c \
	tools/aio-api/aio_shell_table.c tools/aio-api/aio_shell_table.h \
	tools/aio-api/aio_text.c tools/aio-api/aio_text.h \
	tools/aio-api/aio_transfer.c
tools_aio_api_libsbx_aio_la_SOURCES += \
	tools/aio-api/aio_home_cache.c tools/aio-api/aio_home_cache.h \
	tools/aio-api/aio_editor.c \
	tools/aio-api/aio_edit_history.c tools/aio-api/aio_edit_history.h \
	tools/aio-api/aio_write_body.c tools/aio-api/aio_write_body.h
tools_aio_api_libsbx_aio_la_CFLAGS = $(AM_CFLAGS) $(JSONC_CFLAGS) -pthread
tools_aio_api_libsbx_aio_la_LIBADD = $(JSONC_LIBS) -lpthread
