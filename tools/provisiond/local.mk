# sbx-provisiond: the provisioner protocol served with any sbx backend
# (docs/provisiond.md, docs/sbx-provisiond.8), on the server and answers it
# shares with the emulator (tools/provisioner-common).  CLI, ownership
# records and the AIO bash sessions kept in --state-dir, route handlers
# over the backend, the sandboxes' AIO API (tokens and /s/ routes over
# tools/aio-api), and main's wiring (the stop signals are the shared
# ones).
bin_PROGRAMS += tools/provisiond/sbx-provisiond
tools_provisiond_sbx_provisiond_SOURCES = \
	tools/provisiond/main.c \
	tools/provisiond/provd_bash_store.c tools/provisiond/provd_bash_store.h \
	tools/provisiond/provd_expiry.c tools/provisiond/provd_expiry.h \
	tools/provisiond/provd_extend.c tools/provisiond/provd_extend.h \
	tools/provisiond/provd_options.c tools/provisiond/provd_options.h \
	tools/provisiond/provd_owners.c tools/provisiond/provd_owners.h \
	tools/provisiond/provd_sandbox_api.c tools/provisiond/provd_sandbox_api.h \
	tools/provisiond/provd_service.c tools/provisiond/provd_service.h \
	tools/provisiond/provd_spec.c tools/provisiond/provd_spec.h \
	tools/provisiond/provd_state_file.c tools/provisiond/provd_state_file.h
tools_provisiond_sbx_provisiond_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(JSONC_CFLAGS) -pthread
tools_provisiond_sbx_provisiond_LDADD = tools/aio-api/libsbx-aio.la \
	tools/provisioner-common/libsbx-provisioner.la \
	host-api/libsbx-host.la common/libsbx-common.la $(MHD_LIBS) $(JSONC_LIBS) -lpthread
