# sbx-provisioner-emu: the provisioner emulator tests and demos run against
# (docs/emulator.md), on the shared provisioner server and answers
# (tools/provisioner-common).  One file per responsibility: main, CLI options, allocation
# that exits on exhaustion (a test program may; the shared code may not), the
# server's hooks, /api routes, the emulated cluster (Pods, Services,
# Kubernetes failures), faults/holds/counters, request log, control API,
# and the AIO routes on local sandboxes (--aio).
bin_PROGRAMS += tools/provisioner-emu/sbx-provisioner-emu
tools_provisioner_emu_sbx_provisioner_emu_SOURCES = \
	tools/provisioner-emu/main.c \
	tools/provisioner-emu/emu_aio.c tools/provisioner-emu/emu_aio.h \
	tools/provisioner-emu/emu_alloc.c tools/provisioner-emu/emu_alloc.h \
	tools/provisioner-emu/emu_api.c tools/provisioner-emu/emu_api.h \
	tools/provisioner-emu/emu_context.h \
	tools/provisioner-emu/emu_contract.c tools/provisioner-emu/emu_contract.h \
	tools/provisioner-emu/emu_control.c tools/provisioner-emu/emu_control.h \
	tools/provisioner-emu/emu_faults.c tools/provisioner-emu/emu_faults.h \
	tools/provisioner-emu/emu_options.c tools/provisioner-emu/emu_options.h \
	tools/provisioner-emu/emu_request_log.c tools/provisioner-emu/emu_request_log.h \
	tools/provisioner-emu/emu_server.c tools/provisioner-emu/emu_server.h \
	tools/provisioner-emu/emu_store.c tools/provisioner-emu/emu_store.h \
	tools/provisioner-emu/emu_uid.c tools/provisioner-emu/emu_uid.h
tools_provisioner_emu_sbx_provisioner_emu_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(JSONC_CFLAGS) -pthread
tools_provisioner_emu_sbx_provisioner_emu_LDADD = tools/aio-api/libsbx-aio.la \
	tools/provisioner-common/libsbx-provisioner.la \
	host-api/libsbx-host.la common/libsbx-common.la $(MHD_LIBS) $(JSONC_LIBS) -lpthread
